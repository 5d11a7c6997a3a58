// The stream tool executables as a user runs them, on simulated designs: Ctrl-C (SIGINT)
// stops, drains and prints totals; nothing to test is a failure; usage errors exit 2.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace std::chrono_literals;

struct Outcome {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

// Runs the tool; with interrupt_after set, sends SIGINT once that much time has passed.
Outcome run_tool(const char* tool, std::vector<std::string> args, std::optional<std::chrono::milliseconds> interrupt_after = {}) {
    int pipe_fds[2];
    EXPECT_EQ(pipe(pipe_fds), 0);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipe_fds[1], 1);
        dup2(pipe_fds[1], 2);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        std::vector<char*> argv{const_cast<char*>(tool)};
        for (auto& arg : args)
            argv.push_back(arg.data());
        argv.push_back(nullptr);
        execv(tool, argv.data());
        _exit(127);
    }
    close(pipe_fds[1]);
    std::thread interrupter;
    if (interrupt_after)
        interrupter = std::thread([pid, delay = *interrupt_after] {
            std::this_thread::sleep_for(delay);
            kill(pid, SIGINT);
        });
    Outcome outcome;
    char buffer[4096];
    for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
        outcome.output.append(buffer, static_cast<size_t>(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (interrupter.joinable())
        interrupter.join();
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return outcome;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::vector<std::string> kSmall{"--stream_mapping_size", "0x100000", "--stream_num_descriptors", "16",
                                      "--report_interval", "0.3", "--transfer_timeout", "2"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

TEST(StreamToolProcess, CtrlCPrintsTotalsAndPasses) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL,
                               with(kSmall, {"--sim_design", "NiteFury_dma_stream_loopback", "--sim_design",
                                             "TEF1001_dma_stream_loopback"}),
                               1500ms);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "Press Ctrl-C to stop test\n")) << r.output;
    EXPECT_TRUE(contains(r.output, "Overall test statistics:\n")) << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 0 -> 1 Test pattern verified in ")) << r.output;
    EXPECT_TRUE(contains(r.output, "0000:2d:00.0 1 -> 0 Test pattern verified in ")) << r.output;
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
    EXPECT_TRUE(contains(r.output, "Selecting test of TOSING_160T_dma_stream_loopback design PCI device 0000:15:00.0 "
                                   "IOMMU group 41 C2H channel 1\n"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "\n0000:15:00.0 H2C channel 0 ")) << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 C2H channel 0 Test pattern verified in ")) << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 C2H channel 1 Test pattern verified in ")) << r.output;
    EXPECT_TRUE(r.output.ends_with("Overall PASS\n")) << r.output;
}

TEST(StreamToolProcess, JsonResult) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, with(kSmall, {"--sim_design", "NiteFury_dma_stream_loopback",
                                                                    "--duration", "0.5", "--json"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "{\"type\":\"total\",\"label\":\"0000:15:00.0 0 -> 1\"")) << r.output;
    EXPECT_TRUE(r.output.ends_with("{\"type\":\"result\",\"overall\":\"PASS\",\"stopped_by_user\":false,\"rows\":2}\n"))
        << r.output;
}

TEST(StreamToolProcess, DeviceRoutingChoosesThePairs) {
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL,
                               with(kSmall, {"--sim_design", "TOSING_160T_dma_stream_loopback", "--device_routing",
                                             "0000:15:00.0,0:0,1:1", "--duration", "0.5"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "Device 0000:15:00.0 design TOSING_160T_dma_stream_loopback routes updated\n"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 0 -> 0 Test pattern verified in ")) << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 1 -> 1 Test pattern verified in ")) << r.output;
}

TEST(TestDmaBridgeProcess, MemoryAndStreamDesignsPass) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--sim_design", "NiteFury_dma_stream_loopback",
                                "--min_words", "0x100000", "--max_buffer_size", "0x80000", "--transfer_length", "0x60000",
                                "--stream_mapping_size", "0x100000"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* part : {"Testing using 4 buffers of size 0x80000 bytes, H2C channel 0 C2H channel 0\n"
                             "populate test pattern timing for 2 transfers of 2097152 bytes:\nMin = ",
                             "host-to-card and card-to-host DMA timing for 2 transfers of 2097152 bytes:\n",
                             "H2C channel 0 transfer length 0x60000 bytes with 6 descriptors\n",
                             "card-to-host DMA timing for 4 transfers of 524288 bytes:\n",
                             "Testing address aliasing of card memory size 0x200000 at 19 power-of-two offsets",
                             "Testing using 64 buffers of size 0x4000 bytes, H2C channel 1 C2H channel 0\n",
                             "Test pattern verified in 1048576 words\nTEST PASS\n"})
        EXPECT_TRUE(contains(r.output, part)) << part << "\n" << r.output;
    EXPECT_TRUE(r.output.ends_with("TEST PASS\nOverall PASS\n")) << r.output;
}

// The stock Lite/NiteFury image: its memory size comes from the board ID GPIO (LITE: 512 MiB).
TEST(TestDmaBridgeProcess, LitefuryProject0IsTestedWithItsMemorySize) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "Litefury_Project-0", "--enabled_tests", "memory_fixed_buffers",
                                "--min_words", "0x100000", "--max_buffer_size", "0x80000",
                                "--dma_bridge_memory_size_bytes", "0x200000"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "Testing Litefury_Project-0 design version 0x3 with memory size 0x200000\n"))
        << r.output;
    EXPECT_TRUE(r.output.ends_with("TEST PASS\nOverall PASS\n")) << r.output;
}

TEST(TestDmaBridgeProcess, NothingTestedAndUsageErrors) {
    Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, {"--sim_design", "TEF1001_ddr3_throughput"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(r.output.ends_with("No design with a DMA bridge was tested\nOverall FAIL\n")) << r.output;
    r = run_tool(TEST_DMA_BRIDGE_TOOL, {"--enabled_tests", "memory_fixed_buffers,bogus"});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    r = run_tool(TEST_DMA_BRIDGE_TOOL, {"--transfer_length", "0x1000,0x2000"});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "different H2C and C2H transfer lengths are not supported")) << r.output;
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
    EXPECT_TRUE(r.output.ends_with("Test: PASS\nOverall PASS\n")) << r.output;
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
    EXPECT_TRUE(contains(r.output, "No devices processed")) << r.output;
}

}  // namespace
