// The XADC driver against hand-set codes (the documents' worked values) and against the sim
// model of the XADC Wizard.
#include "sensors/xadc.hpp"

#include <gtest/gtest.h>

#include <cerrno>

#include "sensor_rig.hpp"
#include "sim/system_monitor_models.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace xadc_test {

namespace {

using sensors_test::failed_with;
using sensors_test::reading;
using sensors_test::registers;
using sensors_test::Rig;
using streams::SensorUnit;

// PG091: the DRP registers at 0x200 + 4 * DRP address; AOSR at 0x08.
constexpr uint64_t kTemp = 0x200, kVccint = 0x204, kVccaux = 0x208, kVccbram = 0x218;
constexpr uint64_t kMax = 0x280, kMin = 0x290, kFlag = 0x2FC, kAosr = 0x08;
// One LSB of the 12-bit code: 503.975 / 4096 C and 3 / 4096 V (UG480 Figures 2-9 and 2-10).
constexpr double kTempLsb = 503.975 / 4096, kSupplyLsb = 3.0 / 4096;

streams::SensorSample sample_of(const std::map<uint64_t, uint32_t>& values) {
    Rig rig(registers(values), sensors::kXadcFrameBytes);
    auto block = sensors::make_xadc(rig.window(sensors::kXadcFrameBytes), "bar 0 offset 0x4000");
    auto sample = block->sample();
    EXPECT_TRUE(sample.ok()) << sample.error().message();
    return std::move(sample).value();
}

}  // namespace

// Xilinx's XADC instantiation template (the UG953 XADC language template that points to UG480)
// states its alarm limits as codes with their values: INIT_50 B5EDh "Temp upper alarm trigger
// 85 C", INIT_54 A93Ah "Temp lower alarm reset 60 C", INIT_53 CA33h "OT upper alarm limit 125 C
// w/ automatic shutdown", INIT_57 AE4Eh "OT lower alarm reset 70 C", INIT_51/58 5999h "upper
// alarm limit 1.05V", INIT_55/5C 5111h "lower alarm limit 0.95V", INIT_52 A147h "Vccaux upper
// alarm limit 1.89V", INIT_56 91EBh "Vccaux lower alarm limit 1.71V". Each converts, by UG480's
// transfer functions on the 12 MSBs, to its stated value within the stated precision.
TEST(Xadc, ConvertsTheDocumentedCodesToTheirStatedValues) {
    const streams::SensorSample sample = sample_of({
        {kTemp, 0xB5ED}, {kMax, 0xCA33}, {kMin, 0xA93A},                       // 85 C, 125 C, 60 C
        {kVccint, 0x5999}, {kMax + 4, 0x5999}, {kMin + 4, 0x5111},             // 1.05 V, 0.95 V
        {kVccaux, 0xA147}, {kMax + 8, 0xA147}, {kMin + 8, 0x91EB},             // 1.89 V, 1.71 V
        {kVccbram, 0x5111}, {kMax + 12, 0x5999}, {kMin + 12, 0x5111},          // 0.95 V, 1.05 V
        {kFlag, 0x0200}});                                                      // REF: no alarm
    ASSERT_EQ(sample.readings.size(), 4u);
    const streams::SensorReading& temp = reading(sample, "Temp");
    EXPECT_EQ(temp.unit, SensorUnit::Celsius);
    ASSERT_TRUE(temp.value && temp.max && temp.min) << temp.unreadable;
    EXPECT_NEAR(*temp.value, 85.0, kTempLsb);
    EXPECT_NEAR(*temp.max, 125.0, kTempLsb);
    EXPECT_NEAR(*temp.min, 60.0, kTempLsb);
    for (const char* name : {"VCCINT", "VCCAUX", "VCCBRAM"})
        EXPECT_EQ(reading(sample, name).unit, SensorUnit::Volts) << name;
    EXPECT_NEAR(*reading(sample, "VCCINT").value, 1.05, kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "VCCINT").max, 1.05, kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "VCCINT").min, 0.95, kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "VCCAUX").value, 1.89, kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "VCCAUX").min, 1.71, kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "VCCBRAM").value, 0.95, kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "VCCBRAM").max, 1.05, kSupplyLsb);
    for (const streams::SensorReading& r : sample.readings)
        EXPECT_FALSE(r.alarm) << r.name;
    EXPECT_TRUE(sample.alarms.empty());
    EXPECT_TRUE(sample.status.empty());
    // The 12 MSBs only: the four LSBs of the status register do not change the value.
    EXPECT_EQ(*sample_of({{kTemp, 0xB5E0}}).readings[0].value, *temp.value);
}

// An unconnected block (undefined AXI space reads all-ones) is never a temperature.
TEST(Xadc, AnAllOnesBlockHasNoReading) {
    Rig rig;  // nothing at the block's offset
    auto block = sensors::make_xadc(rig.window(sensors::kXadcFrameBytes), "bar 0 offset 0x4000");
    const streams::SensorSample sample = block->sample().value();
    ASSERT_EQ(sample.readings.size(), 4u);
    for (const streams::SensorReading& r : sample.readings) {
        EXPECT_FALSE(r.value) << r.name;
        EXPECT_FALSE(r.min || r.max) << r.name;
        EXPECT_FALSE(r.alarm) << r.name;
        EXPECT_EQ(r.unreadable, "reads 0xffff (all-ones: no block answers)") << r.name;
    }
    EXPECT_TRUE(sample.alarms.empty()) << "an all-ones Flag Register and AOSR raise nothing";
    EXPECT_EQ(sample.status, (std::vector<std::string>{
                                 "Flag Register reads 0xffff (all-ones): its alarm and reference bits mean nothing",
                                 "AOSR reads 0xffffffff (all-ones): its alarm bits mean nothing"}));
}

