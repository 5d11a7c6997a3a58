#include <gtest/gtest.h>

#include <fstream>

#include "measure/tool.hpp"

using namespace measure;

namespace {
pdt::Result<ParsedOptions> parse(std::vector<const char*> args) {
    args.insert(args.begin(), "pcie_link_measure");
    boost::program_options::options_description none;
    return parse_options(static_cast<int>(args.size()), args.data(), none);
}
}  // namespace

TEST(Options, Sizes) {
    EXPECT_EQ(*parse_size("4096"), 4096u);
    EXPECT_EQ(*parse_size("4KiB"), 4096u);
    EXPECT_EQ(*parse_size("64M"), 64ull << 20);
    EXPECT_EQ(*parse_size("1.5MiB"), 3ull << 19);
    EXPECT_EQ(*parse_size("1.7GB"), 1700000000u);
    EXPECT_FALSE(parse_size("4 parsecs"));
    EXPECT_FALSE(parse_size("-1"));
    EXPECT_EQ(*parse_size_list("0-3,64"), (std::vector<uint64_t>{0, 1, 2, 3, 64}));
    EXPECT_FALSE(parse_size_list("5-1"));
}

TEST(Options, ASweepWithItsSettings) {
    auto p = parse({"sweep", "--min_bytes", "64KiB", "--max_bytes", "1MiB", "--repeats", "3", "--json", "--seed", "9"});
    ASSERT_TRUE(p) << p.error().message();
    EXPECT_EQ(p->options.steps, std::vector<std::string>{"sweep"});
    EXPECT_EQ(p->options.sweep.min_bytes, 65536u);
    EXPECT_EQ(p->options.sweep.repeats, 3u);
    EXPECT_EQ(p->options.inflight.repeats, 3u);
    EXPECT_TRUE(p->options.json);
    EXPECT_EQ(p->options.common.seed, 9u);
    EXPECT_EQ(p->options.command_line, "pcie_link_measure sweep --min_bytes 64KiB --max_bytes 1MiB --repeats 3 --json --seed 9");
}

TEST(Options, UsageErrorsAreEinval) {
    const std::vector<std::vector<const char*>> bad = {
        {},
        {"warp"},
        {"sweep", "--no_such_option"},
        {"sweep", "--repeats", "0"},
        {"sweep", "--min_bytes", "1MiB", "--max_bytes", "4KiB"},
        {"sweep", "--transfer_timeout", "0"},
        {"sweep", "extra"},
        {"campaign"},
        {"access", "--access_patterns", "zigzag"},
        {"access", "--access_direction", "sideways"},
        {"ceiling", "--resident_fraction", "1.5"},
        {"sweep", "--disturbed_bound", "0"},
        {"sweep", "--disturbed_bound", "-0.1"},
        {"sweep", "--staged_chunk", "100"},
        {"sweep", "--staged_chunk", "lots"},
        {"sweep", "--staged_depth", "65"},
        {"campaign", "/nonexistent/campaign.json"},
    };
    for (const auto& args : bad) {
        auto p = parse(args);
        ASSERT_FALSE(p) << (args.empty() ? "(none)" : args[0]);
        EXPECT_EQ(p.error().code, EINVAL);
    }
}

TEST(Options, DisturbedBoundIsNamedInItsError) {
    auto p = parse({"sweep", "--disturbed_bound", "0"});
    ASSERT_FALSE(p);
    EXPECT_NE(p.error().message().find("--disturbed_bound"), std::string::npos) << p.error().message();
    auto ok = parse({"sweep", "--disturbed_bound", "0.2"});
    ASSERT_TRUE(ok);
    EXPECT_DOUBLE_EQ(ok->options.sweep.disturbed_bound, 0.2);
}

TEST(Options, HelpListsTheSubcommands) {
    auto p = parse({"--help"});
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->help);
    EXPECT_NE(p->help_text.find("sweep|latency|access|inflight|bidir|launch|ceiling|campaign"), std::string::npos);
}

TEST(Options, TheStagedPipeline) {
    auto p = parse({"sweep", "--staged_chunk", "1MiB", "--staged_depth", "2"});
    ASSERT_TRUE(p) << p.error().message();
    EXPECT_EQ(p->options.sweep.staged_chunk, 1u << 20);
    EXPECT_EQ(p->options.sweep.staged_depth, 2u);
    auto from_curve = parse({"sweep", "--staged_chunk", "0"});
    ASSERT_TRUE(from_curve) << from_curve.error().message();
    EXPECT_EQ(from_curve->options.sweep.staged_chunk, 0u);
    EXPECT_EQ(from_curve->options.sweep.staged_depth, 0u);
    auto bad = parse({"sweep", "--staged_chunk", "100"});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().object, "--staged_chunk 100");
    EXPECT_EQ(bad.error().hint, "expected a multiple of 64 bytes (0: from the measured curve)");
}

TEST(Options, TheStagedPipelineFromACampaign) {
    const std::string file = ::testing::TempDir() + "/staged_campaign.json";
    const auto write = [&](const std::string& chunk) {
        std::ofstream(file) << R"({"steps": [{"subcommand": "sweep", "staged_chunk": ")" << chunk
                            << R"(", "staged_depth": 6}]})";
    };
    write("2MiB");
    auto p = parse({"campaign", file.c_str()});
    ASSERT_TRUE(p) << p.error().message();
    EXPECT_EQ(p->options.sweep.staged_chunk, 2u << 20);
    EXPECT_EQ(p->options.sweep.staged_depth, 6u);
    write("100");
    auto bad = parse({"campaign", file.c_str()});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, EINVAL);
    EXPECT_NE(bad.error().hint.find("multiple of 64 bytes"), std::string::npos) << bad.error().message();
}
