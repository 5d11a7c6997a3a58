// The DMA tools on QDMA designs (PG302) as a user runs them: test_dma_bridge's memory tests on MM
// queue pairs, the stream tools and stream_fixed_buffers on the stream queues of the example
// loopback design (docs/examples/qdma_stream_loopback.json), and each way such a run fails:
// the failure named, exit 1, never a PASS.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tool_run.hpp"

namespace {

using test_support::contains;
using test_support::Outcome;
using tool_run::run_tool;
using tool_run::with;

const std::string kExample = std::string(PDT_SOURCE_DIR) + "/docs/examples/qdma_stream_loopback.json";
const std::string kConfigurations = std::string(PDT_SOURCE_DIR) + "/software_tests/tests/designs/qdma_tool_configurations.json";

const std::vector<std::string> kMemory{"--sim_design", "U200_qdma_ram", "--transfer_timeout", "1", "--min_words",
                                       "0x10000", "--max_buffer_size", "0x40000", "--transfer_length", "0x30000",
                                       "--dma_bridge_memory_size_bytes", "0x100000"};
const std::vector<std::string> kStreamSizes{"--transfer_timeout", "1", "--stream_mapping_size", "0x40000",
                                            "--stream_num_descriptors", "16"};

std::vector<std::string> example(const std::vector<std::string>& more) {
    return with({"--design_file", kExample, "--sim_design", "qdma_stream_loopback_example"}, more);
}

void expect_fail(const Outcome& r, const std::string& reason) {
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, reason)) << reason << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "Overall FAIL")) << r.output;
    EXPECT_FALSE(contains(r.output, "Overall PASS")) << r.output;
}

TEST(QdmaTools, MemoryTestsRunOnAnMmQueuePairNamedAsQueues) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, kMemory);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* part : {"Testing U200_qdma_ram design with memory base address 0x0 size 0x100000\n",
                             "QDMA MM queues: descriptor rings of 65 entries",
                             "Testing using 4 buffers of size 0x40000 bytes, H2C queue 0 C2H queue 0\n",
                             "H2C queue 0 transfer length 0x30000 bytes with ",
                             "U200_qdma_ram memory_fixed_buffers H2C queue 0 C2H queue 0: 1048576 bytes verified\n",
                             "U200_qdma_ram memory_addressing H2C queue 0 C2H queue 0: ", "Overall PASS\n"})
        EXPECT_TRUE(contains(r.output, part)) << part << "\n" << r.output;
}

TEST(QdmaTools, TwoQueuePairsEachVerified) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, with(kMemory, {"--qdma_queues", "2", "--enabled_tests",
                                                                    "memory_fixed_buffers"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "memory_fixed_buffers H2C queue 1 C2H queue 1: 1048576 bytes verified")) << r.output;
}

TEST(QdmaTools, InterruptCompletionIsNamedAndVerifies) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, with(kMemory, {"--qdma_interrupts", "--enabled_tests",
                                                                    "memory_fixed_buffers"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "completion by MSI-X through interrupt aggregation ring 0 (status descriptor "
                                   "writeback)"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "memory_fixed_buffers H2C queue 0 C2H queue 0: 1048576 bytes verified")) << r.output;
}

TEST(QdmaTools, BadQdmaOptionsAreUsageErrors) {
    tool_run::expect_usage_errors(TEST_DMA_BRIDGE_TOOL, kMemory,
                                  {{{"--qdma_queues", "0"}, "qdma_queues"},
                                   {{"--qdma_queues", "17"}, "qdma_queues"},
                                   {{"--qdma_ring_entries", "many"}, "qdma_ring_entries"}});
    tool_run::expect_usage_errors(PARALLEL_STREAMS_TOOL, example(kStreamSizes),
                                  {{{"--qdma_ring_entries", "0x10001"}, "qdma_ring_entries"}});
}

// test_dma_bridge's memory test `enabled_test` on the MM queues with `fault` injected (PDT_SIM_FAULT).
Outcome memory_test_with_fault(const std::string& enabled_test, const std::string& fault) {
    test_support::RunOptions options;
    options.environment.push_back("PDT_SIM_FAULT=" + fault);
    return test_support::run_process(TEST_DMA_BRIDGE_TOOL, with(kMemory, {"--enabled_tests", enabled_test}), options);
}

TEST(QdmaTools, ADescriptorErrorFailsNamingTheQueue) {
    expect_fail(memory_test_with_fault("memory_fixed_buffers", "qdma_descriptor_error@C2H0"),
                "C2H failure : complete descriptors on 0000:15:00.0 QDMA function 0 C2H MM queue 0: Input/output "
                "error (the status descriptor reports err 2 (descriptor fetch error)");
}

TEST(QdmaTools, AStalledQueueTimesOutWithItsState) {
    expect_fail(memory_test_with_fault("memory_addressing", "qdma_queue_stall"),
                "H2C failure : memory-mapped DMA 0000:15:00.0 QDMA function 0 H2C MM queue 0: Connection timed out "
                "(no descriptor completed within the transfer timeout of 1000 ms: pidx ");
}

TEST(QdmaTools, XdmaEngineModesAreRefused) {
    expect_fail(run_tool(TEST_DMA_BRIDGE_TOOL, with(kMemory, {"--engine_mode", "credits"})),
                "--engine_mode and --completion choose XDMA engine modes; QDMA queues complete by their status "
                "descriptor writeback, polled");
}

