// The stream tool executables as a user runs them, on simulated designs: Ctrl-C (SIGINT)
// stops, drains and prints totals; nothing to test is a failure; usage errors exit 2.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tool_run.hpp"

namespace {

using namespace std::chrono_literals;

using test_support::contains;
using test_support::contains_all;
using test_support::Outcome;  // output: stdout and stderr together
using tool_run::run_tool;
using tool_run::with;

const std::vector<std::string> kSmall{"--stream_mapping_size", "0x100000", "--stream_num_descriptors", "16",
                                      "--report_interval", "0.3", "--transfer_timeout", "2"};

TEST(StreamToolProcess, CtrlCPrintsTotalsAndPasses) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL,
                               with(kSmall, {"--sim_design", "NiteFury_dma_stream_loopback", "--sim_design",
                                             "TEF1001_dma_stream_loopback"}),
                               // Ctrl-C once both pairs have reported a rate: data flowed on each.
                               [](const std::string& out) {
                                   return std::regex_search(out, std::regex("0000:15:00\\.0 0 -> 1 [0-9.]+ Mbytes")) &&
                                          std::regex_search(out, std::regex("0000:2d:00\\.0 1 -> 0 [0-9.]+ Mbytes"));
                               });
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains_all(r.output, {"Press Ctrl-C to stop test\n", "Overall test statistics:\n",
                                        "0000:15:00.0 0 -> 1 Test pattern verified in ",
                                        "0000:2d:00.0 1 -> 0 Test pattern verified in "}));
    // A channel left busy after the stop would be reported and fail the run.
    EXPECT_FALSE(contains(r.output, "still busy")) << r.output;
    EXPECT_TRUE(r.output.ends_with("Overall PASS\n")) << r.output;
}

TEST(StreamToolProcess, NoDevicesIsAFailure) {
    // No --sim_design: the kernel's VFIO devices, of which this test machine has none.
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, kSmall);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "Overall FAIL")) << r.output;
    EXPECT_FALSE(contains(r.output, "PASS")) << r.output;
}

TEST(StreamToolProcess, NoStreamDesignIsAFailure) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, with(kSmall, {"--sim_design", "TEF1001_dma_ddr3"}));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(r.output.ends_with("No stream channels were tested: no loopback route on any selected stream design\n"
                                   "Overall FAIL\n"))
        << r.output;
}

TEST(StreamToolProcess, UsageErrorsExit2) {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--bogus"},
             {"--stream_num_descriptors", "0"},
             {"--stream_num_descriptors", "1024"},
             {"--stream_mapping_size", "0x1001"},
             {"--stream_device", "0000:15:00.0"},
             {"--duration", "-1"},
             {"--buffer_allocation", "stack"},
             {"--device_routing", "0000:15:00.0,0-1"},
             {"--sim_design", "No_such_design"}}) {
        const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, args);
        EXPECT_EQ(r.exit_code, 2) << args[0] << "\n" << r.output;
        EXPECT_TRUE(contains(r.output, "Error: ")) << r.output;
    }
}

