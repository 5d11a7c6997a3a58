// The sensor report's average column and JSON member (sensors/report.hpp): shown after the other
// columns only for blocks that keep an average (a CMS's AVG), absent from the others' lines.
#include "sensors/report.hpp"

#include <gtest/gtest.h>

#include "test_support/text.hpp"

namespace report_average_test {

namespace {

class NamedBlock : public streams::SensorBlock {
public:
    std::string kind() const override { return "CMS"; }
    std::string location() const override { return "bar 0 offset 0x40000"; }
    pdt::Result<streams::SensorSample> sample() override { return streams::SensorSample{}; }
};

streams::SensorSample volts_sample(std::optional<double> average) {
    streams::SensorReading reading;
    reading.name = "12V_PEX";
    reading.unit = streams::SensorUnit::Volts;
    reading.value = 12.0;
    reading.max = 12.2;
    reading.average = average;
    return streams::SensorSample{{reading}, {}, {}};
}

const sensors::DesignPlace kPlace{"U200_dma_ddr4", "0000:15:00.0", 41, ""};

TEST(SensorReportAverage, AnAverageIsAColumnAfterMax) {
    NamedBlock block;
    const std::string text = sensors::format_sample_text(kPlace, block, volts_sample(6.0));
    EXPECT_TRUE(test_support::contains(text, "  Sensor                 Measurement   Min           Max           Average\n"))
        << text;
    EXPECT_TRUE(test_support::contains(text, "  12V_PEX                  12.0000 V                   12.2000 V      6.0000 V\n"))
        << text;
    EXPECT_TRUE(test_support::contains(sensors::format_sample_json(kPlace, block, volts_sample(6.0)),
                                       ",\"alarm\":false,\"average\":6.0000}"));
}

TEST(SensorReportAverage, ABlockWithoutAveragesKeepsItsColumns) {
    NamedBlock block;
    const std::string text = sensors::format_sample_text(kPlace, block, volts_sample(std::nullopt));
    EXPECT_TRUE(test_support::contains(text, "  Sensor                 Measurement   Min           Max\n")) << text;
    EXPECT_FALSE(test_support::contains(text, "Average")) << text;
    EXPECT_FALSE(test_support::contains(sensors::format_sample_json(kPlace, block, volts_sample(std::nullopt)),
                                        "average"));
}

}  // namespace

}  // namespace report_average_test
