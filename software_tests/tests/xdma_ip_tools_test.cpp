// The DMA tools as a user runs them, on simulated designs whose XDMA IP is customised unlike
// fpga_sio's (software_tests/tests/designs/xdma_ip_configurations.json): no descriptor credits,
// no poll-mode writeback, a 32 KiB DMA BAR, interrupts, Status.busy held after a stop. Each
// configuration passes test_dma_bridge's memory tests and a stream test with data verified,
// with the engine modes the tools chose (stated or probed) named; what the IP cannot do fails
// with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "tool_run.hpp"

namespace {

using test_support::contains;
using test_support::Outcome;  // output: stdout and stderr together

using test_support::contains_all;
using tool_run::run_tool;

size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

std::vector<std::string> design(const std::string& name, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"--design_file", XDMA_IP_DESIGNS, "--sim_design", name, "--min_words", "0x40000",
                                  "--stream_mapping_size", "0x100000", "--stream_num_descriptors", "16",
                                  "--transfer_timeout", "10"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

struct Configuration {
    const char* name;
    std::vector<std::string> options;
    const char* modes;  // what "XDMA engines: <memory-mapped|stream>, " names (every tool prints it)
};

const Configuration kConfigurations[] = {
    {"no_credits", {}, "engine mode stop_list, completion poll_writeback (descriptor credits no (probed)"},
    {"no_poll_wb", {}, "engine mode credits, completion completed_count (descriptor credits yes (probed), "
                       "poll-mode writeback no (probed))"},
    {"small_bar", {}, "engine mode credits, completion poll_writeback (descriptor credits yes (probed), poll-mode "
                      "writeback yes (probed))"},
    {"interrupts", {"--completion", "interrupt"}, "engine mode stop_list, completion interrupt (descriptor credits no "
                                                  "(stated), poll-mode writeback no (stated))"},
    {"busy_after_stop", {}, "engine mode stop_list, completion poll_writeback (descriptor credits no (probed)"},
};

std::string engines(const char* kind, const Configuration& c) {
    return "Device 0000:15:00.0 XDMA engines: " + std::string(kind) + ", " + c.modes;
}

class XdmaIpTools : public ::testing::TestWithParam<Configuration> {};

TEST_P(XdmaIpTools, MemoryTestsPass) {
    const Configuration& c = GetParam();
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, design(std::string("ipcfg_") + c.name + "_mm", c.options));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, engines("memory-mapped", c))) << r.output;
    EXPECT_GE(count(r.output, "TEST PASS"), 4u) << "memory_fixed_buffers, memory_variable_transfers, "
                                                   "memory_host_chunks (each channel pair), memory_addressing\n"
                                                << r.output;
    EXPECT_FALSE(contains(r.output, "TEST FAIL")) << r.output;
    EXPECT_TRUE(contains(r.output, "Overall PASS")) << r.output;
}

TEST_P(XdmaIpTools, StreamTestVerifiesData) {
    const Configuration& c = GetParam();
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, design(std::string("ipcfg_") + c.name + "_stream", c.options));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, engines("stream", c))) << r.output;
    // Both routes, each through stream_fixed_buffers (and the other stream sub-tests where built).
    EXPECT_GE(count(r.output, "Test pattern verified in 262144 words\nTEST PASS"), 2u) << r.output;
    EXPECT_FALSE(contains(r.output, "TEST FAIL")) << r.output;
    EXPECT_TRUE(contains(r.output, "Overall PASS")) << r.output;
}

TEST_P(XdmaIpTools, ParallelStreamsVerifyData) {
    const Configuration& c = GetParam();
    std::vector<std::string> args{"--design_file", XDMA_IP_DESIGNS, "--sim_design",
                                  std::string("ipcfg_") + c.name + "_stream", "--stream_mapping_size", "0x100000",
                                  "--stream_num_descriptors", "16", "--duration", "0.5", "--transfer_timeout", "5"};
    args.insert(args.end(), c.options.begin(), c.options.end());
    const Outcome r = run_tool(PARALLEL_STREAMS_TOOL, args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, engines("stream", c))) << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 0 -> 1 Test pattern verified in ")) << r.output;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 1 -> 0 Test pattern verified in ")) << r.output;
    EXPECT_TRUE(contains(r.output, "Overall PASS")) << r.output;
}

