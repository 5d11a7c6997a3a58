// The CMS's averages through the tools, as processes on the simulated U200 designs:
// xilinx_cms_time_averaging's header and change lines (the simulated firmware's AVG starting at
// half of INS and closing on it, a design without a CMS failing with its message, a bad option),
// display_sensor_values' Average column and display_temperature_values' average gauges.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <regex>
#include <unistd.h>
#include <string>
#include <vector>

#include "test_support/run_process.hpp"

namespace cms_average_tools_test {

namespace {

test_support::Outcome run(const std::string& args, const char* tool = XILINX_CMS_TIME_AVERAGING) {
    test_support::RunOptions options;
    options.stdin_from_null = true;
    options.timeout = std::chrono::minutes(1);
    return test_support::run_process(tool, test_support::words(args), options);
}

struct Line {
    unsigned index;
    unsigned max, avg, ins;
    int max_change, avg_change, ins_change;
};

// The change lines, parsed by fpga_sio's format.
std::vector<Line> change_lines(const std::string& output) {
    const std::regex line(R"(\[([ \d]{5})\]  ( *\d+\.\d{6})\(([+-] *\d+\.\d{6}|[ +-]*\d+\.\d{6})\)  ( {0,7}\d+)\(( *[+-]\d+)\)  ( {0,7}\d+)\(( *[+-]\d+)\)  ( {0,7}\d+)\(( *[+-]\d+)\)\n)");
    std::vector<Line> lines;
    for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it) {
        const auto& m = *it;
        lines.push_back({static_cast<unsigned>(std::stoul(m[1])), static_cast<unsigned>(std::stoul(m[4])),
                         static_cast<unsigned>(std::stoul(m[6])), static_cast<unsigned>(std::stoul(m[8])),
                         std::stoi(m[5]), std::stoi(m[7]), std::stoi(m[9])});
    }
    return lines;
}

TEST(XilinxCmsTimeAveragingTool, RecordsTheAverageClosingOnTheReadingFromHalf) {
    const auto r = run("--sim_design U200_dma_ddr4 --duration 0.5");
    ASSERT_TRUE(test_support::exited_printing(
        r, 0,
        {"\nDesign U200_dma_ddr4:\n  PCI device 0000:15:00.0 rev 00 IOMMU group 41\n",
         "  Index            Time (secs)                 Max             Average       Instantaneous\n"
         "[    0]   0.000000( +0.000000)  "}));
    const std::vector<Line> lines = change_lines(r.output);
    ASSERT_GE(lines.size(), 3u) << r.output;
    EXPECT_EQ(lines[0].max_change, 0);
    EXPECT_EQ(lines[0].avg_change, 0);
    EXPECT_LT(lines[0].avg, lines[0].ins) << "the firmware's average starts from 0" << r.output;
    for (size_t i = 1; i < lines.size(); ++i) {
        EXPECT_EQ(lines[i].index, i);
        EXPECT_EQ(lines[i].avg_change, static_cast<int>(lines[i].avg) - static_cast<int>(lines[i - 1].avg));
        EXPECT_GT(lines[i].avg, lines[i - 1].avg) << "each change brings the average closer";
    }
    EXPECT_EQ(lines.back().avg, lines.back().ins) << r.output;
    EXPECT_EQ(lines.back().ins, 12000u) << "12V_PEX in mV";
}

TEST(XilinxCmsTimeAveragingTool, ADesignWithoutACmsIsNoDesignToOperateOn) {
    const auto r = run("--sim_design TEF1001_dma_ddr3 --duration 0.01");
    EXPECT_TRUE(test_support::exited_printing(r, 1, {"No CMS found in the designs\n"}));
    EXPECT_FALSE(test_support::contains(r.output, "Index"));
}

TEST(XilinxCmsTimeAveragingTool, ABadDurationIsAUsageError) {
    EXPECT_TRUE(test_support::exited_printing(run("--sim_design U200_dma_ddr4 --duration never"), 2,
                                              {"Error: parse option --duration \"never\""}));
}

TEST(DisplaySensorValuesAverage, ACmsBlockHasAnAverageColumnAndAnXadcNone) {
    const auto r = run("--sim_design U200_dma_ddr4 --sim_design TEF1001_dma_ddr3", DISPLAY_SENSOR_VALUES);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const size_t cms = r.output.find("Displaying CMS values");
    const size_t xadc = r.output.find("Displaying XADC values");
    ASSERT_NE(cms, std::string::npos) << r.output;
    ASSERT_NE(xadc, std::string::npos) << r.output;
    const std::string cms_text = r.output.substr(cms, r.output.find("\n\n", cms) - cms);
    const std::string xadc_text = r.output.substr(xadc, r.output.find("\n\n", xadc) - xadc);
    EXPECT_TRUE(test_support::contains(cms_text, "  Sensor                 Measurement   Min           Max           Average\n"))
        << cms_text;
    EXPECT_TRUE(std::regex_search(cms_text, std::regex(R"(\n  12V_PEX +\d+\.\d{4} V {17} +\d+\.\d{4} V +\d+\.\d{4} V\n)")))
        << cms_text;
    EXPECT_FALSE(test_support::contains(xadc_text, "Average")) << xadc_text;
}

TEST(DisplayTemperatureValuesAverage, TheMetricsCarryTheCmsAverageBesideItsReading) {
    const std::string file = ::testing::TempDir() + "/cms_average_metrics-" + std::to_string(getpid()) + ".prom";
    const auto r = run("--sim_design U200_dma_ddr4 --interval 0.1 --duration 0.3 --metrics " + file,
                       DISPLAY_TEMPERATURE_VALUES);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(file.c_str());
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\npdt_sensor_volts\{[^}]*block="CMS bar 0 offset 0x40000",sensor="12V_PEX"\} [0-9.]+\n)")))
        << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n# TYPE pdt_sensor_average_volts gauge\n)"))) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\npdt_sensor_average_volts\{[^}]*block="CMS bar 0 offset 0x40000",sensor="12V_PEX"\} [0-9.]+\n)")))
        << text;
}

}  // namespace

}  // namespace cms_average_tools_test
