// --etsoc1_device on the stream tools as a user runs them: on the fake card both tools pass with
// their bytes verified; each fault the fake injects makes the run FAIL (exit 1) naming it (a
// corrupted byte by its stream offset); without a card or the runtime the run says why; bad
// options are usage errors (exit 2).
#include <gtest/gtest.h>

#include "tool_run.hpp"

namespace {

using test_support::contains;
using test_support::contains_all;

const std::vector<std::string> kSmall{"--stream_mapping_size", "0x100000", "--stream_num_descriptors", "4",
                                      "--report_interval", "0.5"};

test_support::Outcome run(const char* tool, const std::vector<std::string>& args) {
    return tool_run::run_tool(tool, tool_run::with(kSmall, args));
}

TEST(Etsoc1ToolProcess, BothStreamToolsPassOnTheFakeCardWithEveryByteVerified) {
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL}) {
        const auto r = run(tool, {"--etsoc1_device", "fake", "--etsoc1_channels", "2", "--duration", "1",
                                  "--etsoc1_fake", "memcpy_gbps=2,dma_gbps=1,link_gbps=2"});
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_TRUE(contains_all(r.output, {"ET-SoC-1 fake 0 (PCI address ffff:00:00.0 made up): staged by a 2 GB/s "
                                            "memcpy, DMA 1 GB/s per channel (4 read + 4 write)",
                                            "Selecting test of ET-SoC-1 fake 0 design", "verified", "Overall PASS"}));
    }
}

TEST(Etsoc1ToolProcess, ACorruptedByteFailsTheRunNamingItsStreamOffset) {
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL}) {
        const auto r = run(tool, {"--etsoc1_device", "fake", "--etsoc1_window", "1", "--duration", "2",
                                  "--etsoc1_fake", "corrupt_h2c_byte=0x52344"});
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_TRUE(contains(r.output, "stream offset 0x52344")) << r.output;
        EXPECT_TRUE(contains(r.output, "Overall FAIL")) << r.output;
        EXPECT_FALSE(contains(r.output, "Overall PASS")) << r.output;
    }
}

TEST(Etsoc1ToolProcess, ACopyErrorAndAHungCopyFailTheRunNamingThem) {
    // Command 2 is always an H2C copy (C2H copies wait for the H2C copies that fill their slots),
    // command 5 either. A failed H2C copy's slot is never read back as data: whichever side the
    // tool reports first names the copy error.
    for (const char* at : {"2", "5"}) {
        const auto error = run(PARALLEL_STREAMS_TOOL, {"--etsoc1_device", "fake", "--duration", "2", "--etsoc1_fake",
                                                       std::string("copy_error_at=") + at});
        EXPECT_EQ(error.exit_code, 1) << error.output;
        EXPECT_TRUE(contains(error.output, std::string("DmaInvalidAddress (injected copy error on command ") + at + ")"))
            << error.output;
        EXPECT_FALSE(contains(error.output, "data error")) << error.output;
        EXPECT_TRUE(contains(error.output, "Overall FAIL")) << error.output;
    }
    const auto hang = run(PARALLEL_STREAMS_TOOL, {"--etsoc1_device", "fake", "--duration", "5", "--transfer_timeout",
                                                  "1", "--etsoc1_fake", "hang_at=3"});
    EXPECT_EQ(hang.exit_code, 1) << hang.output;
    EXPECT_TRUE(contains(hang.output, "timeout: no C2H completion for 1.000 secs")) << hang.output;
    EXPECT_TRUE(contains(hang.output, "Overall FAIL")) << hang.output;
}

TEST(Etsoc1ToolProcess, WithoutACardOrTheRuntimeTheRunFailsSayingWhy) {
    const auto r = run(PARALLEL_STREAMS_TOOL, {"--etsoc1_device", "0", "--duration", "1"});
    if (r.exit_code == 0)
        GTEST_SKIP() << "this machine has an ET-SoC-1 card and the runtime";
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "et-soc1.ko") || contains(r.output, "card busy") ||
                contains(r.output, "this build has no ET-SoC-1 runtime binding"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Overall FAIL")) << r.output;
}

TEST(Etsoc1ToolProcess, BadEtsoc1OptionsAreUsageErrors) {
    tool_run::expect_usage_errors(PARALLEL_STREAMS_TOOL, tool_run::with(kSmall, {"--etsoc1_device", "fake"}), {
        {{"--etsoc1_channels", "5"}, "etsoc1_channels"},
        {{"--etsoc1_window", "0"}, "etsoc1_window"},
        {{"--etsoc1_window", "5"}, "etsoc1_window"},
        {{"--etsoc1_channels", "3", "--etsoc1_window", "2"}, "each of the 3 channels needs a copy in flight"},
        {{"--etsoc1_fake", "speed=3"}, "unknown key"},
        {{"--etsoc1_fake", "dma_gbps=-1"}, "expected a positive number"},
        {{"--sim_design", "NiteFury_dma_stream_loopback"}, "cannot be combined with --sim_design"},
    });
    // F30: an ET-SoC-1 option the named cards do not use is a usage error naming it (never
    // dropped, never a fake in place of the runtime), on both tools.
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL})
        tool_run::expect_usage_errors(tool, kSmall, {
            {{"--etsoc1_socket", "/run/s.sock"}, "option --etsoc1_socket \"/run/s.sock\" is not used"},
            {{"--etsoc1_fake", "dma_gbps=2"}, "option --etsoc1_fake \"dma_gbps=2\" is not used"},
            {{"--etsoc1_window", "2"}, "option --etsoc1_window \"2\" is not used"},
            {{"--etsoc1_channels", "2"}, "option --etsoc1_channels \"2\" is not used"},
            {{"--etsoc1_device", "fake", "--etsoc1_socket", "/run/s.sock"}, "--etsoc1_socket \"/run/s.sock\" is not used"},
            {{"--etsoc1_device", "0", "--etsoc1_fake", "moves_nothing=1"}, "--etsoc1_fake \"moves_nothing=1\" is not used"},
        });
    const auto bad_index = run(PARALLEL_STREAMS_TOOL, {"--etsoc1_device", "first"});
    EXPECT_EQ(bad_index.exit_code, 2) << bad_index.output;
    EXPECT_TRUE(contains(bad_index.output, "etsoc1_device")) << bad_index.output;
}

}  // namespace
