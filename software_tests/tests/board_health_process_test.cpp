// Board health beside a soak, as a user runs the tools on simulated designs: the temperature
// beside every rate line and in the JSON, --max_temperature stopping the run with exit 1 and
// naming the sensor, alarms reported as they happen, and --metrics (docs: F15).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tool_run.hpp"

namespace {

using test_support::contains;
using test_support::Outcome;
using tool_run::with;

const std::vector<std::string> kSoak{"--sim_design", "TEF1001_dma_stream_loopback", "--stream_mapping_size", "0x100000",
                                     "--stream_num_descriptors", "16", "--report_interval", "0.3",
                                     "--transfer_timeout", "2"};

Outcome run(const char* tool, const std::vector<std::string>& args, std::vector<std::string> environment = {}) {
    test_support::RunOptions options;
    options.environment = std::move(environment);
    options.timeout = std::chrono::minutes(2);
    options.stdin_from_null = true;
    return test_support::run_process(tool, args, options);
}

std::vector<std::string> lines_with(const std::string& text, const std::string& part) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (contains(line, part))
            lines.push_back(line);
    return lines;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(BoardHealthProcess, TheTemperatureStandsBesideEveryRateLine) {
    const Outcome r = run(PARALLEL_STREAMS_TOOL, with(kSoak, {"--duration", "2"}));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string during = r.output.substr(0, r.output.find("Overall test statistics:"));
    const auto rates = lines_with(during, "Mbytes/sec");
    ASSERT_GE(rates.size(), 3u) << r.output;
    const std::regex beside(R"(^  0000:15:00\.0 [0-9] -> [0-9] [0-9.]+ Mbytes/sec \(.*\); temperature -?[0-9]+\.[0-9] C \(max -?[0-9]+\.[0-9] C\)$)");
    for (const std::string& line : rates)
        EXPECT_TRUE(std::regex_search(line, beside)) << line;
}

TEST(BoardHealthProcess, JsonIntervalsCarryTheTemperature) {
    const Outcome r = run(PARALLEL_STREAMS_TOOL, with(kSoak, {"--duration", "1.5", "--json"}));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto intervals = lines_with(r.output, "\"type\":\"interval\"");
    ASSERT_FALSE(intervals.empty()) << r.output;
    for (const std::string& line : intervals)
        EXPECT_TRUE(std::regex_search(line, std::regex(R"("temperature_c":[0-9.]+,"max_temperature_c":[0-9.]+,"temperature_sensor":"XADC )")))
            << line;
}

TEST(BoardHealthProcess, ATemperatureOverTheLimitStopsTheRunWithExitOneNamingTheSensor) {
    // The simulated die heats from 40 C to 99 C in 1.5 s; the run would go on for a minute.
    const Outcome r = run(PARALLEL_STREAMS_TOOL, with(kSoak, {"--duration", "60", "--max_temperature", "90"}),
                          {"PDT_SIM_TEMPERATURE=40,99@1.5"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(Error: 0000:15:00\.0 TEF1001_dma_stream_loopback: XADC at bar 0 offset 0x3000 \S.* [0-9.]+ C is over the temperature limit \(--max_temperature\) of 90 C)")))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Board health: 0000:15:00.0 TEF1001_dma_stream_loopback: XADC")) << r.output;
    EXPECT_TRUE(r.output.ends_with("Overall FAIL\n")) << r.output;
}

TEST(BoardHealthProcess, AnAlarmIsReportedAsItIsRaised) {
    // Above the XADC's default upper temperature alarm (85 C, UG480), below the limit asked.
    const Outcome r = run(PARALLEL_STREAMS_TOOL, with(kSoak, {"--duration", "2.5"}), {"PDT_SIM_TEMPERATURE=40,95@1"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const auto alarms = lines_with(r.output, "Sensors: 0000:15:00.0 XADC at bar 0 offset 0x3000: alarm ");
    ASSERT_FALSE(alarms.empty()) << r.output;
    EXPECT_TRUE(contains(alarms.front(), " raised")) << alarms.front();
    // Reported while the streams ran: before the totals.
    EXPECT_LT(r.output.find(alarms.front()), r.output.find("Overall test statistics:")) << r.output;
}

TEST(BoardHealthProcess, MetricsFileHoldsTheRunAndItsSensors) {
    const std::string dir = std::filesystem::temp_directory_path() / ("pdt_metrics_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string file = dir + "/pdt.prom";
    const Outcome r = run(PARALLEL_STREAMS_TOOL, with(kSoak, {"--duration", "1.5", "--metrics", file}));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text = read_file(file);
    std::filesystem::remove_all(dir);
    EXPECT_TRUE(contains(text, "# TYPE pdt_verified_bytes_total counter\n")) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(pdt_verified_bytes_total\{host="[^"]+",tool="test_dma_bridge_parallel_streams",design="TEF1001_dma_stream_loopback",pci_address="0000:15:00\.0",channel="[0-9] -> [0-9]"\} [1-9][0-9]*)")))
        << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(pdt_verdict_pass\{[^}]*pci_address="0000:15:00\.0"\} 1\n)"))) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(pdt_sensor_celsius\{[^}]*block="XADC bar 0 offset 0x3000"[^}]*\} [0-9.]+)")))
        << text;
    EXPECT_TRUE(contains(text, "pdt_last_report_timestamp_seconds{")) << text;
}