TEST(StreamToolProcess, IndependentStreamsVerifyEveryC2hChannel) {
    const Outcome r = run_tool(INDEPENDENT_STREAMS_TOOL,
                               with(kSmall, {"--sim_design", "TOSING_160T_dma_stream_loopback", "--duration", "1"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains_all(r.output, {"Selecting test of TOSING_160T_dma_stream_loopback design PCI device "
                                        "0000:15:00.0 IOMMU group 41 C2H channel 1\n",
                                        "\n  0000:15:00.0 H2C channel 0 ", " transfers over ",
                                        "0000:15:00.0 C2H channel 0 Test pattern verified in ",
                                        "0000:15:00.0 C2H channel 1 Test pattern verified in "}));
    EXPECT_TRUE(r.output.ends_with("Overall PASS\n")) << r.output;
}

TEST(StreamToolProcess, JsonResult) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, with(kSmall, {"--sim_design", "NiteFury_dma_stream_loopback",
                                                                    "--duration", "0.5", "--json"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains_all(r.output, {"{\"type\":\"total\",\"label\":\"0000:15:00.0 0 -> 1\"",
                                        "{\"type\":\"result\",\"overall\":\"PASS\",\"bytes_verified\":"}));
    EXPECT_FALSE(contains(r.output, "\"bytes_verified\":0,\"stopped_by_user\"")) << r.output;
    EXPECT_TRUE(contains(r.output, ",\"stopped_by_user\":false,\"rows\":2,\"host_cores\":")) << r.output;
    EXPECT_TRUE(r.output.ends_with("}\n")) << r.output;
}

TEST(StreamToolProcess, DeviceRoutingChoosesThePairs) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL,
                               with(kSmall, {"--sim_design", "TOSING_160T_dma_stream_loopback", "--device_routing",
                                             "0000:15:00.0,0:0,1:1", "--duration", "0.5"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains_all(r.output, {"Device 0000:15:00.0 design TOSING_160T_dma_stream_loopback routes updated\n",
                                        "0000:15:00.0 0 -> 0 Test pattern verified in ",
                                        "0000:15:00.0 1 -> 1 Test pattern verified in "}));
}

TEST(TestDmaBridgeProcess, MemoryAndStreamDesignsPass) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--sim_design", "NiteFury_dma_stream_loopback",
                                "--min_words", "0x100000", "--max_buffer_size", "0x80000", "--transfer_length", "0x60000",
                                "--stream_mapping_size", "0x100000"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* part : {"Testing using 4 buffers of size 0x80000 bytes, H2C channel 0 C2H channel 0\n"
                             "populate test pattern timing for 2 transfers of 2097152 bytes:\n   Min",  // a rate, or too short for one
                             "host-to-card and card-to-host DMA timing for 2 transfers of 2097152 bytes:\n",
                             "H2C channel 0 transfer length 0x60000 bytes with 6 descriptors\n",
                             "card-to-host DMA timing for 4 transfers of 524288 bytes:\n",
                             "Testing address aliasing of card memory size 0x200000 at 19 power-of-two offsets",
                             "Testing streams using H2C 64 buffers of size 0x4000 bytes, C2H 64 buffers of size 0x4000 bytes, "
                             "H2C channel 1 C2H channel 0\n",
                             "Test pattern verified in 1048576 words\nTEST PASS\n",
                             "Verified totals:\n0000:15:00.0 XCKU5P_DUAL_QSFP_dma_ram memory_boundaries H2C channel 0 "
                             "C2H channel 0: 3010497 bytes verified\n",
                             "0000:15:00.0 XCKU5P_DUAL_QSFP_dma_ram memory_fixed_buffers H2C channel 0 "
                             "C2H channel 0: 4194304 bytes verified\n",
                             "0000:15:00.0 XCKU5P_DUAL_QSFP_dma_ram memory_addressing H2C channel 0 C2H channel 0: 152 "
                             "bytes verified\n",
                             "0000:2d:00.0 NiteFury_dma_stream_loopback stream_fixed_buffers H2C channel 1 C2H channel 0: "
                             "4194304 bytes verified\n"})
        EXPECT_TRUE(contains(r.output, part)) << part << "\n" << r.output;
    EXPECT_TRUE(r.output.ends_with(" tests, 0 failed\n\nOverall PASS\n")) << r.output;
}

// Issue 8: a stream design without a loopback route printed Overall PASS, exit 0, with zero bytes.
TEST(TestDmaBridgeProcess, StreamDesignWithoutLoopbackFails) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, {"--sim_design", "VMK180_100G_ether", "--min_words", "0x10000",
                                                      "--stream_mapping_size", "0x40000", "--transfer_timeout", "2"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "VMK180_100G_ether stream_fixed_buffers,stream_fixed_buffers_c2h_continuous,"
                                   "stream_variable_transfers: FAIL: no loopback route from an H2C to a C2H channel"))
        << r.output;
    EXPECT_TRUE(r.output.ends_with("0 bytes verified in 1 tests, 1 failed\n\nOverall FAIL\n")) << r.output;
    EXPECT_FALSE(contains(r.output, "PASS")) << r.output;
}

// The two designs of issue 8's report: PASS only with bytes verified, else exit 1 with the reason.
TEST(TestDmaBridgeProcess, IssueEightDesignsNeverPassEmpty) {
    for (const char* design : {"TEF1001_dma_stream_crc64", "NiteFury_dma_stream_fixed_data"}) {
        const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, {"--sim_design", design, "--min_words", "0x10000",
                                                          "--stream_mapping_size", "0x40000", "--transfer_timeout", "2"});
        std::smatch totals;
        ASSERT_TRUE(std::regex_search(r.output, totals, std::regex("\n([0-9]+) bytes verified in ([0-9]+) tests, ([0-9]+) "
                                                                   "failed\n\nOverall (PASS|FAIL)\n$")))
            << r.output;
        if (totals[4] == "PASS") {
            EXPECT_EQ(r.exit_code, 0) << r.output;
            EXPECT_NE(totals[1], "0") << r.output;
            EXPECT_EQ(totals[3], "0") << r.output;
        } else {
            EXPECT_EQ(r.exit_code, 1) << r.output;
            EXPECT_TRUE(contains(r.output, std::string(design) + " stream_")) << r.output;
            EXPECT_TRUE(contains(r.output, ": FAIL: ")) << r.output;
        }
    }
}

