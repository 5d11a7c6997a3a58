// --cuda_lie, the GPU adapter's lying-device test fault (docs/verification.md), as the tools
// parse it (label unit: no GPU needed; the spellings themselves are streams/tests/lie_test.cpp's):
// the run options carry it, and every other value is a usage error
// (exit 2) of test_dma_bridge_parallel_streams, test_dma_bridge_independent_streams and
// pcie_link_measure that names the option. The help says it is a test fault and the run must FAIL.
#include <gtest/gtest.h>

#include <cctype>

#include "adapters/stream_devices.hpp"
#include "tool_run.hpp"

namespace {

using test_support::contains;
using Kind = streams::Lie::Kind;

TEST(CudaLieOption, TheRunOptionsCarryIt) {
    adapters::CudaStreamCli cli;
    cli.lie = "stale_after=7";
    auto o = adapters::cuda_run_options(cli);
    ASSERT_TRUE(o) << o.error().message();
    EXPECT_EQ(o->lie.kind, Kind::StaleAfter);
    EXPECT_EQ(o->lie.stale_after, 7u);
    cli.lie = "bogus";
    auto bad = adapters::cuda_run_options(cli);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message(), "parse option --cuda_lie \"bogus\": Invalid argument (unknown lie (one of "
                                     "moves_nothing, stale_after=N, completes_early))");
}

const tool_run::UsageCases kBadLies = {
    {{"--cuda_lie", "bogus"}, "parse option --cuda_lie"},
    {{"--cuda_lie", "stale_after=many"}, "parse option --cuda_lie"},
    {{"--cuda_lie", "completes_early=1"}, "unknown lie (one of moves_nothing, stale_after=N, completes_early)"},
    {{"--cuda_lie", "stale_after=0x10"}, "stale_after needs a whole number of transfers"},
};

TEST(CudaLieOption, BadValuesAreUsageErrorsOfTheStreamTools) {
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL})
        tool_run::expect_usage_errors(tool, {"--cuda_device", "0", "--cuda_reference_secs", "0"}, kBadLies);
}

TEST(CudaLieOption, BadValuesAreUsageErrorsOfPcieLinkMeasure) {
    for (const char* subcommand : {"latency", "sweep"})
        tool_run::expect_usage_errors(LINK_MEASURE_TOOL, {subcommand, "--endpoint", "cuda"}, kBadLies);
}

// The help as one line: every run of white space one space (the help wraps at its width).
std::string squeezed(const std::string& text) {
    std::string out;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c)))
            out += c;
        else if (!out.empty() && out.back() != ' ')
            out += ' ';
    return out;
}

TEST(CudaLieOption, TheHelpSaysItIsATestFaultThatMustFail) {
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL, LINK_MEASURE_TOOL}) {
        const auto r = tool_run::run_tool(tool, {"--help"});
        EXPECT_EQ(r.exit_code, 0) << tool << ": " << r.output;
        const std::string help = squeezed(r.output);
        EXPECT_TRUE(contains(help, "--cuda_lie arg")) << tool << ": " << help;
        EXPECT_TRUE(contains(help, "GPU test fault (the run must FAIL): moves_nothing, stale_after=N or completes_early"))
            << tool << ": " << help;
    }
}

}  // namespace
