// The tool's verdicts and failure paths on the model endpoint: a corrupted copy is FAIL with no
// rate, an endpoint that cannot launch is SKIPPED, the model's own errors, predictions hashed and
// judged, thresholds, and the device context read through the simulated topology.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "measure/sha256.hpp"
#include "measure/tool.hpp"
#include "sim/config_topology.hpp"
#include "sim/model_copy_endpoint.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace model_failures_test {

using namespace measure;

namespace {

std::unique_ptr<sim::ModelCopyEndpoint> model(sim::ModelCopyParameters p = {}) {
    p.card_memory_bytes = 1ull << 20;
    p.latency_us = 5;
    auto m = sim::ModelCopyEndpoint::create(p);
    EXPECT_TRUE(m) << m.error().message();
    return std::move(*m);
}

ToolOptions small_sweep() {
    ToolOptions o;
    o.steps = {"sweep"};
    o.sweep.min_bytes = 4096, o.sweep.max_bytes = 65536, o.sweep.repeats = 3, o.sweep.iterations = 3;
    return o;
}

struct ToolRun : ::testing::Test {
    std::ostringstream out, err, silent;
    Progress progress{silent, false};
    int run(const ToolOptions& o, CopyEndpoint& ep) { return run_tool(o, ep, "model", out, err, progress); }
    nlohmann::json json() { return nlohmann::json::parse(out.str()); }
};

}  // namespace

TEST_F(ToolRun, ACorruptedCopyIsFailWithNoRate) {
    sim::ModelCopyParameters p;
    p.corrupt_every = 7;
    auto m = model(p);
    ToolOptions o = small_sweep();
    o.json = true;
    EXPECT_EQ(run(o, *m), 1);
    const auto j = json();
    EXPECT_EQ(j["verdict"], "FAIL");
    EXPECT_FALSE(j.contains("sweep"));
    EXPECT_FALSE(j.contains("link_proof"));
    ASSERT_EQ(j["failures"].size(), 1u);
    const std::string failure = j["failures"][0];
    EXPECT_NE(failure.find("data check"), std::string::npos) << failure;
    EXPECT_NE(failure.find("(no rate reported)"), std::string::npos) << failure;
    EXPECT_NE(err.str().find("data check"), std::string::npos);
}

TEST_F(ToolRun, ACorruptedCopyInTextPrintsNoRateLine) {
    sim::ModelCopyParameters p;
    p.corrupt_every = 3;
    auto m = model(p);
    EXPECT_EQ(run(small_sweep(), *m), 1);
    EXPECT_EQ(out.str().find("GB/s"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("Verdict: FAIL"), std::string::npos);
}

TEST_F(ToolRun, LaunchOnAnEndpointThatCannotIsSkippedAndExitsOne) {
    auto m = model();
    ToolOptions o;
    o.steps = {"launch"};
    EXPECT_EQ(run(o, *m), 1);
    EXPECT_NE(out.str().find("Verdict: SKIPPED"), std::string::npos) << out.str();
    EXPECT_NE(err.str().find("launch: launch sim model 0: Operation not supported"), std::string::npos) << err.str();
}

TEST_F(ToolRun, SkippedBesideAMeasurementIsPassWithWarnings) {
    auto m = model();
    ToolOptions o = small_sweep();
    o.steps = {"sweep", "launch"};
    EXPECT_EQ(run(o, *m), 0);
    EXPECT_NE(out.str().find("Warning: skipped launch:"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("Verdict: PASS WITH WARNINGS"), std::string::npos);
    EXPECT_NE(out.str().find("  64 KiB  H2C  direct  "), std::string::npos) << out.str();
}

TEST_F(ToolRun, PredictionsAreHashedBeforeAndJudgedAfter) {
    const std::string path = ::testing::TempDir() + "/measure_predictions.json";
    // The model moves 1 GB/s: the first band holds it even when a loaded host (the sanitized
    // suite on two cores) slows the copies a hundredfold; the second cannot hold it.
    const std::string text = R"({"predictions": [
        {"name": "sweep.large_copy_gbps.H2C/direct", "low": 0.001, "high": 20},
        {"name": "sweep.large_copy_gbps.C2H/direct", "low": 5, "high": 9},
        {"name": "launch.single_p50_us", "low": 1, "high": 2}]})";
    std::ofstream(path) << text;
    auto m = model();
    ToolOptions o = small_sweep();
    o.predictions_file = path;
    o.json = true;
    EXPECT_EQ(run(o, *m), 0) << err.str();
    EXPECT_NE(err.str().find("sha256 " + sha256_hex(text)), std::string::npos) << err.str();
    const auto j = json();
    EXPECT_EQ(j["predictions"]["sha256"], sha256_hex(text));
    const auto& r = j["predictions"]["results"];
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0]["verdict"], "pass");
    EXPECT_EQ(r[1]["verdict"], "fail");
    EXPECT_EQ(r[2]["verdict"], "inconclusive");
    EXPECT_EQ(r[2]["note"], "not measured in this run");
}

TEST_F(ToolRun, AnUnreadablePredictionsFileIsAUsageError) {
    auto m = model();
    ToolOptions o = small_sweep();
    o.predictions_file = "/nonexistent/predictions.json";
    EXPECT_EQ(run(o, *m), 2);
    EXPECT_NE(err.str().find("read predictions /nonexistent/predictions.json"), std::string::npos) << err.str();
}