TEST(TestDmaBridgeProcess, JsonTotalsPerChannel) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--min_words", "0x10000", "--max_buffer_size",
                                "0x80000", "--enabled_tests", "memory_fixed_buffers", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "{\"type\":\"total\",\"device\":\"0000:15:00.0\",\"design\":\"XCKU5P_DUAL_QSFP_dma_ram\","
                                   "\"test\":\"memory_fixed_buffers\",\"h2c_channel\":0,\"c2h_channel\":0,"
                                   "\"engine_mode\":\"credits\",\"completion\":\"poll_writeback\","
                                   "\"bytes_verified\":2097152,\"result\":\"PASS\"}\n"))
        << r.output;
    EXPECT_TRUE(r.output.ends_with("{\"type\":\"result\",\"overall\":\"PASS\",\"bytes_verified\":2097152,\"tests\":1,"
                                   "\"failed\":0}\n"))
        << r.output;
}

// With --json, stdout holds JSON Lines only (the text lines, "Opening device" too, go to stderr).
TEST(TestDmaBridgeProcess, JsonStdoutIsOnlyJson) {
    for (const char* tool : {TEST_DMA_BRIDGE_TOOL, DESCRIPTOR_CREDITS_TOOL}) {
        std::vector<std::string> args{"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--json"};
        if (tool == std::string(TEST_DMA_BRIDGE_TOOL))
            args.insert(args.end(), {"--min_words", "0x10000", "--enabled_tests", "memory_addressing"});
        const Outcome r = run_tool(tool, args, {}, true);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        std::istringstream lines(r.output);
        size_t count = 0;
        for (std::string line; std::getline(lines, line); ++count)
            EXPECT_TRUE(line.starts_with("{\"type\":\"") && line.ends_with("}")) << tool << ": " << line;
        EXPECT_EQ(count, 2u) << r.output;
    }
}

TEST(TestDmaBridgeProcess, JsonNothingTested) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, {"--sim_design", "VMK180_100G_ether", "--json",
                                                      "--stream_mapping_size", "0x40000"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "\"bytes_verified\":0,\"result\":\"FAIL\",\"reason\":\"no loopback route")) << r.output;
    EXPECT_TRUE(r.output.ends_with("{\"type\":\"result\",\"overall\":\"FAIL\",\"bytes_verified\":0,\"tests\":1,"
                                   "\"failed\":1}\n"))
        << r.output;
}

// test_dma_bridge's --host_memory_limit: memory_process_test.cpp.

TEST(StreamToolProcess, HostMemoryLimitRefusesBeforeStarting) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, {"--sim_design", "NiteFury_dma_stream_loopback",
                                                       "--host_memory_limit", "0x10000000", "--duration", "0.5"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "Not started: 4 channels x 0x40000000 bytes of host buffers need 0x100000000 bytes, "
                                   "more than --host_memory_limit 0x10000000: lower --stream_mapping_size or raise "
                                   "--host_memory_limit\nOverall FAIL\n"))
        << r.output;
    EXPECT_FALSE(contains(r.output, "Press Ctrl-C")) << r.output;
}

// fpga_sio's <h2c>,<c2h> pairs: the C2H half is used, not dropped.
TEST(TestDmaBridgeProcess, H2cC2hPairs) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--sim_design", "NiteFury_dma_stream_loopback",
                                "--min_words", "0x10000", "--enabled_tests", "memory_variable_transfers,stream_fixed_buffers",
                                "--transfer_length", "0x60000,0x20000", "--stream_mapping_size", "0x100000,0x40000",
                                "--stream_num_descriptors", "16,32"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains_all(r.output, {"H2C channel 0 transfer length 0x60000 bytes with ",
                                        "C2H channel 0 transfer length 0x20000 bytes with ",
                                        "Testing streams using H2C 16 buffers of size 0x10000 bytes, C2H 32 buffers of size "
                                        "0x2000 bytes, H2C channel 0 C2H channel 1\n"}));
    EXPECT_TRUE(r.output.ends_with(" tests, 0 failed\n\nOverall PASS\n")) << r.output;
}

