// test_dma_bridge's card-memory tests as a user runs them, on simulated designs with large card
// memory: each sub-test decides before it starts whether its host buffers fit
// --host_memory_limit (those that do not print "Not started" and fail, the others run), and
// memory_fixed_buffers / memory_variable_transfers hold one buffer / window of host memory each
// way, not the whole card: peak RSS follows the card memory written, not twice it more.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support/run_process.hpp"

namespace {

using test_support::contains;
using test_support::Outcome;  // output: stdout and stderr together; peak_rss_kib: the tool's peak resident set

Outcome run_tool(std::vector<std::string> args) { return test_support::run_process(TEST_DMA_BRIDGE_TOOL, args); }

// 8 GiB of simulated card memory and a 16 MiB host limit: the three tests that write the whole
// card are not started, each with its need (host buffers + the simulated card memory it would
// write) and the way out; memory_addressing still runs and verifies its words.
TEST(MemoryHostLimit, EachSubTestDecidesForItself) {
    const Outcome r = run_tool({"--sim_design", "TEF1001_dma_ddr3", "--host_memory_limit", "0x1000000", "--min_words",
                                "0x10000"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const char* part :
         {"Not started: memory_fixed_buffers on TEF1001_dma_ddr3 at 0000:15:00.0 needs 0x210000000 bytes of host "
          "buffers and simulated card memory (0x10000000 + 0x200000000), more than --host_memory_limit 0x1000000: "
          "lower --max_buffer_size, test part of the card memory with --dma_bridge_memory_size_bytes, or raise the "
          "limit\n",
          "Not started: memory_variable_transfers on TEF1001_dma_ddr3 at 0000:15:00.0 needs 0x220000000 bytes of host "
          "buffers and simulated card memory (0x20000000 + 0x200000000), more than --host_memory_limit 0x1000000: "
          "lower --max_buffer_size and --transfer_length, test part of the card memory with "
          "--dma_bridge_memory_size_bytes, or raise the limit\n",
          "Not started: memory_host_chunks on TEF1001_dma_ddr3 at 0000:15:00.0 needs 0x300000000 bytes of host "
          "buffers and simulated card memory (0x100000000 + 0x200000000), more than --host_memory_limit 0x1000000: "
          "raise --host_buffer_divisor, test part of the card memory with --dma_bridge_memory_size_bytes, or raise "
          "the limit\n",
          "Testing address aliasing of card memory size 0x200000000 at 31 power-of-two offsets",
          "0000:15:00.0 TEF1001_dma_ddr3 memory_addressing H2C channel 0 C2H channel 0: 248 bytes verified\n",
          "Overall FAIL\n"})
        EXPECT_TRUE(contains(r.output, part)) << part << "\n" << r.output;
    EXPECT_FALSE(contains(r.output, "Testing using")) << r.output;
}

// 64 GiB of simulated card memory under a 16 GiB limit (the default, half of the machine's memory,
// on a 32 GiB machine): the card-wide tests are refused before they start rather than filling
// host memory with simulated card pages.
TEST(MemoryHostLimit, A64GiBSimulatedCardIsRefusedNotWritten) {
    const Outcome r = run_tool({"--sim_design", "U200_dma_ddr4", "--min_words", "0x10000", "--host_memory_limit",
                                "0x400000000"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "Not started: memory_fixed_buffers on U200_dma_ddr4 at 0000:15:00.0 needs "
                                   "0x1010000000 bytes of host buffers and simulated card memory (0x10000000 + "
                                   "0x1000000000), more than --host_memory_limit 0x400000000: "))
        << r.output;
    EXPECT_TRUE(contains(r.output, "U200_dma_ddr4 memory_addressing H2C channel 0 C2H channel 0: 272 bytes verified\n"))
        << r.output;
    EXPECT_LT(r.peak_rss_kib, 64 * 1024 + test_support::kSanitizerRssAllowanceKib) << r.output;
}

// 64 MiB of the card with 4 MiB buffers and 3 MiB / 2 MiB transfers under a 96 MiB host limit
// (64 MiB of it the simulated card memory; the whole-card buffers of before needed 128 MiB more):
// every test passes, and the tool's peak RSS stays below the card memory written plus 48 MiB.
TEST(MemoryHostLimit, WindowedBuffersTestTheCardWithinTheLimit) {
    const Outcome r = run_tool({"--sim_design", "TEF1001_dma_ddr3", "--dma_bridge_memory_size_bytes", "0x4000000",
                                "--host_memory_limit", "0x6000000", "--max_buffer_size", "0x400000",
                                "--transfer_length", "0x300000,0x200000", "--host_buffer_divisor", "16",
                                "--min_words", "0x2000000", "--max_channel_combinations", "1"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* part :
         {"Testing using 16 buffers of size 0x400000 bytes, H2C channel 0 C2H channel 0\n"
          "populate test pattern timing for 2 transfers of 67108864 bytes:\n",
          "memory_fixed_buffers H2C channel 0 C2H channel 0: 134217728 bytes verified\n",
          "memory_variable_transfers H2C channel 0 C2H channel 0: 134217728 bytes verified\n",
          "memory_host_chunks H2C channel 0 C2H channel 0: 67108864 bytes verified\n", "Overall PASS\n"})
        EXPECT_TRUE(contains(r.output, part)) << part << "\n" << r.output;
    EXPECT_FALSE(contains(r.output, "Not started")) << r.output;
    EXPECT_LT(r.peak_rss_kib, (64 + 48) * 1024 + test_support::kSanitizerRssAllowanceKib) << "peak RSS " << r.peak_rss_kib << " KiB\n" << r.output;
}

// A window past the end of the card memory: the first buffer round-trips, the second's write
// gets a decode error, and the failure names the H2C engine that reported it.
TEST(MemoryHostLimit, ASecondBufferPastTheCardMemoryFailsNamingTheEngine) {
    const Outcome r = run_tool({"--sim_design", "TEF1001_dma_ddr3", "--dma_bridge_memory_base_address", "0x1ffc00000",
                                "--dma_bridge_memory_size_bytes", "0x800000", "--max_buffer_size", "0x400000",
                                "--enabled_tests", "memory_fixed_buffers", "--min_words", "0x10000",
                                "--max_channel_combinations", "1"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "Testing using 2 buffers of size 0x400000 bytes")) << r.output;
    EXPECT_TRUE(contains(r.output, "TEST FAIL:\n  H2C failure : H2C 0 transfer 0000:15:00.0: Input/output error (write "
                                   "error reported in descriptor write back"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Overall FAIL\n")) << r.output;
}

}  // namespace
