#include "sensors/health_watch.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace {

using streams::SensorReading;
using streams::SensorSample;
using streams::SensorUnit;

// A block that returns the samples a test queues, the last one again when the queue runs dry.
class ScriptedBlock : public streams::SensorBlock {
public:
    explicit ScriptedBlock(std::deque<pdt::Result<SensorSample>> samples) : m_samples(std::move(samples)) {}
    std::string kind() const override { return "XADC"; }
    std::string location() const override { return "bar 0 offset 0x3000"; }
    pdt::Result<SensorSample> sample() override {
        pdt::Result<SensorSample> next = m_samples.front();
        if (m_samples.size() > 1)
            m_samples.pop_front();
        return next;
    }

private:
    std::deque<pdt::Result<SensorSample>> m_samples;
};

SensorSample temperature(double celsius, bool alarm = false) {
    SensorReading reading;
    reading.name = "Temperature";
    reading.unit = SensorUnit::Celsius;
    reading.value = celsius;
    reading.alarm = alarm;
    SensorReading supply;
    supply.name = "VCCINT";
    supply.unit = SensorUnit::Volts;
    supply.value = 250.0;  // a supply is never taken for a temperature
    return SensorSample{{reading, supply}, {}, {}};
}

struct Rig {
    std::vector<sensors::WatchEvent> events;
    std::unique_ptr<sensors::HealthWatch> watch;
    Rig(std::deque<pdt::Result<SensorSample>> samples, std::optional<double> limit = std::nullopt) {
        std::vector<sensors::WatchedDesign> designs;
        designs.push_back({"0000:15:00.0", "TEF1001_dma_ddr3", {}});
        designs.back().blocks.push_back(std::make_unique<ScriptedBlock>(std::move(samples)));
        watch = std::make_unique<sensors::HealthWatch>(std::move(designs), sensors::HealthWatch::Options{limit, {}},
                                                       [this](const sensors::WatchEvent& e) { events.push_back(e); });
    }
};

TEST(HealthWatch, KeepsTheTemperatureNowAndTheHottestSeen) {
    Rig rig({temperature(41.0), temperature(47.5), temperature(44.25)});
    for (int i = 0; i < 3; ++i)
        rig.watch->sample_now();
    const auto t = rig.watch->temperature("0000:15:00.0");
    ASSERT_TRUE(t);
    EXPECT_DOUBLE_EQ(t->celsius, 44.25);
    EXPECT_DOUBLE_EQ(t->max_celsius, 47.5);
    EXPECT_EQ(t->sensor, "XADC Temperature");
    EXPECT_EQ(sensors::temperature_text(*t), "temperature 44.2 C (max 47.5 C)");
    EXPECT_EQ(sensors::temperature_json_fields(*t),
              ",\"temperature_c\":44.2,\"max_temperature_c\":47.5,\"temperature_sensor\":\"XADC Temperature\"");
    EXPECT_FALSE(rig.watch->temperature("0000:2d:00.0"));
    EXPECT_TRUE(rig.events.empty());
}

TEST(HealthWatch, TripsOnceWhenATemperatureCrossesTheLimitNamingTheSensor) {
    Rig rig({temperature(90.0), temperature(95.5), temperature(99.0)}, 95.0);
    rig.watch->sample_now();
    EXPECT_FALSE(rig.watch->tripped());
    rig.watch->sample_now();
    rig.watch->sample_now();
    ASSERT_TRUE(rig.watch->tripped());
    EXPECT_EQ(rig.watch->trip_reason(),
              "0000:15:00.0 TEF1001_dma_ddr3: XADC at bar 0 offset 0x3000 Temperature 95.5 C is over the temperature "
              "limit of 95 C");
    ASSERT_EQ(rig.events.size(), 1u);
    EXPECT_TRUE(rig.events[0].failure);
    EXPECT_EQ(rig.events[0].text, rig.watch->trip_reason());
}