TEST(QdmaTools, ARingSizeTheIpLacksIsNamed) {
    expect_fail(run_tool(TEST_DMA_BRIDGE_TOOL, with(kMemory, {"--qdma_ring_entries", "100", "--enabled_tests",
                                                              "memory_addressing"})),
                "H2C failure : ");
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, with(kMemory, {"--qdma_ring_entries", "100"}));
    EXPECT_TRUE(contains(r.output, "QDMA_GLBL_RNG_SZ")) << r.output;
}

TEST(QdmaTools, MemoryWithoutMmEnginesIsNamed) {
    expect_fail(run_tool(TEST_DMA_BRIDGE_TOOL, {"--design_file", kConfigurations, "--sim_design",
                                                "qdmacfg_memory_without_mm_engines", "--min_words", "0x1000",
                                                "--enabled_tests", "memory_addressing"}),
                "0 H2C_ENG and 0 C2H_ENG: no memory-mapped queue pair");
}

TEST(QdmaTools, OpenNicHasNothingToTest) {
    expect_fail(run_tool(TEST_DMA_BRIDGE_TOOL, {"--sim_design", "open-nic"}), "No design with a DMA bridge was tested");
    expect_fail(run_tool(PARALLEL_STREAMS_TOOL, with({"--sim_design", "open-nic", "--duration", "0.2"}, kStreamSizes)),
                "No stream channels were tested: no loopback route on any selected stream design");
}

TEST(QdmaTools, StreamToolsVerifyTheExampleLoopback) {
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL}) {
        const Outcome r = run_tool(tool, example(with(kStreamSizes, {"--duration", "0.3", "--report_interval", "0.15"})));
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_TRUE(contains(r.output, "QDMA stream queues: H2C queue 0 -> C2H queue 0 H2C queue 1 -> C2H queue 1"))
            << r.output;
        EXPECT_TRUE(contains(r.output, "Test pattern verified in ")) << r.output;
        EXPECT_TRUE(contains(r.output, "Overall PASS")) << r.output;
    }
    // The lines name queues, not channels.
    const Outcome parallel = run_tool(PARALLEL_STREAMS_TOOL, example(with(kStreamSizes, {"--duration", "0.2"})));
    EXPECT_TRUE(contains(parallel.output, "qdma_stream_loopback_example design PCI device 0000:15:00.0 IOMMU group 41 "
                                          "H2C queue 1 C2H queue 1\n"))
        << parallel.output;
    const Outcome independent = run_tool(INDEPENDENT_STREAMS_TOOL, example(with(kStreamSizes, {"--duration", "0.2"})));
    EXPECT_TRUE(contains(independent.output, "0000:15:00.0 C2H queue 1 Test pattern verified in ")) << independent.output;
}

TEST(QdmaTools, StreamRingEntriesAreTheOnesAsked) {
    const auto args = example(with(kStreamSizes, {"--duration", "0.2", "--qdma_ring_entries"}));
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, with(args, {"33"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "descriptor rings of 33 entries, completion polled")) << r.output;
    expect_fail(run_tool(PARALLEL_STREAMS_TOOL, with(args, {"100"})),
                "100 entries is none of QDMA_GLBL_RNG_SZ_1..16");
}

TEST(QdmaTools, StreamFixedBuffersOnEachRoute) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, example(with(kStreamSizes, {"--min_words", "0x10000"})));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* part : {"Testing streams using H2C 16 buffers of size 0x4000 bytes, C2H 16 buffers of size 0x4000 bytes, H2C queue 1 C2H queue 1\n",
                             "stream_fixed_buffers H2C queue 0 C2H queue 0: 262144 bytes verified\n",
                             "stream_fixed_buffers H2C queue 1 C2H queue 1: 262144 bytes verified\n"})
        EXPECT_TRUE(contains(r.output, part)) << part << "\n" << r.output;
}

TEST(QdmaTools, StreamBuffersPastAnH2cDescriptorAreNamed) {
    expect_fail(run_tool(TEST_DMA_BRIDGE_TOOL, example({"--min_words", "0x1000", "--transfer_timeout", "1"})),
                "buffers of 0x1000000 bytes: an H2C stream descriptor's len holds 64K-1");
}

TEST(QdmaTools, XdmaOnlyStreamSubtestsAreNotRunOnQueues) {
    expect_fail(run_tool(TEST_DMA_BRIDGE_TOOL, example(with(kStreamSizes, {"--enabled_tests",
                                                                           "stream_variable_transfers"}))),
                "Not testing stream_variable_transfers on qdma_stream_loopback_example design PCI device "
                "0000:15:00.0: it drives XDMA engines");
}

TEST(QdmaTools, RoutesOnAnIpWithoutStreamEnginesAreNamed) {
    const std::vector<std::string> design{"--design_file", kConfigurations, "--sim_design",
                                          "qdmacfg_routes_without_st_engines"};
    expect_fail(run_tool(PARALLEL_STREAMS_TOOL, with(design, with(kStreamSizes, {"--duration", "0.2"}))), "H2C_ST 0");
    expect_fail(run_tool(TEST_DMA_BRIDGE_TOOL, with(design, with(kStreamSizes, {"--min_words", "0x1000"}))),
                "H2C failure : ");
}

}  // namespace
