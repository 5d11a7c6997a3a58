// pcie_link_measure as a user runs it: exit codes, usage errors, JSON, output files, progress
// quiet when stderr is not a terminal, a campaign file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "link_measure_tool.hpp"

using test_support::contains;

namespace {

const std::string kSmall = "--model_memory 1MiB --model_latency_us 5 --min_bytes 4KiB --max_bytes 64KiB --repeats 2 --iterations 2";

test_support::Outcome measure(const std::string& args, test_support::Stderr to = test_support::Stderr::separate) {
    return run_link_measure(args, std::chrono::milliseconds(60000), to);
}

}  // namespace

TEST(PcieLinkMeasure, BadOptionsExitTwo) {
    for (const std::string args : {"", "warp", "sweep --no_such_option", "sweep --repeats 0", "sweep --endpoint nothing",
                                   "sweep --model_h2c_gbps 0", "campaign", "sweep --min_bytes lots",
                                   "sweep --model_memory lots", "ceiling", "sweep --staged_chunk 100",
                                   "sweep --staged_depth 65"}) {
        const auto r = measure(args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output << r.err;
        EXPECT_TRUE(contains(r.err, "pcie_link_measure: ")) << args;
    }
    EXPECT_TRUE(contains(measure("sweep --staged_chunk 100").err, "multiple of 64 bytes"));
    const auto endpoint = measure("sweep --endpoint nothing");
    EXPECT_TRUE(contains(endpoint.err, "known endpoints: model")) << endpoint.err;
}

TEST(PcieLinkMeasure, HelpExitsZero) {
    const auto r = measure("--help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_TRUE(contains(r.output, "--model_h2c_gbps"));
    EXPECT_TRUE(contains(r.output, "--predictions"));
}

TEST(PcieLinkMeasure, SweepTextOneLinePerSizeAndAVerdict) {
    const auto r = measure("sweep " + kSmall);
    EXPECT_EQ(r.exit_code, 0) << r.output << r.err;
    EXPECT_TRUE(contains(r.output, "     4 KiB  H2C  direct  ")) << r.output;
    EXPECT_TRUE(contains(r.output, "    64 KiB  C2H  staged  ")) << r.output;
    EXPECT_TRUE(contains(r.output, "H2C/direct: large-copy rate ")) << r.output;
    EXPECT_TRUE(contains(r.output, "model 1/(1/DMA + 1/memcpy)")) << r.output;
    EXPECT_TRUE(contains(r.output, "Verdict: PASS (")) << r.output;
    EXPECT_TRUE(contains(r.output, " bytes verified)"));
    // stderr is a pipe here, not a terminal: no progress drawn.
    EXPECT_FALSE(contains(r.err, "\r")) << r.err;
    EXPECT_FALSE(contains(r.err, "[sweep]")) << r.err;
}

TEST(PcieLinkMeasure, JsonAndOutputDirectory) {
    const std::string dir = ::testing::TempDir() + "/pcie_link_measure_out";
    std::filesystem::remove_all(dir);
    const auto r = measure("campaign " + std::string(PDT_MEASURE_CAMPAIGN) + " --json --output " + dir +
                           " --model_memory 1MiB --model_latency_us 5");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["schema"], "pcie_link_measure/1");
    EXPECT_EQ(j["endpoint"]["adapter"], "model");
    EXPECT_EQ(j["ip_counts"], nlohmann::json::array());  // the model endpoint keeps no count of its own
    EXPECT_EQ(j["verdict"], "PASS");
    EXPECT_GT(j["bytes_verified"].get<uint64_t>(), 0u);
    EXPECT_TRUE(contains(j["command"].get<std::string>(), "campaign "));
    EXPECT_GT(j["host"]["cores"].get<unsigned>(), 0u);
    EXPECT_TRUE(j["sweep"]["large_copy_gbps"].contains("H2C/direct"));
    EXPECT_EQ(j["latency"]["modes"].size(), 4u);
    EXPECT_EQ(j["latency"]["modes"][0]["samples_us"].size(), 20u);
    EXPECT_EQ(j, nlohmann::json::parse(std::ifstream(dir + "/result.json")));
    std::ifstream csv(dir + "/latency_samples.csv");
    std::string header;
    std::getline(csv, header);
    EXPECT_EQ(header, "direction,mode,index,latency_us");
}

TEST(PcieLinkMeasure, LaunchOnlyOnAnEndpointThatCannotExitsOne) {
    const auto r = measure("launch");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.output, "Verdict: SKIPPED")) << r.output;
    EXPECT_TRUE(contains(r.err, "this endpoint runs no code on the card")) << r.err;
}