// test_dma_bridge's stream sub-tests `tests` on NiteFury's loopback routes, with <h2c>,<c2h> pairs of
// mapping sizes, descriptor counts and transfer lengths.
Outcome run_stream_subtests(const char* tests, const char* mapping_sizes, const char* descriptors,
                            const char* transfer_lengths) {
    return run_tool(TEST_DMA_BRIDGE_TOOL, {"--sim_design", "NiteFury_dma_stream_loopback", "--enabled_tests", tests,
                                           "--min_words", "0x10000", "--stream_mapping_size", mapping_sizes,
                                           "--stream_num_descriptors", descriptors, "--transfer_length",
                                           transfer_lengths});
}

// fpga_sio's two other stream sub-tests, each on every loopback route.
TEST(TestDmaBridgeProcess, StreamSubtests) {
    const Outcome r = run_stream_subtests("stream_fixed_buffers_c2h_continuous,stream_variable_transfers",
                                          "0x40000,0x20000", "16,32", "0x5000,0x1800");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains_all(r.output, {"\nTesting streams using H2C 16 buffers of size 0x4000 bytes, C2H 32 buffers of size "
                                        "0x1000 bytes in continuous mode, H2C channel 0 C2H channel 1\n",
                                        "\nTesting streams with variable size buffers:\n"
                                        "  H2C mapping size 0x20000 max transfer length 0x5000 channel ID 1\n"
                                        "  C2H mapping size 0x20000 max transfer length 0x1800 channel ID 0\n",
                                        "stream_fixed_buffers_c2h_continuous H2C channel 1 C2H channel 0: 262144 bytes "
                                        "verified\n",
                                        "stream_variable_transfers H2C channel 0 C2H channel 1: 262144 bytes verified\n"}));
    EXPECT_TRUE(r.output.ends_with("1048576 bytes verified in 4 tests, 0 failed\n\nOverall PASS\n")) << r.output;
}

// C2H buffers and receives are whole stream beats (--stream_axi_width_bytes, 16 by default).
TEST(TestDmaBridgeProcess, StreamAxiWidth) {
    const Outcome r = run_stream_subtests("stream_fixed_buffers,stream_variable_transfers", "0x40000,0x3e80", "16,16",
                                          "0x5000,0x1804");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains_all(r.output, {"Testing streams using H2C 16 buffers of size 0x4000 bytes, C2H 16 buffers of size "
                                        "0x3e0 bytes, H2C channel 0 C2H channel 1\n",
                                        " max transfer length 0x3e80 channel ID 0\n",
                                        " max transfer length 0x1800 channel ID 1\n"}));
    const Outcome bad = run_tool(TEST_DMA_BRIDGE_TOOL, {"--stream_axi_width_bytes", "6"});
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(contains(bad.output, "must be a multiple of 4")) << bad.output;
}

TEST(TestDmaBridgeProcess, DeviceRoutingAndA32) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "TOSING_160T_dma_stream_loopback", "--device_routing", "0000:15:00.0,0:0,1:1",
                                "--a32", "--min_words", "0x10000", "--stream_mapping_size", "0x40000", "--verify_threads", "1",
                                "--enabled_tests", "stream_fixed_buffers"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "stream_fixed_buffers H2C channel 0 C2H channel 0: 262144 bytes verified\n")) << r.output;
    EXPECT_TRUE(contains(r.output, "stream_fixed_buffers H2C channel 1 C2H channel 1: 262144 bytes verified\n")) << r.output;
}

// One --transfer_timeout default in every DMA tool.
TEST(ToolOptions, OneTransferTimeoutDefault) {
    for (const char* tool : {TEST_DMA_BRIDGE_TOOL, PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL, DESCRIPTOR_CREDITS_TOOL}) {
        const Outcome r = run_tool(tool, {"--help"});
        EXPECT_EQ(r.exit_code, 0) << tool;
        std::string help;  // boost wraps the descriptions: whitespace runs as one space
        for (const char c : r.output)
            if (!std::isspace(static_cast<unsigned char>(c)) || (!help.empty() && help.back() != ' '))
                help += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
        EXPECT_TRUE(contains(help, "seconds without a completion that fail the run (default 60)")) << tool << help;
    }
}

