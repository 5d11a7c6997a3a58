// pcie_link_measure on the device endpoints as a user runs it: --endpoint xdma on a simulated
// design with card memory (the real driver on the XDMA model), its failures, --endpoint edu on the
// register model of QEMU's edu (--edu_sim), and --endpoint cuda on a machine without a usable GPU.
#include <gtest/gtest.h>

#include "link_measure_tool.hpp"

using test_support::contains;

namespace {

const std::string kXdma = "--endpoint xdma --sim_design NiteFury_dma_ddr3 --pci_access sim";
const std::string kSmall = " --min_bytes 4KiB --max_bytes 256KiB --repeats 2 --iterations 3";

test_support::Outcome measure(const std::string& args, std::vector<std::string> environment = {}) {
    return run_link_measure(args, std::chrono::milliseconds(120000), test_support::Stderr::separate,
                            std::move(environment));
}

// A small sweep on `endpoint` passes with bytes verified, naming `device` and printing `c2h_row`
// (the largest C2H size's row, with its host buffer way).
void expect_small_sweep_passes(const std::string& endpoint, const std::string& device, const std::string& c2h_row) {
    SCOPED_TRACE(endpoint);
    const auto r = measure("sweep " + endpoint + kSmall);
    EXPECT_TRUE(test_support::exited_printing(r, 0, {device, c2h_row, "Verdict: PASS", " bytes verified)"})) << r.err;
}

}  // namespace

TEST(PcieLinkMeasureXdma, SweepOnASimulatedDesignPassesWithBytesVerified) {
    expect_small_sweep_passes(kXdma, "0000:15:00.0 NiteFury_dma_ddr3", "   256 KiB  C2H  staged  ");
}

// The engines' run mode and completion method, in text and in the JSON's endpoint object; and
// the IP's own count of every copy of the run (each channel's performance monitor, F26).
TEST(PcieLinkMeasureXdma, TheEngineModeCompletionAndIpCountsArePrintedInTextAndJson) {
    const auto text = measure("latency " + kXdma + " --repeats 2");
    EXPECT_TRUE(test_support::exited_printing(text, 0,
                                              {"(xdma) at 0000:15:00.0\nxdma engines: engine mode credits, completion "
                                               "poll_writeback\n",
                                               "\nIP, every copy of the run: H2C 0 performance monitor: ",
                                               "\nIP, every copy of the run: C2H 0 performance monitor: "}))
        << text.err;
    const auto json = measure("latency " + kXdma + " --repeats 2 --json --engine_mode stop_list --completion status");
    EXPECT_TRUE(test_support::exited_printing(json, 0, {"\"engine_mode\": \"stop_list\""})) << json.err;
    EXPECT_TRUE(contains(json.output, "\"completion\": \"status\"")) << json.output;
    EXPECT_TRUE(contains(json.output, "\"ip_counts\": [\n    \"H2C 0 performance monitor: ")) << json.output;
}

TEST(PcieLinkMeasureXdma, InflightUsesTheDesignsEnginePairs) {
    const auto r = measure("inflight " + kXdma + " --inflight_sizes 64KiB --repeats 2");
    EXPECT_TRUE(test_support::exited_printing(r, 0, {"Verdict: PASS"})) << r.err;
}

TEST(PcieLinkMeasureXdma, AnUnknownDesignIsAUsageError) {
    const auto r = measure("sweep --endpoint xdma --sim_design NoSuchDesign");
    EXPECT_EQ(r.exit_code, 2) << r.output << r.err;
    EXPECT_TRUE(contains(r.err, "NoSuchDesign")) << r.err;
}

TEST(PcieLinkMeasureXdma, AStreamDesignHasNoCardMemoryToMeasure) {
    const auto r = measure("sweep --endpoint xdma --sim_design NiteFury_dma_stream_loopback");
    EXPECT_EQ(r.exit_code, 1) << r.output << r.err;
    EXPECT_TRUE(contains(r.err, "no design with a memory-mapped DMA bridge and card memory")) << r.err;
}

TEST(PcieLinkMeasureXdma, AStalledEngineIsATimeoutAndAFail) {
    const auto r = measure("latency " + kXdma + " --samples 5 --transfer_timeout 0.3", {"PDT_SIM_FAULT=engine_stall@H2C0"});
    EXPECT_EQ(r.exit_code, 1) << r.output << r.err;
    EXPECT_TRUE(contains(r.output + r.err, "not completed within 300 ms")) << r.output << r.err;
    EXPECT_TRUE(contains(r.output, "FAIL")) << r.output;
}

