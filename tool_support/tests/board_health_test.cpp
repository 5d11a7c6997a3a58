// tool_support::BoardHealth on simulated designs: the text beside a rate line, the metrics it
// writes, its option errors, and a trip of --max_temperature.
#include "tool_support/board_health.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "designs/registry.hpp"

namespace {

struct Opened {
    designs::Registry registry = *designs::Registry::load({});
    tool_support::OpenedDesigns designs;
    std::vector<tool_support::DesignUnderTest> targets;
    explicit Opened(std::vector<std::string> names) {
        designs = tool_support::open_designs(registry, {std::move(names), {}}, nullptr, std::cerr);
        targets = tool_support::designs_under_test(designs.found);
    }
};

std::unique_ptr<tool_support::BoardHealth> open_health(const Opened& opened, tool_support::BoardHealthCli cli = {}) {
    auto health = tool_support::BoardHealth::open(cli, "board_health_test", opened.targets, stdout, false);
    EXPECT_TRUE(health.ok()) << (health.ok() ? "" : health.error().message());
    return health.ok() ? std::move(*health) : nullptr;
}

TEST(BoardHealth, TheTemperatureOfTheRowsDesignStandsBesideItsRateLine) {
    Opened opened({"TEF1001_dma_stream_loopback", "AS02MC04_enum"});
    auto health = open_health(opened);
    ASSERT_TRUE(health);
    health->start();
    health->stop();
    EXPECT_TRUE(std::regex_match(health->beside("0000:15:00.0 0 -> 1"),
                                 std::regex(R"(; temperature [0-9]+\.[0-9] C \(max [0-9]+\.[0-9] C\))")))
        << health->beside("0000:15:00.0 0 -> 1");
    EXPECT_TRUE(std::regex_search(health->json_beside("0000:15:00.0 0 -> 1"),
                                  std::regex(R"(^,"temperature_c":[0-9.]+,"max_temperature_c":[0-9.]+,"temperature_sensor":"XADC )")));
    // A design without sensors, and a row of no design: nothing beside.
    EXPECT_EQ(health->beside("0000:2d:00.0 0 -> 0"), "");
    EXPECT_EQ(health->beside("GPU 0 H2D"), "");
}

TEST(BoardHealth, TheExpositionCarriesTheRowsTheVerdictAndTheSensors) {
    Opened opened({"TEF1001_dma_stream_loopback"});
    auto health = open_health(opened);
    ASSERT_TRUE(health);
    health->watch().sample_now();
    const std::string text = health->exposition({{"0000:15:00.0 0 -> 1", 2.5e9, 4096, 0}}, false);
    EXPECT_TRUE(std::regex_search(
        text, std::regex(R"(\npdt_verified_bytes_total\{host="[^"]+",tool="board_health_test",design="TEF1001_dma_stream_loopback",pci_address="0000:15:00\.0",channel="0 -> 1"\} 4096\n)")))
        << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\npdt_transfer_rate_bytes_per_second\{[^}]*\} 2.5e\+09\n)"))) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\npdt_errors_total\{[^}]*\} 0\n)"))) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\npdt_verdict_pass\{[^}]*\} 0\n)"))) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\npdt_sensor_celsius\{[^}]*block="XADC bar 0 offset 0x3000"[^}]*\} [0-9.]+\n)")))
        << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\npdt_sensor_volts\{[^}]*\} [0-9.]+\n)"))) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\npdt_last_report_timestamp_seconds\{[^}]*\} [0-9.e+]+\n)"))) << text;
}

TEST(BoardHealth, PublishWritesTheMetricsFile) {
    const std::string dir = std::filesystem::temp_directory_path() / ("pdt_health_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    Opened opened({"TEF1001_dma_stream_loopback"});
    auto health = open_health(opened, {"", dir + "/pdt.prom"});
    ASSERT_TRUE(health);
    health->publish({{"0000:15:00.0 0 -> 1", 1e9, 8192, 0}}, true);
    std::ifstream in(dir + "/pdt.prom");
    std::stringstream text;
    text << in.rdbuf();
    std::filesystem::remove_all(dir);
    EXPECT_TRUE(std::regex_search(text.str(), std::regex(R"(pdt_verified_bytes_total\{[^}]*\} 8192\n)"))) << text.str();
    EXPECT_TRUE(std::regex_search(text.str(), std::regex(R"(pdt_verdict_pass\{[^}]*\} 1\n)"))) << text.str();
}

TEST(BoardHealth, ABadMaxTemperatureIsAUsageError) {
    Opened opened({"TEF1001_dma_stream_loopback"});
    for (const char* bad : {"warm", "-1", "151", "90C", "nan"}) {
        auto health = tool_support::BoardHealth::open({bad, ""}, "t", opened.targets, stdout, false);
        ASSERT_FALSE(health.ok()) << bad;
        EXPECT_EQ(health.error().code, EINVAL);
        EXPECT_EQ(health.error().message(), std::string("parse option --max_temperature \"") + bad +
                                                "\": Invalid argument (a temperature in degrees C, 0..150)");
    }
}

TEST(BoardHealth, AMetricsTargetThatCannotBeWrittenFailsAtOpenNamingIt) {
    Opened opened({"TEF1001_dma_stream_loopback"});
    auto health = tool_support::BoardHealth::open({"", "/nonexistent_pdt_dir/pdt.prom"}, "t", opened.targets, stdout, false);
    ASSERT_FALSE(health.ok());
    EXPECT_NE(health.error().message().find("/nonexistent_pdt_dir"), std::string::npos) << health.error().message();
}

TEST(BoardHealth, ADieOverTheLimitTripsNamingTheSensor) {
    ::setenv("PDT_SIM_TEMPERATURE", "97", 1);
    Opened opened({"TEF1001_dma_stream_loopback"});
    ::unsetenv("PDT_SIM_TEMPERATURE");
    auto health = open_health(opened, {"95", ""});
    ASSERT_TRUE(health);
    health->start();
    health->stop();
    ASSERT_TRUE(health->tripped());
    EXPECT_TRUE(std::regex_match(health->trip_reason(),
                                 std::regex(R"(0000:15:00\.0 TEF1001_dma_stream_loopback: XADC at bar 0 offset 0x3000 .+ 9[0-9]\.[0-9] C is over the temperature limit \(--max_temperature\) of 95 C)")))
        << health->trip_reason();
}

}  // namespace