// Into a pipe, each line is there as soon as it is printed, not when the tool exits.
TEST(ToolOutput, LinesReachAPipeWhileTheToolRuns) {
    test_support::RunOptions options;
    options.stderr_to = test_support::Stderr::inherit;
    options.stop_once = [](const std::string& seen) { return contains(seen, "Testing using "); };
    const Outcome r = test_support::run_process(TEST_DMA_BRIDGE_TOOL,
                                                {"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--min_words", "0x100000000",
                                                 "--enabled_tests", "memory_fixed_buffers"},
                                                options);
    const std::string& seen = r.output;
    EXPECT_TRUE(r.running_when_stopped) << "the tool had already exited: its lines came at exit\n" << seen;
    EXPECT_TRUE(contains(seen, "Testing using 1 buffers of size 0x200000 bytes, H2C channel 0 C2H channel 0\n")) << seen;
}

// The stock Lite/NiteFury image: its memory size comes from the board ID GPIO (LITE: 512 MiB).
TEST(TestDmaBridgeProcess, LitefuryProject0IsTestedWithItsMemorySize) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "Litefury_Project-0", "--enabled_tests", "memory_fixed_buffers",
                                "--min_words", "0x100000", "--max_buffer_size", "0x80000",
                                "--dma_bridge_memory_size_bytes", "0x200000"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "Testing Litefury Project-0 design version 0x3 with memory base address 0x0 size 0x200000\n"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "TEST PASS\n")) << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 Litefury_Project-0 memory_fixed_buffers H2C channel 0 C2H channel 0: "
                                   "4194304 bytes verified\n"))
        << r.output;
    EXPECT_TRUE(r.output.ends_with("Overall PASS\n")) << r.output;
}

TEST(TestDmaBridgeProcess, NothingTestedAndUsageErrors) {
    Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, {"--sim_design", "TEF1001_ddr3_throughput"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(r.output.ends_with("No design with a DMA bridge was tested\nOverall FAIL\n")) << r.output;
    r = run_tool(TEST_DMA_BRIDGE_TOOL, {"--enabled_tests", "memory_fixed_buffers,bogus"});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const auto& args : std::vector<std::vector<std::string>>{{"--stream_num_descriptors", "16,0"},
                                                                  {"--stream_mapping_size", "0x1000,0x1002"},
                                                                  {"--transfer_length", "0x1000,"},
                                                                  {"--host_memory_limit", "100"},
                                                                  {"--device_routing", "0000:15:00.0,0-1"}}) {
        r = run_tool(TEST_DMA_BRIDGE_TOOL, args);
        EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << "\n" << r.output;
        EXPECT_TRUE(contains(r.output, "Error: parse option --" + args[0].substr(2))) << r.output;
    }
}

TEST(DescriptorCreditsProcess, MemoryAndStreamDesignsPass) {
    const Outcome r = run_tool(DESCRIPTOR_CREDITS_TOOL, {"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--sim_design",
                                                         "NiteFury_dma_stream_loopback", "-s", "0000:2d:00.0,1:0"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "Testing 2097152 bytes of card memory, using rings with 1023 descriptors, and a total "
                                   "of 512 descriptors\nTest: PASS\n"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Successfully sent 3069 messages from Ch0->1 with a total of 7847433 32-bit words in "))
        << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 XCKU5P_DUAL_QSFP_dma_ram descriptor_credits H2C channel 0 C2H channel 0: "
                                   "2097152 bytes verified\n"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "0000:2d:00.0 NiteFury_dma_stream_loopback descriptor_credits H2C channel 0 C2H "
                                   "channel 1: 31389732 bytes verified\n"))
        << r.output;
    EXPECT_TRUE(r.output.ends_with(" bytes verified in 2 tests, 0 failed\n\nOverall PASS\n")) << r.output;
}

TEST(DescriptorCreditsProcess, StreamDesignWithoutLoopbackFails) {
    const Outcome r = run_tool(DESCRIPTOR_CREDITS_TOOL, {"--sim_design", "VMK180_100G_ether", "--transfer_timeout", "2"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "Test: FAIL\n")) << r.output;
    EXPECT_TRUE(contains(r.output, "VMK180_100G_ether descriptor_credits: FAIL: no loopback route")) << r.output;
    EXPECT_TRUE(r.output.ends_with("0 bytes verified in 1 tests, 1 failed\n\nOverall FAIL\n")) << r.output;
}