// --json: every DMA tool's JSON names the engine mode and completion method it chose, as its
// text does (an IP without poll-mode writeback: credits, completed_count).
TEST(XdmaIpToolsJson, EveryDmaToolNamesTheEngineModesItChose) {
    const std::string chosen = "\"engine_mode\":\"credits\",\"completion\":\"completed_count\"";
    const std::vector<std::string> streams{"--design_file", XDMA_IP_DESIGNS, "--sim_design", "ipcfg_no_poll_wb_stream",
                                           "--stream_mapping_size", "0x100000", "--stream_num_descriptors", "16",
                                           "--duration", "0.3", "--transfer_timeout", "5", "--json"};
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL}) {
        const Outcome r = run_tool(tool, streams);
        EXPECT_EQ(r.exit_code, 0) << tool << "\n" << r.output;
        EXPECT_TRUE(contains(r.output, "{\"type\":\"selected\",\"device\":\"0000:15:00.0\",\"design\":"
                                       "\"ipcfg_no_poll_wb_stream\",\"channels\":\"H2C channel 0")) << tool << "\n" << r.output;
        EXPECT_TRUE(contains(r.output, chosen + "}")) << tool << "\n" << r.output;
    }
    for (const char* name : {"ipcfg_no_poll_wb_stream", "ipcfg_no_poll_wb_mm"}) {
        const Outcome bridge = run_tool(TEST_DMA_BRIDGE_TOOL, design(name, {"--json"}));
        EXPECT_EQ(bridge.exit_code, 0) << bridge.output;
        EXPECT_TRUE(contains(bridge.output, "{\"type\":\"total\",\"device\":\"0000:15:00.0\"")) << bridge.output;
        EXPECT_EQ(count(bridge.output, "{\"type\":\"total\""), count(bridge.output, chosen + ",\"bytes_verified\":"))
            << "every total line names the modes\n" << bridge.output;
    }
    const Outcome credits = run_tool(DESCRIPTOR_CREDITS_TOOL, {"--design_file", XDMA_IP_DESIGNS, "--sim_design",
                                                               "ipcfg_no_poll_wb_mm", "--json"});
    EXPECT_EQ(credits.exit_code, 0) << credits.output;
    EXPECT_TRUE(contains(credits.output, chosen + ",\"bytes_verified\":")) << credits.output;
}

INSTANTIATE_TEST_SUITE_P(EachIp, XdmaIpTools, ::testing::ValuesIn(kConfigurations),
                         [](const auto& info) { return std::string(info.param.name); });

// A choice the IP cannot do, made on test_dma_bridge's command line: the exit status and what it prints.
struct Refusal {
    const char* design;
    std::vector<std::string> options;
    int exit_code;
    std::vector<std::string_view> parts;
};

TEST(XdmaIpToolsRefuse, ExplicitChoicesTheIpCannotDoFailWithTheReason) {
    const Refusal refusals[] = {
        {"ipcfg_no_credits_mm", {"--engine_mode", "credits"}, 1,
         {"engine mode credits: the IP has no descriptor credits (Descriptor Credit Mode Enable read back 0); use "
          "stop_list or auto; option --engine_mode",
          "Overall FAIL"}},
        {"ipcfg_no_poll_wb_stream", {"--completion", "poll_writeback"}, 1,
         {"completion poll_writeback: the IP has no poll-mode writeback (Control.pollmode_wb_enable read back 0)",
          "; options --completion and --engine_mode"}},
        {"ipcfg_small_bar_mm", {"--completion", "status"}, 1, {"completion status needs STOP-terminated lists"}},
        {"ipcfg_small_bar_mm", {"--engine_mode", "ring"}, 2, {"parse option --engine_mode \"ring\""}},
    };
    for (const Refusal& refusal : refusals) {
        const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, design(refusal.design, refusal.options));
        EXPECT_EQ(r.exit_code, refusal.exit_code) << r.output;
        EXPECT_TRUE(contains_all(r.output, refusal.parts));
    }
}