TEST(BoardHealthProcess, AMetricsPathThatCannotBeWrittenFailsAtStartUpNamingIt) {
    const Outcome r = run(PARALLEL_STREAMS_TOOL, with(kSoak, {"--duration", "1", "--metrics", "/nonexistent_pdt_dir/pdt.prom"}));
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "/nonexistent_pdt_dir")) << r.output;
    EXPECT_FALSE(contains(r.output, "Press Ctrl-C")) << r.output;
    EXPECT_FALSE(contains(r.output, "PASS")) << r.output;
}

TEST(BoardHealthProcess, BadMaxTemperatureIsAUsageError) {
    for (const char* bad : {"hot", "-5", "1000", "90C"}) {
        const Outcome r = run(PARALLEL_STREAMS_TOOL, with(kSoak, {"--duration", "1", "--max_temperature", bad}));
        EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
        EXPECT_TRUE(contains(r.output, std::string("parse option --max_temperature \"") + bad + "\"")) << r.output;
    }
}

TEST(BoardHealthProcess, TestDmaBridgeLogsTheTemperatureBesideItsRateLine) {
    const Outcome r = run(TEST_DMA_BRIDGE_TOOL,
                          {"--sim_design", "TEF1001_dma_stream_loopback", "--transfer_timeout", "2", "--stream_mapping_size",
                           "0x40000", "--stream_num_descriptors", "16", "--min_words", "0x10000", "--enabled_tests",
                           "stream_fixed_buffers"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(host-to-card and card-to-host DMA [0-9.]+ Mbytes/sec \(.*\); temperature [0-9.]+ C \(max [0-9.]+ C\)\n)")))
        << r.output;
    EXPECT_TRUE(contains(r.output, "Board health: 0000:15:00.0 TEF1001_dma_stream_loopback; temperature ")) << r.output;
}

TEST(BoardHealthProcess, TestDmaBridgeStopsOverTheLimit) {
    const Outcome r = run(TEST_DMA_BRIDGE_TOOL,
                          {"--sim_design", "TEF1001_dma_stream_loopback", "--transfer_timeout", "2", "--stream_mapping_size",
                           "0x40000", "--stream_num_descriptors", "16", "--min_words", "0x10000", "--max_temperature", "50"},
                          {"PDT_SIM_TEMPERATURE=60"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "is over the temperature limit (--max_temperature) of 50 C")) << r.output;
    EXPECT_TRUE(r.output.ends_with("Overall FAIL\n")) << r.output;
}

// A device that completes transfers without moving data (and one that goes stale) fails the run,
// and the metrics' verdict says so too: never 1 for a run that verified nothing.
TEST(BoardHealthProcess, TheMetricsVerdictOfALyingDeviceIsAFail) {
    const std::string dir = std::filesystem::temp_directory_path() / ("pdt_metrics_lie_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::vector<std::pair<const char*, std::vector<std::string>>> runs = {
        {PARALLEL_STREAMS_TOOL, with(kSoak, {"--duration", "1.5"})},
        {TEST_DMA_BRIDGE_TOOL,
         {"--sim_design", "TEF1001_dma_stream_loopback", "--transfer_timeout", "2", "--stream_mapping_size", "0x40000",
          "--stream_num_descriptors", "16", "--min_words", "0x10000", "--enabled_tests", "stream_fixed_buffers"}}};
    for (const char* lie : {"PDT_SIM_FAULT=moves_nothing", "PDT_SIM_FAULT=stale_after=3"})
        for (const auto& [tool, args] : runs) {
            const std::string file = dir + "/pdt.prom";
            std::filesystem::remove(file);
            const Outcome r = run(tool, with(args, {"--metrics", file}), {lie});
            EXPECT_EQ(r.exit_code, 1) << tool << " " << lie << ": " << r.output;
            const std::string text = read_file(file);
            EXPECT_TRUE(std::regex_search(text, std::regex(R"(pdt_verdict_pass\{[^}]*\} 0\n)"))) << tool << " " << lie << ": " << text;
            EXPECT_FALSE(std::regex_search(text, std::regex(R"(pdt_verdict_pass\{[^}]*\} 1\n)"))) << text;
            EXPECT_TRUE(std::regex_search(text, std::regex(R"(pdt_run_finished\{[^}]*\} 1\n)"))) << text;
        }
    std::filesystem::remove_all(dir);
}

}  // namespace