TEST(DescriptorCreditsProcess, Json) {
    const Outcome r = run_tool(DESCRIPTOR_CREDITS_TOOL, {"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(r.output.ends_with("{\"type\":\"result\",\"overall\":\"PASS\",\"bytes_verified\":2097152,\"tests\":1,"
                                   "\"failed\":0}\n"))
        << r.output;
}

TEST(DescriptorCreditsProcess, NothingTestedFails) {
    const Outcome r = run_tool(DESCRIPTOR_CREDITS_TOOL, {"--sim_design", "TEF1001_ddr3_throughput"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(r.output.ends_with("No design with a DMA bridge was tested\nOverall FAIL\n")) << r.output;
}

TEST(SwitchRoutingProcess, DefaultRoutingUpdatesSwitches) {
    const Outcome r = run_tool(SWITCH_ROUTING_TOOL, {"--sim_design", "TOSING_160T_dma_stream_loopback", "--sim_design",
                                                     "XCKU5P_DUAL_QSFP_dma_stream_loopback", "--default_routing"});
    // The XCKU5P bitstream of seed 004 has no switch in its fabric: the read-back says so, and
    // since its routes were not set the run fails; "routes updated" only where they were.
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "Device 0000:15:00.0 design TOSING_160T_dma_stream_loopback routes updated\n"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Error: route AXI4-Stream Switch 0000:2d:00.0: Input/output error (routes of design "
                                   "XCKU5P_DUAL_QSFP_dma_stream_loopback read back as all disabled, not master 0 <- "
                                   "slave 1"))
        << r.output;
    EXPECT_FALSE(contains(r.output, "XCKU5P_DUAL_QSFP_dma_stream_loopback routes updated")) << r.output;
    const Outcome only_switch = run_tool(SWITCH_ROUTING_TOOL, {"--sim_design", "TOSING_160T_dma_stream_loopback",
                                                               "--default_routing"});
    EXPECT_EQ(only_switch.exit_code, 0) << only_switch.output;
}

// Stream tools print "routes updated" only where the routes read back as written.
TEST(StreamToolProcess, RoutesUpdatedOnlyWhereTheSwitchTookThem) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, with(kSmall, {"--sim_design", "XCKU5P_DUAL_QSFP_dma_stream_loopback",
                                                                    "--duration", "0.5"}));
    EXPECT_FALSE(contains(r.output, "routes updated")) << r.output;
    EXPECT_TRUE(contains(r.output, "Warning: Device 0000:15:00.0 design XCKU5P_DUAL_QSFP_dma_stream_loopback routes "
                                   "read back as all disabled, not master 0 <- slave 1"))
        << r.output;
}

TEST(SwitchRoutingProcess, OptionRules) {
    Outcome r = run_tool(SWITCH_ROUTING_TOOL, {"--sim_design", "TOSING_160T_dma_stream_loopback"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.output, "Either default_routing or at least one device_routing option must be specified"));
    r = run_tool(SWITCH_ROUTING_TOOL, {"--sim_design", "TOSING_160T_dma_stream_loopback", "--default_routing",
                                       "--device_routing", "0000:15:00.0,0:1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.output, "Use of both default_routing and device_routing options is invalid"));
    r = run_tool(SWITCH_ROUTING_TOOL,
                 {"--sim_design", "TOSING_160T_dma_stream_loopback", "--device_routing", "0000:15:00.0,2:0"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.output, "master port 2 out of range: the switch has 2 master ports")) << r.output;
}

TEST(SwitchRoutingProcess, NothingProcessedIsAFailure) {
    const Outcome r = run_tool(SWITCH_ROUTING_TOOL, {"--sim_design", "TEF1001_dma_ddr3", "--default_routing"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "No devices processed: no design with an AXI4-Stream Switch found")) << r.output;
}

// TEF1001's switch is in the design table but not in the simulated fabric: its routes read back
// as all disabled, which is named, and the tool does not claim that no design has a switch.
TEST(SwitchRoutingProcess, RoutesNotReadBackAreNamed) {
    const Outcome r = run_tool(SWITCH_ROUTING_TOOL, {"--sim_design", "TEF1001_dma_stream_loopback", "--default_routing"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "read back as all disabled")) << r.output;
    EXPECT_TRUE(contains(r.output, "No devices processed: no AXI4-Stream Switch took its routes")) << r.output;
    EXPECT_FALSE(contains(r.output, "routes updated")) << r.output;
}

}  // namespace
