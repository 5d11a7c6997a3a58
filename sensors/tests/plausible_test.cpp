#include "sensors/plausible.hpp"

#include <gtest/gtest.h>

namespace {

using streams::SensorUnit;

TEST(Plausible, AValueInRangeIsAMeasurement) {
    const auto reading = sensors::checked_reading("Temp", SensorUnit::Celsius, 0x9a3, 12, 30.5);
    ASSERT_TRUE(reading.value);
    EXPECT_DOUBLE_EQ(*reading.value, 30.5);
    EXPECT_EQ(reading.unreadable, "");
}

TEST(Plausible, AllOnesIsUnreadable) {
    const auto reading = sensors::checked_reading("Temp", SensorUnit::Celsius, 0xfff, 12, 230.7);
    EXPECT_FALSE(reading.value);
    EXPECT_EQ(reading.unreadable, "reads 0xfff (all-ones: no block answers)");
}

TEST(Plausible, OutOfItsPhysicalRangeIsUnreadable) {
    const auto reading = sensors::checked_reading("VCCINT", SensorUnit::Volts, 0x1234, 16, 27.5);
    EXPECT_FALSE(reading.value);
    EXPECT_EQ(reading.unreadable, "reads 0x1234, which converts to 27.500 V, outside 0..15 V");
    const auto cold = sensors::checked_reading("Temp", SensorUnit::Celsius, 0x0, 12, -273.15);
    EXPECT_FALSE(cold.value);
    EXPECT_NE(cold.unreadable.find("outside -60..150 C"), std::string::npos) << cold.unreadable;
}

TEST(Plausible, AnExtremeNotYetRecordedHasNoValue) {
    EXPECT_FALSE(sensors::checked_extreme(SensorUnit::Celsius, 0x0, 16, -280.0, 0x0));
    EXPECT_FALSE(sensors::checked_extreme(SensorUnit::Celsius, 0xffff, 16, 230.0, 0xffff));
    EXPECT_EQ(sensors::checked_extreme(SensorUnit::Volts, 0x5555, 16, 1.0, 0xffff), 1.0);
}

}  // namespace
