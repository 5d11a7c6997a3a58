// The shared options (cli/device_options.hpp): each one parses into its variable, says its
// meaning and default in --help the same way in every tool, and rejects what it must;
// cli::parse_arguments reports help, version and malformed command lines without printing.
#include "cli/device_options.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/command_line.hpp"

namespace po = boost::program_options;

namespace {

// Everything a tool could take, filled by one parse.
struct Taken {
    std::vector<std::string> sim_designs, design_files, devices;
    std::vector<int> gpus;
    cli::Etsoc1Selection etsoc1;
    cli::XdmaModeText modes;
    bool json = false, no_iommu = false;
    std::string transfer_timeout = "60", lock_timeout;
    po::options_description options{"Options", 1000, 500};  // one line per option: the texts are found whole

    Taken() {
        cli::add_help_and_version(options);
        cli::add_sim_design_option(options, sim_designs);
        cli::add_design_file_option(options, design_files);
        cli::add_device_option(options, devices);
        cli::add_cuda_device_option(options, gpus);
        cli::add_etsoc1_options(options, etsoc1);
        cli::add_xdma_mode_options(options, modes);
        cli::add_json_option(options, json, cli::JsonForm::Lines);
        cli::add_transfer_timeout_option(options, transfer_timeout);
        cli::add_lock_timeout_option(options, lock_timeout);
        cli::add_no_iommu_option(options, no_iommu);
    }

    pdt::Result<cli::Request> parse(std::vector<std::string> words, std::vector<std::string>* arguments = nullptr) {
        words.insert(words.begin(), "tool");
        std::vector<const char*> argv;
        for (const std::string& word : words)
            argv.push_back(word.c_str());
        po::variables_map values;
        return cli::parse_arguments(static_cast<int>(argv.size()), argv.data(),
                                    {options, cli::Usage{}, arguments, "word"}, values);
    }