// UG480 Table 3-1: the max records start at 0000h and the min records at FFFFh.
TEST(Xadc, MaxAndMinNotYetRecordedHaveNoValue) {
    const streams::SensorSample sample = sample_of({{kTemp, 0x9A30}, {kMax, 0x0000}, {kMin, 0xFFFF},
                                                    {kVccint, 0x5550}, {kMax + 4, 0x5560}, {kMin + 4, 0xFFFF}});
    const streams::SensorReading& temp = reading(sample, "Temp");
    EXPECT_TRUE(temp.value);
    EXPECT_FALSE(temp.max);
    EXPECT_FALSE(temp.min);
    EXPECT_NEAR(*reading(sample, "VCCINT").max, 0x556 * kSupplyLsb, 1e-9);
    EXPECT_FALSE(reading(sample, "VCCINT").min);
}

// The Flag Register (UG480: ALM0..ALM2 bits 0..2, OT bit 3, ALM3 bit 4) and the AOSR (PG091:
// OT bit 0, ALM[n] bit 1 + n) each raise the alarms.
TEST(Xadc, AlarmBitsFlagTheirReadingAndOtTheBlock) {
    auto alarmed = [](const streams::SensorSample& sample) {
        std::string names;
        for (const streams::SensorReading& r : sample.readings)
            names += r.alarm ? r.name + " " : "";
        return names;
    };
    const std::map<uint64_t, uint32_t> idle = {{kTemp, 0x9A30}, {kVccint, 0x5550}, {kVccaux, 0x9990}, {kVccbram, 0x5550}};
    auto with = [&](uint64_t offset, uint32_t value) {
        auto values = idle;
        values[offset] = value;
        return sample_of(values);
    };
    EXPECT_EQ(alarmed(sample_of(idle)), "");
    EXPECT_EQ(alarmed(with(kFlag, 0x0001)), "Temp ");
    EXPECT_EQ(alarmed(with(kFlag, 0x0006)), "VCCINT VCCAUX ");
    EXPECT_EQ(alarmed(with(kFlag, 0x0010)), "VCCBRAM ");
    EXPECT_EQ(alarmed(with(kAosr, 0x0104)), "VCCINT ") << "AOSR ALM[1] (and ALM[7], the OR)";
    EXPECT_EQ(alarmed(with(kAosr, 0x0110)), "VCCBRAM ");
    EXPECT_TRUE(with(kFlag, 0x0001).alarms.empty());
    EXPECT_EQ(with(kFlag, 0x0008).alarms, std::vector<std::string>{"OT (over-temperature)"});
    EXPECT_EQ(with(kAosr, 0x0001).alarms, std::vector<std::string>{"OT (over-temperature)"});
}

TEST(Xadc, AWindowSmallerThanTheWizardsMapCannotBeRead) {
    Rig rig(registers({}), sensors::kXadcFrameBytes);
    auto block = sensors::make_xadc(rig.window(0x100), "bar 0 offset 0x4000");
    EXPECT_EQ(block->kind(), "XADC");
    EXPECT_EQ(block->location(), "bar 0 offset 0x4000");
    EXPECT_TRUE(failed_with(block->sample(), ERANGE,
                            "read XADC bar 0 offset 0x4000: Numerical result out of range (the register window is "
                            "0x100 bytes; the XADC Wizard's registers span 0x400 (PG091))"));
}

// Through the model of the XADC Wizard: the die's curve, the records, the alarms.
TEST(Xadc, ReadsTheSimulatedXadcWizard) {
    double now = 0;
    auto die = std::make_shared<sim::DieThermal>(sim::TemperatureCurve::parse("45,90@10,130@20").value(), nullptr,
                                                 [&] { return now; });
    Rig rig(sim::make_xadc_block(die), sensors::kXadcFrameBytes);
    auto block = sensors::make_xadc(rig.window(sensors::kXadcFrameBytes), "bar 0 offset 0x4000");
    streams::SensorSample sample = block->sample().value();
    EXPECT_NEAR(*reading(sample, "Temp").value, 45.0, 2 * kTempLsb);
    EXPECT_NEAR(*reading(sample, "VCCINT").value, 1.0, 2 * kSupplyLsb) << "7-series VCCINT";
    EXPECT_NEAR(*reading(sample, "VCCAUX").value, 1.8, 2 * kSupplyLsb);
    EXPECT_EQ(*reading(sample, "Temp").max, *reading(sample, "Temp").value) << "recorded by the read";
    EXPECT_FALSE(reading(sample, "Temp").alarm);
    now = 10;  // 90 C: above the 85 C upper threshold
    sample = block->sample().value();
    EXPECT_TRUE(reading(sample, "Temp").alarm);
    EXPECT_TRUE(sample.alarms.empty());
    EXPECT_NEAR(*reading(sample, "Temp").min, 45.0, 2 * kTempLsb);
    EXPECT_NEAR(*reading(sample, "Temp").max, 90.0, 2 * kTempLsb);
    now = 20;  // 130 C: over-temperature
    sample = block->sample().value();
    EXPECT_EQ(sample.alarms, std::vector<std::string>{"OT (over-temperature)"});
    EXPECT_NEAR(*reading(sample, "Temp").value, 130.0, 2 * kTempLsb);
}

}  // namespace xadc_test
