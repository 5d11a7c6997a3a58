// cli::parse_command_line: --help, --version and usage errors worded each tool's way,
// the words that are no option, and report_error's exit status.
#include "cli/command_line.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "pdt_version/version.hpp"

namespace po = boost::program_options;

namespace {

// What one parse printed and returned.
struct Parsed {
    std::optional<int> status;
    std::string out, err;
};

// Parses `words` (argv[0] is "/usr/bin/tool") with --json and --count N through `parse_line`,
// capturing what it prints.
template <typename ParseLine>
Parsed capture(std::vector<std::string> words, ParseLine parse_line) {
    po::options_description options("Options");
    cli::add_help_and_version(options);
    unsigned count = 1;
    options.add_options()("json", "print JSON")("count", po::value(&count), "how many");
    words.insert(words.begin(), "/usr/bin/tool");
    std::vector<char*> argv;
    for (std::string& word : words)
        argv.push_back(word.data());
    std::ostringstream out, err;
    std::streambuf* const cout = std::cout.rdbuf(out.rdbuf());
    std::streambuf* const cerr = std::cerr.rdbuf(err.rdbuf());
    Parsed parsed;
    parsed.status = parse_line(static_cast<int>(argv.size()), argv.data(), options);
    std::cout.rdbuf(cout);
    std::cerr.rdbuf(cerr);
    parsed.out = out.str();
    parsed.err = err.str();
    return parsed;
}

// parse_command_line with `usage`.
Parsed parse(std::vector<std::string> words, const cli::Usage& usage, std::vector<std::string>* arguments = nullptr,
             po::variables_map* values = nullptr) {
    return capture(std::move(words), [&](int argc, char** argv, const po::options_description& options) {
        return cli::parse_command_line(argc, argv, {options, usage, arguments, "argument"}, values);
    });
}

std::string options_text() {
    po::options_description options("Options");
    cli::add_help_and_version(options);
    options.add_options()("json", "print JSON")("count", po::value<unsigned>(), "how many");
    std::ostringstream text;
    text << options;
    return text.str();
}

TEST(CommandLine, FpgaSioWordingOfAUsageError) {
    const Parsed p = parse({"--bogus"}, cli::fpga_sio_usage("/usr/bin/tool", "Does things."));
    EXPECT_EQ(p.status, 2);
    EXPECT_EQ(p.err, "Error: unrecognised option '--bogus'\nUsage: /usr/bin/tool [options] (--help for the list)\n");
    EXPECT_EQ(p.out, "");
}

TEST(CommandLine, FpgaSioWordingOfHelp) {
    const Parsed p = parse({"--help"}, cli::fpga_sio_usage("/usr/bin/tool", "Does things."));
    EXPECT_EQ(p.status, 0);
    EXPECT_EQ(p.out, "Usage: /usr/bin/tool [options]\nDoes things.\n\n" + options_text());
    EXPECT_EQ(p.err, "");
}

TEST(CommandLine, TheFpgaSioShorthandParsesAsTheLongForm) {
    const cli::Usage usage = cli::fpga_sio_usage("/usr/bin/tool", "Does things.");
    for (const std::vector<std::string>& words : {std::vector<std::string>{"--bogus"}, {"--help"}, {"--json"}}) {
        const Parsed shorthand = capture(words, [](int argc, char** argv, const po::options_description& options) {
            return cli::parse_fpga_sio_command_line(argc, argv, options, "Does things.");
        });
        const Parsed long_form = parse(words, usage);
        EXPECT_EQ(shorthand.status, long_form.status) << words[0];
        EXPECT_EQ(shorthand.out, long_form.out) << words[0];
        EXPECT_EQ(shorthand.err, long_form.err) << words[0];
    }
}

TEST(CommandLine, ToolWordingPrintsTheOptionsAfterAUsageError) {
    const Parsed p = parse({"--count", "many"}, cli::tool_usage("tool"));
    EXPECT_EQ(p.status, 2);
    EXPECT_EQ(p.err, "tool: the argument ('many') for option '--count' is invalid\n" + options_text());
}

TEST(CommandLine, ToolWordingOfHelpWithAHead) {
    EXPECT_EQ(parse({"-h"}, cli::tool_usage("tool", "Usage: ")).out, "Usage: " + options_text());
    EXPECT_EQ(parse({"-h"}, cli::tool_usage("tool")).out, options_text());
}

TEST(CommandLine, MessageWordingIsTheMessageAlone) {
    const Parsed p = parse({"--count"}, cli::message_usage("Error: "));
    EXPECT_EQ(p.status, 2);
    EXPECT_EQ(p.err, "Error: the required argument for option '--count' is missing\n");
}

TEST(CommandLine, VersionPrintsTheVersionLine) {
    const Parsed p = parse({"--version"}, cli::tool_usage("tool"));
    EXPECT_EQ(p.status, 0);
    EXPECT_EQ(p.out, pdt_version::version_line("tool") + "\n");
}

TEST(CommandLine, HelpComesBeforeVersion) {
    EXPECT_EQ(parse({"--version", "--help"}, cli::tool_usage("tool")).out, options_text());
}

TEST(CommandLine, OptionsAndArgumentsGoOn) {
    std::vector<std::string> arguments;
    po::variables_map values;
    const Parsed p = parse({"0000:15:00.0", "--json", "10ee", "--argument", "8086"}, cli::tool_usage("tool"),
                           &arguments, &values);
    EXPECT_EQ(p.status, std::nullopt);
    EXPECT_EQ(p.out + p.err, "");
    EXPECT_EQ(arguments, (std::vector<std::string>{"0000:15:00.0", "10ee", "8086"}));
    EXPECT_EQ(values.count("json"), 1u);
}

TEST(CommandLine, ReportErrorExits2ForAUsageErrorElse1) {
    std::ostringstream err;
    std::streambuf* const cerr = std::cerr.rdbuf(err.rdbuf());
    const int usage = cli::report_error("tool", pdt::usage_error("parse", "x", "bad"));
    const int failure = cli::report_error("tool", pdt::make_error("open", "y", ENODEV, "gone"));
    std::cerr.rdbuf(cerr);
    EXPECT_EQ(usage, 2);
    EXPECT_EQ(failure, 1);
    EXPECT_EQ(err.str(), "tool: " + pdt::usage_error("parse", "x", "bad").message() + "\ntool: " +
                             pdt::make_error("open", "y", ENODEV, "gone").message() + "\n");
}

// A device's EINVAL (an ioctl or a register the device refused) is a failure, not a usage error:
// the exit status comes from Error::usage, never from the errno.
TEST(CommandLine, ReportErrorExits1ForADevicesEinval) {
    std::ostringstream err;
    std::streambuf* const cerr = std::cerr.rdbuf(err.rdbuf());
    const int status = cli::report_error("tool", pdt::make_error("VFIO_DEVICE_SET_IRQS", "0000:15:00.0", EINVAL));
    std::cerr.rdbuf(cerr);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(err.str(), "tool: VFIO_DEVICE_SET_IRQS 0000:15:00.0: Invalid argument\n");
}

}  // namespace