    std::string help() const {
        std::ostringstream text;
        text << options;
        return text.str();
    }
};

// `r`, the parse of `given`, is a usage error (EINVAL) whose message says `words`.
template <typename Value>
void expect_usage_error_naming(const pdt::Result<Value>& r, const std::string& given, const std::string& words) {
    ASSERT_FALSE(r.ok()) << given;
    EXPECT_EQ(r.error().code, EINVAL) << given;
    EXPECT_TRUE(r.error().usage) << given;
    EXPECT_NE(r.error().message().find(words), std::string::npos) << r.error().message();
}

TEST(DeviceOptions, EachOptionParsesIntoItsVariable) {
    Taken t;
    const auto r = t.parse({"--sim_design", "A", "--sim_design", "B", "--design_file", "f.json", "-d", "0000:01:00.0",
                            "--device", "0000:02:00.0", "--cuda_device", "0", "--cuda_device", "1", "--etsoc1_device",
                            "fake", "--etsoc1_fake", "dma_gbps=2", "--etsoc1_socket", "/run/s.sock", "--engine_mode",
                            "credits", "--completion", "interrupt", "--json", "--transfer_timeout", "5",
                            "--lock_timeout", "0.5", "--no_iommu"});
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(*r, cli::Request::Run);
    EXPECT_EQ(t.sim_designs, (std::vector<std::string>{"A", "B"}));
    EXPECT_EQ(t.design_files, (std::vector<std::string>{"f.json"}));
    EXPECT_EQ(t.devices, (std::vector<std::string>{"0000:01:00.0", "0000:02:00.0"}));
    EXPECT_EQ(t.gpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(t.etsoc1.devices, (std::vector<std::string>{"fake"}));
    EXPECT_EQ(t.etsoc1.fake, "dma_gbps=2");
    EXPECT_EQ(t.etsoc1.socket, "/run/s.sock");
    EXPECT_EQ(t.modes.engine_mode, "credits");
    EXPECT_EQ(t.modes.completion, "interrupt");
    EXPECT_TRUE(t.json);
    EXPECT_EQ(t.transfer_timeout, "5");
    EXPECT_EQ(t.lock_timeout, "0.5");
    EXPECT_TRUE(t.no_iommu);
}

TEST(DeviceOptions, DefaultsStayWhenNotGiven) {
    Taken t;
    ASSERT_TRUE(t.parse({}).ok());
    EXPECT_TRUE(t.sim_designs.empty() && t.gpus.empty() && t.etsoc1.devices.empty());
    EXPECT_EQ(t.modes.engine_mode, "auto");
    EXPECT_EQ(t.modes.completion, "auto");
    EXPECT_FALSE(t.json);
    EXPECT_FALSE(t.no_iommu);  // physical-address DMA only when asked for
    EXPECT_EQ(t.transfer_timeout, "60");
}

TEST(DeviceOptions, HelpSaysEachMeaningOnce) {
    const std::string help = Taken().help();
    for (const char* text : {"a simulated instance of this design instead of the kernel's VFIO devices (repeatable)",
                             "add the designs of this JSON file to the built-in ones (repeatable)",
                             "only the device at this PCI location dddd:bb:dd.f (repeatable)",
                             "run on this NVIDIA GPU (CUDA ordinal, repeatable)", "--etsoc1_socket",
                             "(STOP-terminated descriptor lists)", "print JSON Lines instead of text",
                             "seconds without a completion that fail the run (default 60)", "$PDT_LOCK_DIR",
                             "DANGER: allow DMA to devices in no-IOMMU VFIO groups"}) {
        EXPECT_NE(help.find(text), std::string::npos) << text << "\n" << help;
        EXPECT_EQ(help.find(text), help.rfind(text)) << text;
    }
    EXPECT_NE(help.find("-d [ --device ]"), std::string::npos) << help;
}

TEST(DeviceOptions, JsonHelpNamesItsForm) {
    bool json = false;
    po::options_description lines, document;
    cli::add_json_option(lines, json, cli::JsonForm::Lines);
    cli::add_json_option(document, json, cli::JsonForm::Document);
    std::ostringstream a, b;
    a << lines;
    b << document;
    EXPECT_NE(a.str().find("JSON Lines"), std::string::npos) << a.str();
    EXPECT_NE(b.str().find("one JSON document"), std::string::npos) << b.str();
}

TEST(DeviceOptions, TransferTimeoutHelpShowsTheToolsDefault) {
    std::string seconds = "10";
    po::options_description options;
    cli::add_transfer_timeout_option(options, seconds);
    std::ostringstream text;
    text << options;
    EXPECT_NE(text.str().find("(default 10)"), std::string::npos) << text.str();
}

TEST(DeviceOptions, LockTimeoutParsesSecondsAndRejectsTheRestNamingTheOption) {
    EXPECT_EQ(*cli::parse_lock_timeout(""), std::chrono::milliseconds(0));
    EXPECT_EQ(*cli::parse_lock_timeout("0.5"), std::chrono::milliseconds(500));
    EXPECT_EQ(*cli::parse_lock_timeout("2"), std::chrono::milliseconds(2000));
    for (const char* bad : {"-1", "soon", "1s", "700000", "nan"})
        expect_usage_error_naming(cli::parse_lock_timeout(bad), bad, "--lock_timeout");
}

// One reading of --transfer_timeout for every tool: seconds above 0, at most a day, to the
// nearest millisecond and at least one.
TEST(DeviceOptions, TransferTimeoutParsesSecondsAndRejectsTheRestNamingTheOption) {
    EXPECT_EQ(*cli::parse_transfer_timeout("10"), std::chrono::milliseconds(10000));
    EXPECT_EQ(*cli::parse_transfer_timeout("0.0004"), std::chrono::milliseconds(1));
    EXPECT_EQ(*cli::parse_transfer_timeout("2.0006"), std::chrono::milliseconds(2001));
    EXPECT_EQ(*cli::parse_transfer_timeout("86400"), std::chrono::milliseconds(86400000));
    for (const char* bad : {"0", "-1", "", "soon", "1s", "86401", "nan"})
        expect_usage_error_naming(cli::parse_transfer_timeout(bad), bad, "transfer_timeout");
}

// --etsoc1_device: fakes counted, runtime indices kept in order, anything else refused naming
// the option (the stream tools and pcie_link_measure read it alike).
TEST(DeviceOptions, Etsoc1DevicesAreFakesAndRuntimeIndices) {
    const auto cards = cli::parse_etsoc1_devices({"fake", "3", "fake", "0"});
    ASSERT_TRUE(cards.ok()) << cards.error().message();
    EXPECT_EQ(cards->fakes, 2u);
    EXPECT_EQ(cards->indices, (std::vector<int>{3, 0}));
    EXPECT_EQ(cli::parse_etsoc1_devices({})->fakes, 0u);
    for (const char* bad : {"64", "-1", "Fake", "card0", ""})
        expect_usage_error_naming(cli::parse_etsoc1_devices({bad}), bad, "etsoc1_device");
}

// F30: an ET-SoC-1 option that the cards named do not use is a usage error naming it, never
// dropped: the socket without a runtime card, the fake's parameters without the fake, and with no
// --etsoc1_device at all every ET-SoC-1 option (the fake is used only when named).
TEST(DeviceOptions, Etsoc1OptionsTheNamedCardsDoNotUseAreUsageErrorsNamingThem) {
    const auto refused = [](const cli::Etsoc1Selection& selection, const std::vector<cli::GivenOption>& shaping,
                            const std::string& named) {
        expect_usage_error_naming(cli::check_etsoc1_options_used(selection, shaping), named, named + " is not used");
    };
    refused({{}, "", "/run/s.sock", ""}, {}, "--etsoc1_socket \"/run/s.sock\"");
    refused({{}, "dma_gbps=2", "", ""}, {}, "--etsoc1_fake \"dma_gbps=2\"");
    refused({{}, "", "", ""}, {{"etsoc1_window", "2"}}, "--etsoc1_window \"2\"");
    refused({{"fake"}, "", "/run/s.sock", ""}, {}, "--etsoc1_socket \"/run/s.sock\"");
    refused({{"0"}, "moves_nothing=1", "", ""}, {}, "--etsoc1_fake \"moves_nothing=1\"");
    refused({{}, "", "", "rt.log"}, {}, "--etsoc1_log \"rt.log\"");
    refused({{"fake"}, "", "", "rt.log"}, {}, "--etsoc1_log \"rt.log\"");
    EXPECT_TRUE(cli::check_etsoc1_options_used({{"0"}, "", "", "rt.log"}, {}).ok());
    const auto socket_alone = cli::check_etsoc1_options_used({{}, "", "/run/s.sock", ""}, {});
    ASSERT_FALSE(socket_alone.ok());
    EXPECT_NE(socket_alone.error().message().find("no --etsoc1_device names one"), std::string::npos)
        << socket_alone.error().message();
    EXPECT_TRUE(cli::check_etsoc1_options_used({}, {{"etsoc1_window", ""}}).ok());
    EXPECT_TRUE(cli::check_etsoc1_options_used({{"0"}, "", "/run/s.sock", ""}, {{"etsoc1_window", "2"}}).ok());
    EXPECT_TRUE(cli::check_etsoc1_options_used({{"fake"}, "dma_gbps=2", "", ""}, {{"etsoc1_window", "2"}}).ok());
    EXPECT_TRUE(cli::check_etsoc1_options_used({{"fake", "0"}, "dma_gbps=2", "/run/s.sock", ""}, {}).ok());
    EXPECT_FALSE(cli::check_etsoc1_options_used({{"card0"}, "", "", ""}, {}).ok());
}

TEST(ParseArguments, HelpAndVersionAreRequestsNotRuns) {
    EXPECT_EQ(*Taken().parse({"--help"}), cli::Request::Help);
    EXPECT_EQ(*Taken().parse({"-h"}), cli::Request::Help);
    EXPECT_EQ(*Taken().parse({"--version"}), cli::Request::Version);
}

// The driver refuses a mode in its own words; the tool layer names the options that asked for it.
TEST(DeviceOptions, AnXdmaModeRefusalGainsTheOptionsName) {
    const pdt::Error mode = cli::name_xdma_mode_options(
        pdt::usage_error("choose XDMA engine mode", "0000:15:00.0 H2C 0", "engine mode credits: the IP has none"));
    EXPECT_EQ(mode.hint, "engine mode credits: the IP has none; option --engine_mode");
    EXPECT_TRUE(mode.usage);
    const pdt::Error completion = cli::name_xdma_mode_options(
        pdt::usage_error("choose XDMA completion", "0000:15:00.0 H2C 0", "completion status needs STOP-terminated lists"));
    EXPECT_EQ(completion.hint, "completion status needs STOP-terminated lists; options --completion and --engine_mode");
    const pdt::Error other = cli::name_xdma_mode_options(pdt::make_error("open", "0000:15:00.0", ENODEV, "gone"));
    EXPECT_EQ(other.hint, "gone");
    EXPECT_FALSE(other.usage);
}

TEST(ParseArguments, AMalformedCommandLineIsEinvalWithTheParsersMessage) {
    const auto unknown = Taken().parse({"--bogus"});
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, EINVAL);
    EXPECT_TRUE(unknown.error().usage);
    EXPECT_EQ(unknown.error().hint, "unrecognised option '--bogus'");
    const auto not_a_number = Taken().parse({"--cuda_device", "first"});
    ASSERT_FALSE(not_a_number.ok());
    EXPECT_NE(not_a_number.error().hint.find("cuda_device"), std::string::npos) << not_a_number.error().hint;
    const auto missing = Taken().parse({"--sim_design"});
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().hint.find("sim_design"), std::string::npos) << missing.error().hint;
}

TEST(ParseArguments, WordsThatAreNoOptionGoToTheArguments) {
    Taken t;
    std::vector<std::string> words;
    ASSERT_TRUE(t.parse({"sweep", "--json", "file.json"}, &words).ok());
    EXPECT_EQ(words, (std::vector<std::string>{"sweep", "file.json"}));
    EXPECT_TRUE(t.json);
}

}  // namespace