TEST(PcieLinkMeasureXdma, TheSimulatedLinkOptionsNeedASimulatedDesignAndSaneValues) {
    // (The set link's figures: sim_link_tool_test.cpp.)
    for (const std::string& args : {std::string("sweep --endpoint xdma --sim_rate_gbps 1"), "sweep " + kXdma + " --sim_latency_us 1.5",
                                   "sweep " + kXdma + " --sim_rate_gbps -1"}) {
        const auto r = measure(args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output << r.err;
        EXPECT_TRUE(contains(r.err, "--sim_")) << args << "\n" << r.err;
    }
    EXPECT_TRUE(contains(measure("sweep --endpoint xdma --sim_rate_gbps 1").err, "give --sim_design NAME"));
}

TEST(PcieLinkMeasureCuda, NoUsableGpuIsAnErrorThatSaysWhy) {
    const auto r = measure("sweep --endpoint cuda --cuda_device 99");
    EXPECT_EQ(r.exit_code, 1) << r.output << r.err;
    // No GPU (or no CUDA in this build), or a GPU 99 the machine lacks: each says so.
    EXPECT_TRUE(contains(r.err, "no usable NVIDIA GPU") || contains(r.err, "this build has no CUDA") ||
                contains(r.err, "numbered from 0"))
        << r.err;
}

// --endpoint edu on the register model of QEMU's edu (--edu_sim): its 4095-byte window honoured.
TEST(PcieLinkMeasureEdu, TheDefaultLatencySizeIsClampedToEdusWindowAndSaidSo) {
    const auto r = measure("latency --endpoint edu --edu_sim --edu_sim_delay_ms 5 --samples 2 --max_gap_us 100");
    EXPECT_TRUE(test_support::exited_printing(r, 0, {"pcie_link_measure on simulated edu 0000:01:00.0 (edu)\n"}))
        << r.err;
    EXPECT_TRUE(contains(r.output, "latency: 4095 B copies, issue to completion (us)")) << r.output;
    EXPECT_TRUE(contains(r.output, "Warning: latency: 4 KiB copies do not fit the card window of 4095 bytes of "
                                   "simulated edu 0000:01:00.0: measured 4095 B copies instead"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Verdict: PASS WITH WARNINGS (32760 bytes verified)")) << r.output;
}

TEST(PcieLinkMeasureEdu, ASweepLeavesOutWhatEduCannotCopy) {
    const auto r = measure("sweep --endpoint edu --edu_sim --edu_sim_delay_ms 1 --min_bytes 2KiB --max_bytes 8KiB "
                           "--repeats 1 --iterations 2 --no_staged");
    EXPECT_TRUE(test_support::exited_printing(r, 0, {"     2 KiB  C2H  direct  "})) << r.err;
    EXPECT_FALSE(contains(r.output, "4 KiB  C2H  direct")) << r.output;
    EXPECT_TRUE(contains(r.output, "Warning: sweep: 4 KiB to 8 KiB left out: larger than the card window of 4095 bytes"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Verdict: PASS WITH WARNINGS (8192 bytes verified)")) << r.output;
}

TEST(PcieLinkMeasureEdu, BadEduOptionsAreUsageErrors) {
    const auto delay = measure("latency --endpoint edu --edu_sim --edu_sim_delay_ms -1");
    EXPECT_EQ(delay.exit_code, 2) << delay.output << delay.err;
    EXPECT_TRUE(contains(delay.err, "--edu_sim_delay_ms edu endpoint: Invalid argument (expected 0 to 10000 ms)"))
        << delay.err;
    const auto two = measure("latency --endpoint edu --edu_sim --device 0000:01:00.0 --device 0000:02:00.0");
    EXPECT_EQ(two.exit_code, 2) << two.output << two.err;
    EXPECT_TRUE(contains(two.err, "give one --device")) << two.err;
}

// --endpoint qdma: the QDMA driver's MM queue pairs on sim's QDMA model.
namespace {
const std::string kQdma = "--endpoint qdma --sim_design VD100_qdma_ddr4 --pci_access sim";
}  // namespace

TEST(PcieLinkMeasureQdma, SweepOnASimulatedQdmaDesignPassesWithBytesVerified) {
    expect_small_sweep_passes(kQdma, "0000:15:00.0 VD100_qdma_ddr4 (qdma)", "   256 KiB  C2H  direct  ");
}

TEST(PcieLinkMeasureQdma, CompletionByInterruptPassesWithBytesVerified) {
    const auto r = measure("latency " + kQdma + " --qdma_interrupts --samples 20");
    EXPECT_TRUE(test_support::exited_printing(r, 0, {"Verdict: PASS"})) << r.err;
}

TEST(PcieLinkMeasureQdma, ACardThatMovesNothingFails) {
    for (const char* lie : {"PDT_SIM_FAULT=moves_nothing", "PDT_SIM_FAULT=stale_after=3"}) {
        const auto r = measure("sweep " + kQdma + kSmall, {lie});
        EXPECT_EQ(r.exit_code, 1) << lie << r.output << r.err;
        EXPECT_FALSE(contains(r.output, "Verdict: PASS")) << lie << r.output;
    }
}

TEST(PcieLinkMeasureQdma, AStreamingQdmaHasNoCardMemoryToMeasure) {
    const auto r = measure("sweep --endpoint qdma --sim_design open-nic");
    EXPECT_EQ(r.exit_code, 1) << r.output << r.err;
    EXPECT_TRUE(contains(r.err, "no design with a QDMA and card memory")) << r.err;
}