TEST(XdmaIpToolsRefuse, CreditsTestFailsOnAnIpWithoutCredits) {
    const std::vector<std::string> probed{"--design_file", XDMA_IP_DESIGNS, "--sim_design", "ipcfg_no_credits_mm"};
    const Outcome r = run_tool(DESCRIPTOR_CREDITS_TOOL, probed);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "cannot test descriptor credits: the XDMA IP has none (H2C 0 Descriptor Credit Mode "
                                   "Enable, 0x6020, reads back 0)"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Test: FAIL")) << r.output;
    const Outcome stated = run_tool(DESCRIPTOR_CREDITS_TOOL, {"--design_file", XDMA_IP_DESIGNS, "--sim_design",
                                                              "ipcfg_interrupts_stream"});
    EXPECT_EQ(stated.exit_code, 1) << stated.output;
    EXPECT_TRUE(contains(stated.output, "cannot test descriptor credits: the design data states the XDMA IP has none"))
        << stated.output;
    const Outcome stop_list = run_tool(DESCRIPTOR_CREDITS_TOOL, {"--design_file", XDMA_IP_DESIGNS, "--sim_design",
                                                                 "ipcfg_no_poll_wb_mm", "--engine_mode", "stop_list"});
    EXPECT_EQ(stop_list.exit_code, 2) << stop_list.output;
}

TEST(XdmaIpToolsRefuse, CreditsTestPassesWithoutPollModeWriteback) {
    const Outcome r = run_tool(DESCRIPTOR_CREDITS_TOOL, {"--design_file", XDMA_IP_DESIGNS, "--sim_design",
                                                         "ipcfg_no_poll_wb_mm"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "Test: PASS")) << r.output;
}

}  // namespace

namespace {

// Alignments register of 64 bytes for addresses and lengths (an IP without unaligned transfers).
TEST(XdmaIpToolsAlignments, AlignedTransfersPassAndAnUnalignedOneIsRefusedNamingTheRequirement) {
    const Outcome memory = run_tool(TEST_DMA_BRIDGE_TOOL,
                                    design("ipcfg_aligned_mm", {"--enabled_tests", "memory_fixed_buffers,"
                                                                "memory_variable_transfers,memory_host_chunks"}));
    EXPECT_EQ(memory.exit_code, 0) << memory.output;
    EXPECT_FALSE(contains(memory.output, "TEST FAIL")) << memory.output;
    const Outcome stream = run_tool(TEST_DMA_BRIDGE_TOOL, design("ipcfg_aligned_stream"));
    EXPECT_EQ(stream.exit_code, 0) << stream.output;
    EXPECT_GE(count(stream.output, "Test pattern verified in 262144 words\nTEST PASS"), 2u) << stream.output;
    // memory_addressing writes words as wide as the Alignments register needs: 64 bytes here.
    const Outcome addressing =
        run_tool(TEST_DMA_BRIDGE_TOOL, design("ipcfg_aligned_mm", {"--enabled_tests", "memory_addressing"}));
    EXPECT_EQ(addressing.exit_code, 0) << addressing.output;
    EXPECT_TRUE(contains_all(addressing.output, {"Testing address aliasing of card memory size 0x100000 at 15 "
                                                 "power-of-two offsets, 64-byte words (Alignments), H2C channel 0 "
                                                 "C2H channel 0\n",
                                                 "memory_addressing H2C channel 0 C2H channel 0: 960 bytes verified\n",
                                                 "Overall PASS"}));
    // An unaligned transfer is still refused before the engine sees it, naming the requirement.
    const Outcome unaligned = run_tool(TEST_DMA_BRIDGE_TOOL,
                                       design("ipcfg_aligned_mm", {"--enabled_tests", "memory_fixed_buffers",
                                                                   "--max_buffer_size", "0x1008"}));
    EXPECT_EQ(unaligned.exit_code, 1) << unaligned.output;
    EXPECT_TRUE(contains(unaligned.output, "submit XDMA transfer 0000:15:00.0 H2C 0: Invalid argument (descriptor 0 "
                                           "of the transfer: length 0x1008 is not a multiple of the channel's length "
                                           "granularity of 64 bytes (Alignments register))"))
        << unaligned.output;
}

}  // namespace

