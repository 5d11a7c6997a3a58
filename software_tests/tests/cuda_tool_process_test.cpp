// --cuda_device on the stream tools as a user runs them. Without a usable GPU (or in a build
// without CUDA) the run is a FAIL that says why; with one, a short run passes with its bytes
// verified. Bad GPU options are usage errors (exit 2) either way.
#include <gtest/gtest.h>

#include "tool_run.hpp"

namespace {

using test_support::contains;
using tool_run::run_tool;

TEST(CudaToolProcess, AGpuRunPassesWithBytesVerifiedOrFailsSayingWhyThereIsNone) {
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL}) {
        const auto r = run_tool(tool, {"--cuda_device", "0", "--duration", "1", "--cuda_reference_secs", "0.2",
                                       "--stream_mapping_size", "0x800000", "--stream_num_descriptors", "4"});
        if (r.exit_code == 0) {  // a machine with an NVIDIA GPU
            EXPECT_TRUE(contains(r.output, "Bare cudaMemcpyAsync reference on ")) << r.output;
            EXPECT_TRUE(contains(r.output, "verified")) << r.output;
            EXPECT_TRUE(contains(r.output, "Overall PASS")) << r.output;
            continue;
        }
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_TRUE(contains(r.output, "Overall FAIL")) << r.output;
        EXPECT_TRUE(contains(r.output, "no usable NVIDIA GPU") || contains(r.output, "no NVIDIA GPU found") ||
                    contains(r.output, "this build has no CUDA adapter"))
            << r.output;
        EXPECT_FALSE(contains(r.output, "Overall PASS")) << r.output;
    }
}

TEST(CudaToolProcess, BadGpuOptionsAreUsageErrors) {
    tool_run::expect_usage_errors(PARALLEL_STREAMS_TOOL, {"--cuda_device", "0"}, {
        {{"--cuda_corrupt", "x2c,1"}, "expected h2c|c2h,<stream byte offset>"},
        {{"--cuda_corrupt", "h2c,lots"}, "cuda_corrupt"},
        {{"--cuda_channels", "0"}, "cuda_channels"},
        {{"--cuda_channels", "17"}, "cuda_channels"},
        {{"--cuda_host_memory", "managed"}, "expected pinned or pageable"},
        {{"--cuda_reference_secs", "-1"}, "cuda_reference_secs"},
        {{"--sim_design", "NiteFury_dma_stream_loopback"}, "cannot be combined with --sim_design"},
    });
}

}  // namespace
