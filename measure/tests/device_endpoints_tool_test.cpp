// pcie_link_measure on the device endpoints as a user runs it: --endpoint xdma on a simulated
// design with card memory (the real driver on the XDMA model), its failures, and --endpoint cuda
// on a machine without a usable GPU.
#include <gtest/gtest.h>

#include "test_support/run_process.hpp"

using test_support::contains;
using test_support::run_process;
using test_support::words;

namespace {

const std::string kTool = PCIE_LINK_MEASURE;
const std::string kXdma = "--endpoint xdma --sim_design NiteFury_dma_ddr3 --pci_access sim";
const std::string kSmall = " --min_bytes 4KiB --max_bytes 256KiB --repeats 2 --iterations 3";

test_support::Outcome measure(const std::string& args, std::vector<std::string> environment = {}) {
    test_support::RunOptions o;
    o.stderr_to = test_support::Stderr::separate;
    o.stdin_from_null = true;
    o.environment = std::move(environment);
    o.timeout = std::chrono::milliseconds(120000);
    return run_process(kTool, words(args), o);
}

}  // namespace

TEST(PcieLinkMeasureXdma, SweepOnASimulatedDesignPassesWithBytesVerified) {
    const auto r = measure("sweep " + kXdma + kSmall);
    EXPECT_EQ(r.exit_code, 0) << r.output << r.err;
    EXPECT_TRUE(contains(r.output, "0000:15:00.0 NiteFury_dma_ddr3")) << r.output;
    EXPECT_TRUE(contains(r.output, "   256 KiB  C2H  staged  ")) << r.output;
    EXPECT_TRUE(contains(r.output, "Verdict: PASS")) << r.output;
    EXPECT_TRUE(contains(r.output, " bytes verified)")) << r.output;
}

TEST(PcieLinkMeasureXdma, InflightUsesTheDesignsEnginePairs) {
    const auto r = measure("inflight " + kXdma + " --inflight_sizes 64KiB --repeats 2");
    EXPECT_EQ(r.exit_code, 0) << r.output << r.err;
    EXPECT_TRUE(contains(r.output, "Verdict: PASS")) << r.output;
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
    const auto r = measure("latency " + kXdma + " --samples 5 --timeout 0.3", {"PDT_SIM_FAULT=engine_stall@H2C0"});
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