TEST(PcieLinkMeasure, CorruptedCopiesExitOne) {
    const auto r = measure("sweep " + kSmall + " --model_corrupt_every 5");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "Verdict: FAIL")) << r.output;
    EXPECT_TRUE(contains(r.err, "data check")) << r.err;
}

TEST(PcieLinkMeasure, AccessChecksEveryTransferAndACorruptOneFailsWithNoRate) {
    const std::string access = "access --model_memory 1MiB --model_latency_us 2 --access_sizes 64,257 "
                               "--access_windows 4KiB,64KiB --access_memories registered --access_caches warm "
                               "--access_transfers 32";
    const auto good = measure(access);
    EXPECT_EQ(good.exit_code, 0) << good.output << good.err;
    EXPECT_TRUE(contains(good.output, "every transfer's bytes checked")) << good.output;
    EXPECT_TRUE(contains(good.output, "    64 B +0-63  window 4 KiB  sequential warm registered  ")) << good.output;
    // 2 sizes x 2 windows x 2 patterns, 32 transfers each: (64 + 257) x 32 x 4 bytes.
    EXPECT_TRUE(contains(good.output, "Verdict: PASS (41088 bytes verified)")) << good.output;
    const auto bad = measure(access + " --model_corrupt_every 13");
    EXPECT_EQ(bad.exit_code, 1) << bad.output;
    EXPECT_TRUE(contains(bad.output, "Verdict: FAIL")) << bad.output;
    EXPECT_FALSE(contains(bad.output, "GB/s")) << bad.output;
    EXPECT_TRUE(contains(bad.err, "H2C data check")) << bad.err;
    EXPECT_TRUE(contains(bad.err, "access copy 13 of 32")) << bad.err;
}

// F14: `latency --json` counts every timed copy as verified, no more and no less: the bytes
// verified are the copy size times every sample of every mode, on each endpoint kind that runs
// without hardware (the model, the simulated XDMA, the simulated edu, the ET-SoC-1 fake).
TEST(PcieLinkMeasure, LatencyJsonVerifiesEveryTimedCopy) {
    for (const std::string endpoint : {"--endpoint model --model_memory 1MiB --model_latency_us 5",
                                       "--endpoint xdma --sim_design TEF1001_dma_ddr3",
                                       "--endpoint edu --edu_sim --edu_sim_delay_ms 0.05",
                                       "--endpoint etsoc1 --etsoc1_device fake"}) {
        const auto r = measure("latency --latency_bytes 2KiB --samples 25 --max_gap_us 50 --json " + endpoint);
        EXPECT_EQ(r.exit_code, 0) << endpoint << "\n" << r.output << r.err;
        const auto j = nlohmann::json::parse(r.output, nullptr, false);
        ASSERT_FALSE(j.is_discarded()) << r.output;
        uint64_t timed = 0;
        for (const auto& mode : j["latency"]["modes"])
            timed += mode["samples_us"].size() * j["latency"]["bytes"].get<uint64_t>();
        EXPECT_EQ(j["latency"]["modes"].size(), 4u) << endpoint;  // H2C and C2H, back to back and after a gap
        EXPECT_EQ(timed, 4u * 25 * 2048) << endpoint;
        EXPECT_EQ(j["bytes_verified"].get<uint64_t>(), timed) << endpoint;
        std::printf("latency --json %s: %llu bytes verified, %llu bytes timed\n", endpoint.c_str(),
                    static_cast<unsigned long long>(j["bytes_verified"].get<uint64_t>()),
                    static_cast<unsigned long long>(timed));
    }
}