namespace {

// IPs that behave unlike the model but within PG195's reason (F14 item 3): each memory-mapped
// test passes with its bytes verified, and the driver's diagnosis is printed once per engine as
// a "Warning:" line naming the register.
struct Quirk {
    const char* design;
    const char* warning;  // a part of the Warning: line
    const char* modes;    // what the engine modes line names
};

const Quirk kQuirks[] = {
    {"ipcfg_w1s_ignored_mm",
     "Run did not stick; starting the engine with a write of Control (0x04) instead",
     "engine mode credits, completion poll_writeback"},
    {"ipcfg_count_zero_mm",
     "the XDMA IP does not count completed descriptors; completing by Status from now on (completion status)",
     "engine mode stop_list, completion completed_count"},
    {"ipcfg_bogus_alignments_mm",
     "address_bits 6 makes no sense (a PCIe DMA engine has 32 to 64); ignored, using a 64-bit DMA mask",
     "engine mode credits, completion poll_writeback"},
};

TEST(XdmaIpToolsQuirks, EachQuirkIsDiagnosedOnceAndTheMemoryTestsPass) {
    for (const Quirk& q : kQuirks) {
        const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, design(q.design, {"--enabled_tests", "memory_fixed_buffers"}));
        EXPECT_EQ(r.exit_code, 0) << q.design << "\n" << r.output;
        EXPECT_TRUE(contains(r.output, q.modes)) << q.design << "\n" << r.output;
        EXPECT_TRUE(contains(r.output, "Warning: ")) << q.design << "\n" << r.output;
        EXPECT_TRUE(contains(r.output, q.warning)) << q.design << "\n" << r.output;
        EXPECT_LE(count(r.output, q.warning), 4u) << "once per engine (2 H2C, 2 C2H)\n" << r.output;
        EXPECT_TRUE(contains(r.output, "Overall PASS")) << q.design << "\n" << r.output;
        const size_t at = r.output.find("Warning: ");
        if (at != std::string::npos)
            std::printf("%s: %s\n", q.design, r.output.substr(at, r.output.find('\n', at) - at).c_str());
    }
}

// A forced completion method on an IP whose count stays 0 is not overridden: the run fails
// with the diagnosis in the timeout's message, naming the method that would work.
TEST(XdmaIpToolsQuirks, AForcedCompletedCountOnAnIpThatDoesNotCountFailsSayingWhy) {
    std::vector<std::string> args = design("ipcfg_count_zero_mm", {"--enabled_tests", "memory_fixed_buffers",
                                                                    "--completion", "completed_count"});
    args[std::find(args.begin(), args.end(), "--transfer_timeout") - args.begin() + 1] = "1";  // a short timeout
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "the XDMA IP does not count completed descriptors; use completion status"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Overall FAIL")) << r.output;
}

}  // namespace