TEST(HealthWatch, ReportsAlarmsAsTheyAreRaisedAndCleared) {
    SensorSample ot = temperature(70.0);
    ot.alarms = {"OT (over-temperature)"};
    Rig rig({temperature(60.0), temperature(86.0, true), ot, temperature(50.0)});
    for (int i = 0; i < 4; ++i)
        rig.watch->sample_now();
    std::vector<std::string> texts;
    for (const auto& e : rig.events)
        texts.push_back(e.text);
    EXPECT_EQ(texts, (std::vector<std::string>{
                         "XADC at bar 0 offset 0x3000: alarm Temperature alarm raised",
                         "XADC at bar 0 offset 0x3000: alarm OT (over-temperature) raised",
                         "XADC at bar 0 offset 0x3000: alarm Temperature alarm cleared",
                         "XADC at bar 0 offset 0x3000: alarm OT (over-temperature) cleared",
                     }));
}

TEST(HealthWatch, AnUnreadableBlockIsReportedOnceAndHasNoTemperature) {
    Rig rig({pdt::make_error("read CMS", "bar 0 offset 0x40000", ETIMEDOUT, "firmware not ready"),
            pdt::make_error("read CMS", "bar 0 offset 0x40000", ETIMEDOUT, "firmware not ready"), temperature(40.0)});
    rig.watch->sample_now();
    rig.watch->sample_now();
    EXPECT_FALSE(rig.watch->temperature("0000:15:00.0"));
    ASSERT_EQ(rig.events.size(), 1u);
    EXPECT_NE(rig.events[0].text.find("XADC at bar 0 offset 0x3000: unreadable: read CMS"), std::string::npos)
        << rig.events[0].text;
    const auto blocks = rig.watch->snapshot();
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_FALSE(blocks[0].sample);
    EXPECT_NE(blocks[0].error.find("firmware not ready"), std::string::npos);
    rig.watch->sample_now();
    EXPECT_EQ(rig.events.back().text, "XADC at bar 0 offset 0x3000: readable again");
    EXPECT_TRUE(rig.watch->temperature("0000:15:00.0"));
}

TEST(HealthWatch, AnUnreadableReadingIsNeverATemperature) {
    SensorSample sample = temperature(40.0);
    sample.readings[0].value.reset();
    sample.readings[0].unreadable = "reads 0xfff (all-ones: no block answers)";
    Rig rig({sample}, 30.0);
    rig.watch->sample_now();
    EXPECT_FALSE(rig.watch->temperature("0000:15:00.0"));
    EXPECT_FALSE(rig.watch->tripped());
}

TEST(HealthWatch, StartSamplesAtOnceAndTheThreadKeepsSampling) {
    sensors::HealthWatch::Options options;
    std::vector<sensors::WatchedDesign> designs;
    designs.push_back({"0000:15:00.0", "d", {}});
    designs.back().blocks.push_back(
        std::make_unique<ScriptedBlock>(std::deque<pdt::Result<SensorSample>>{temperature(40.0), temperature(42.0)}));
    options.interval = std::chrono::milliseconds(5);
    sensors::HealthWatch watch(std::move(designs), options, {});
    watch.start();
    ASSERT_TRUE(watch.temperature("0000:15:00.0"));
    for (int i = 0; i < 400 && watch.temperature("0000:15:00.0")->celsius < 42.0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    watch.stop();
    EXPECT_DOUBLE_EQ(watch.temperature("0000:15:00.0")->celsius, 42.0);
}

TEST(HealthWatch, ADesignWithoutSensorsStartsNothing) {
    std::vector<sensors::WatchedDesign> designs;
    designs.push_back({"0000:15:00.0", "AS02MC04_enum", {}});
    sensors::HealthWatch watch(std::move(designs), {}, {});
    EXPECT_FALSE(watch.has_sensors());
    watch.start();
    watch.stop();
    EXPECT_FALSE(watch.temperature("0000:15:00.0"));
}

}  // namespace