TEST_F(ToolRun, AThresholdCrossedIsFailButKeepsTheRates) {
    auto m = model();
    ToolOptions o = small_sweep();
    o.thresholds = {{"sweep.large_copy_gbps.H2C/direct", 50.0, std::nullopt}};
    EXPECT_EQ(run(o, *m), 1);
    EXPECT_NE(out.str().find("Failure: threshold sweep.large_copy_gbps.H2C/direct:"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("is below the minimum 50.000"), std::string::npos);
    EXPECT_NE(out.str().find("H2C/direct: large-copy rate"), std::string::npos);
}

TEST_F(ToolRun, DeviceContextThroughTheSimulatedTopology) {
    sim::ModelCopyParameters p;
    p.pci_address = "0000:03:00.0";  // 8 GT/s x8 in pcie_tools' demo topology
    auto m = model(p);
    ToolOptions o = small_sweep();
    o.pci_access = "sim";
    o.simulated_topology = sim::open_demo_topology;
    o.json = true;
    o.output_dir = ::testing::TempDir() + "/measure_context_out";
    EXPECT_EQ(run(o, *m), 0) << err.str();
    const auto j = json();
    EXPECT_EQ(j["link"]["before"]["speed"], "8GT/s");
    EXPECT_EQ(j["link"]["before"]["width"], 8);
    EXPECT_EQ(j["link"]["changed"], false);
    EXPECT_NE(j["pci_info_before"].get<std::string>().find("03:00.0"), std::string::npos);
    EXPECT_NE(j["pci_info_after"].get<std::string>().find("03:00.0"), std::string::npos);
    // Sampled under load when the monitor got a sample in (a short run may end first: then LnkSta before).
    EXPECT_NE(j["link_proof"]["lnksta_under_load"].get<std::string>().find("x8"), std::string::npos);
    EXPECT_EQ(j["link_proof"]["lowest"], "Gen1 x8");  // ~1 GB/s on 8 lanes
    EXPECT_TRUE(std::filesystem::exists(o.output_dir + "/result.json"));
}

TEST(ModelEndpoint, RefusesWhatIsOutOfRangeOrOverfull) {
    sim::ModelCopyParameters p;
    p.card_memory_bytes = 8192, p.queues = 1, p.in_flight = 1;
    auto m = sim::ModelCopyEndpoint::create(p);
    ASSERT_TRUE(m);
    auto host = (*m)->allocate(8192, HostMemory::Registered);
    ASSERT_TRUE(host);
    auto beyond = (*m)->issue(Direction::H2C, 0, **host, 0, 4096, 8192);
    ASSERT_FALSE(beyond);
    EXPECT_NE(beyond.error().message().find("outside the host buffer, the card memory"), std::string::npos);
    auto no_queue = (*m)->issue(Direction::H2C, 1, **host, 0, 0, 4096);
    ASSERT_FALSE(no_queue);
    EXPECT_NE(no_queue.error().message().find("the model has 1 queues"), std::string::npos);
    auto first = (*m)->issue(Direction::H2C, 0, **host, 0, 0, 4096);
    ASSERT_TRUE(first);
    auto second = (*m)->issue(Direction::H2C, 0, **host, 0, 0, 4096);
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().code, EBUSY);
    ASSERT_TRUE((*m)->wait(*first, std::chrono::milliseconds(1000)));
    auto again = (*m)->wait(*first, std::chrono::milliseconds(1000));
    ASSERT_FALSE(again);
    EXPECT_NE(again.error().message().find("is not in flight"), std::string::npos);
}

TEST(ModelEndpoint, TimesOutACopyLongerThanTheWait) {
    sim::ModelCopyParameters p;
    p.card_memory_bytes = 1 << 20, p.h2c_gbps = 0.001;  // 1 MiB: about a second
    auto m = sim::ModelCopyEndpoint::create(p);
    ASSERT_TRUE(m);
    auto host = (*m)->allocate(1 << 20, HostMemory::Registered);
    auto t = (*m)->issue(Direction::H2C, 0, **host, 0, 0, 1 << 20);
    ASSERT_TRUE(t);
    auto w = (*m)->wait(*t, std::chrono::milliseconds(20));
    ASSERT_FALSE(w);
    EXPECT_EQ(w.error().code, ETIMEDOUT);
    EXPECT_TRUE((*m)->reset_queues());
}

TEST(ModelEndpoint, RejectsImpossibleParameters) {
    sim::ModelCopyParameters p;
    p.h2c_gbps = 0;
    auto m = sim::ModelCopyEndpoint::create(p);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, EINVAL);
    EXPECT_NE(m.error().message().find("rates must be above 0 GB/s"), std::string::npos);
}

TEST_F(ToolRun, CeilingFromAResultFileMeasuresNothingNew) {
    const std::string dir = ::testing::TempDir() + "/measure_ceiling_from";
    auto m = model();
    ToolOptions first = small_sweep();
    first.output_dir = dir;
    ASSERT_EQ(run(first, *m), 0) << err.str();
    out.str("");
    ToolOptions o;
    o.steps = {"ceiling"};
    o.ceiling_from = dir + "/result.json";
    o.ceiling = {1e9, 0, 0};
    EXPECT_EQ(run(o, *m), 0) << out.str() << err.str();
    EXPECT_NE(out.str().find("(" + o.ceiling_from + ")"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("Warning: nothing measured in this run: the rate comes from"), std::string::npos);
    EXPECT_NE(out.str().find("Verdict: PASS WITH WARNINGS (0 bytes verified)"), std::string::npos);

    std::ofstream(dir + "/failed.json") << R"({"schema": "pcie_link_measure/1", "verdict": "FAIL"})";
    o.ceiling_from = dir + "/failed.json";
    out.str("");
    EXPECT_EQ(run(o, *m), 1);
    EXPECT_NE(out.str().find("its verdict is FAIL: its rates are not to be used"), std::string::npos) << out.str();
}

}  // namespace model_failures_test