namespace {

// F21: IPs whose start and stop differ from the model (Control reading 0, the W1C alias ignored,
// a start refused just after a stop). Each DMA tool passes with bytes verified, the driver's
// warning once per engine and the fallback named in --json's result line; the same run on an
// engine that moves nothing (PDT_SIM_FAULT=moves_nothing) still fails. Where no fallback is safe
// (Run that no write clears), the tool fails naming the cause.
struct StartStop {
    const char* quirk;     // ipcfg_<quirk>_mm / _stream
    const char* warning;   // a part of the Warning: line
    const char* fallback;  // its name in the JSON
    bool credits;          // the IP has descriptor credits (test_dma_descriptor_credits runs)
};

const StartStop kStartStop[] = {
    {"control_zero", "the IP does not read Control back; the engine's start and stop are judged by Status (0x40)",
     "control_not_readable", true},
    {"w1c_ignored", "the alias is ignored; clearing Run with a write of Control (0x04) instead", "control_w1c_ignored",
     true},
    {"start_refused", "start(s) just after a stop (Status showed neither busy nor a stop after Run was set)",
     "start_refused_after_stop", false},
};

struct ToolCase {
    const char* tool;
    std::vector<std::string> args;
    const char* pass;  // what a pass prints
};

std::vector<ToolCase> tool_cases(const StartStop& q) {
    const std::string mm = std::string("ipcfg_") + q.quirk + "_mm", stream = std::string("ipcfg_") + q.quirk + "_stream";
    const std::vector<std::string> streams{"--design_file", XDMA_IP_DESIGNS, "--sim_design", stream,
                                           "--stream_mapping_size", "0x100000", "--stream_num_descriptors", "16",
                                           "--duration", "0.3", "--transfer_timeout", "5"};
    std::vector<ToolCase> cases{
        {TEST_DMA_BRIDGE_TOOL, design(mm, {"--enabled_tests", "memory_host_chunks", "--max_channel_combinations", "1"}),
         "Overall PASS"},
        {TEST_DMA_BRIDGE_TOOL, design(stream, {"--enabled_tests", "stream_fixed_buffers"}), "Overall PASS"},
        {PARALLEL_STREAMS_TOOL, streams, "Overall PASS"},
        {INDEPENDENT_STREAMS_TOOL, streams, "Overall PASS"},
    };
    if (q.credits)
        cases.push_back({DESCRIPTOR_CREDITS_TOOL, {"--design_file", XDMA_IP_DESIGNS, "--sim_design", mm}, "Test: PASS"});
    return cases;
}

TEST(XdmaIpToolsStartStop, EveryDmaToolPassesWithTheWarningAndFailsWhenNothingMoves) {
    for (const StartStop& q : kStartStop)
        for (const ToolCase& c : tool_cases(q)) {
            const std::string what = std::string(q.quirk) + " " + c.tool;
            const Outcome r = run_tool(c.tool, c.args);
            EXPECT_EQ(r.exit_code, 0) << what << "\n" << r.output;
            EXPECT_TRUE(contains(r.output, c.pass)) << what << "\n" << r.output;
            EXPECT_TRUE(contains(r.output, q.warning)) << what << "\n" << r.output;
            EXPECT_LE(count(r.output, q.warning), 4u) << "once per engine\n" << r.output;
            EXPECT_FALSE(contains(r.output, "sim IOMMU")) << what << "\n" << r.output;
            test_support::RunOptions lying;
            lying.environment = {"PDT_SIM_FAULT=moves_nothing"};
            lying.timeout = std::chrono::minutes(5);
            const Outcome nothing = test_support::run_process(c.tool, c.args, lying);
            EXPECT_EQ(nothing.exit_code, 1) << what << " moving nothing\n" << nothing.output;
            EXPECT_FALSE(contains(nothing.output, c.pass)) << what << " moving nothing\n" << nothing.output;
        }
}

TEST(XdmaIpToolsStartStop, TheJsonResultNamesTheFallbackUsed) {
    for (const StartStop& q : kStartStop) {
        const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                                   design(std::string("ipcfg_") + q.quirk + "_mm",
                                          {"--enabled_tests", "memory_host_chunks", "--max_channel_combinations", "1",
                                           "--json"}),
                                   {}, true);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_TRUE(contains(r.output, std::string(",\"fallbacks\":[\"") + q.fallback + "\"]}")) << r.output;
    }
    const Outcome plain = run_tool(TEST_DMA_BRIDGE_TOOL, design("ipcfg_small_bar_mm", {"--enabled_tests",
                                                                                      "memory_fixed_buffers", "--json"}),
                                   {}, true);
    EXPECT_EQ(plain.exit_code, 0) << plain.output;
    EXPECT_FALSE(contains(plain.output, "\"fallbacks\"")) << "none used, none named\n" << plain.output;
}

// No write clears Run: the stop is never proven. The tool fails naming the IP's fault, and says
// the engine's buffers stay mapped, naming the channel.
TEST(XdmaIpToolsStartStop, AnEngineThatIgnoresStopFailsNamingItAndKeepsItsBuffers) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL, design("ipcfg_run_stuck_mm", {"--enabled_tests",
                                                                                  "memory_fixed_buffers"}));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "the IP keeps Run set")) << r.output;
    EXPECT_TRUE(contains(r.output, "Overall FAIL")) << r.output;
    EXPECT_FALSE(contains(r.output, "sim IOMMU")) << r.output;
}

}  // namespace
