// The SYSMON driver against hand-set codes and against the sim model of the System Management
// Wizard, its slave SYSMONs included.
#include "sensors/sysmon.hpp"

#include <gtest/gtest.h>

#include <cerrno>

#include "builtin_instance.hpp"
#include "sensor_rig.hpp"
#include "sim/design_sim.hpp"
#include "sim/system_monitor_models.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace sysmon_test {

namespace {

using sensors::SysmonPrimitive;
using sensors_test::failed_with;
using sensors_test::reading;
using sensors_test::registers;
using sensors_test::Rig;

// PG185: SYSMON n's DRP registers at 0x400 + n * 0x800 + 4 * DRP address.
constexpr uint64_t drp(unsigned sysmon, unsigned address) { return 0x400 + 0x800ull * sysmon + 4ull * address; }
constexpr unsigned kTemp = 0x00, kVccint = 0x01, kVccaux = 0x02, kVccbram = 0x06, kMax = 0x20, kMin = 0x24, kFlag = 0x3F;
constexpr uint32_t kRefOnChip = 0x200;  // Flag Register REF (bit 9)
constexpr double kSupplyLsb = 3.0 / 1024;

uint64_t frame(unsigned slaves) { return sensors::kSysmonBytesPerSysmon * (1 + slaves); }

streams::SensorSample sample_of(const std::map<uint64_t, uint32_t>& values, SysmonPrimitive primitive,
                                unsigned slaves = 0) {
    Rig rig(registers(values), frame(slaves));
    auto block = sensors::make_sysmon(rig.window(frame(slaves)), slaves, primitive, "bar 0 offset 0x4000");
    auto sample = block->sample();
    EXPECT_TRUE(sample.ok()) << sample.error().message();
    return std::move(sample).value();
}

double temperature(uint32_t code10, uint32_t flag, SysmonPrimitive primitive) {
    const streams::SensorSample sample = sample_of({{drp(0, kTemp), code10 << 6}, {drp(0, kFlag), flag}}, primitive);
    EXPECT_EQ(sample.readings[0].name, "Temp");
    EXPECT_TRUE(sample.readings[0].value) << sample.readings[0].unreadable;
    return sample.readings[0].value.value_or(-1000);
}

}  // namespace

// UG580 (v1.10.1) temperature transfer functions on the 10-bit code, chosen by the primitive and
// by the Flag Register's REF bit (1: on-chip reference):
//   SYSMONE4  Equation 2-11 (on-chip)  code * 509.3140064 / 1024 - 280.2308787
//             Equation 2-9  (external) code * 507.5921310 / 1024 - 279.4265768
//   SYSMONE1  Equation 2-7  (on-chip)  code * 501.3743 / 1024 - 273.6777
//             Equation 2-5  (external) code * 502.9098 / 1024 - 273.8195
// The values below are those equations evaluated at codes 644 (284h) and 734 (2DEh).
TEST(Sysmon, TemperatureFollowsThePrimitiveAndTheReferenceTheFlagRegisterNames) {
    EXPECT_NEAR(temperature(644, kRefOnChip, SysmonPrimitive::Sysmone4), 40.0799, 1e-4);
    EXPECT_NEAR(temperature(644, 0, SysmonPrimitive::Sysmone4), 39.8013, 1e-4);
    EXPECT_NEAR(temperature(644, kRefOnChip, SysmonPrimitive::Sysmone1), 41.6397, 1e-4);
    EXPECT_NEAR(temperature(644, 0, SysmonPrimitive::Sysmone1), 42.4636, 1e-4);
    EXPECT_NEAR(temperature(734, kRefOnChip, SysmonPrimitive::Sysmone4), 84.8438, 1e-4);
    EXPECT_NEAR(temperature(734, 0, SysmonPrimitive::Sysmone4), 84.4139, 1e-4);
    EXPECT_NEAR(temperature(734, kRefOnChip, SysmonPrimitive::Sysmone1), 85.7058, 1e-4);
    EXPECT_NEAR(temperature(734, 0, SysmonPrimitive::Sysmone1), 86.6647, 1e-4);
    // 10-bit MSB-justified: the six LSBs (averaging bits) do not change the value.
    const auto sample = sample_of({{drp(0, kTemp), (644u << 6) | 0x3F}, {drp(0, kFlag), kRefOnChip}},
                                  SysmonPrimitive::Sysmone4);
    EXPECT_NEAR(*sample.readings[0].value, 40.0799, 1e-4);
    // Code 0 is -280 C: below any die, so unreadable rather than shown.
    const auto cold = sample_of({{drp(0, kFlag), kRefOnChip}}, SysmonPrimitive::Sysmone4);
    EXPECT_FALSE(cold.readings[0].value);
    EXPECT_EQ(cold.readings[0].unreadable, "reads 0x0000, which converts to -280.231 C, outside -60..150 C");
}

// Supply sensors: code * 3 V / 1024 (UG580 supply sensor transfer function), as the XADC's.
TEST(Sysmon, SuppliesAndTheirRecords) {
    const auto sample = sample_of({{drp(0, kVccint), 290u << 6}, {drp(0, kMax + 1), 296u << 6},
                                   {drp(0, kMin + 1), 285u << 6}, {drp(0, kVccaux), 614u << 6},
                                   {drp(0, kVccbram), 291u << 6}, {drp(0, kFlag), kRefOnChip}},
                                  SysmonPrimitive::Sysmone4);
    ASSERT_EQ(sample.readings.size(), 4u);
    EXPECT_DOUBLE_EQ(*reading(sample, "VCCINT").value, 290 * kSupplyLsb);
    EXPECT_DOUBLE_EQ(*reading(sample, "VCCINT").max, 296 * kSupplyLsb);
    EXPECT_DOUBLE_EQ(*reading(sample, "VCCINT").min, 285 * kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "VCCAUX").value, 1.8, kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "VCCBRAM").value, 0.85, kSupplyLsb);
    EXPECT_FALSE(reading(sample, "VCCAUX").max) << "max record 0000h: nothing recorded";
}

TEST(Sysmon, MinRecordOfAllOnesIsNotRecorded) {
    const auto sample = sample_of({{drp(0, kTemp), 664u << 6}, {drp(0, kMax), 0x0000}, {drp(0, kMin), 0xFFC0},
                                   {drp(0, kFlag), kRefOnChip}},
                                  SysmonPrimitive::Sysmone4);
    EXPECT_TRUE(sample.readings[0].value);
    EXPECT_FALSE(sample.readings[0].max);
    EXPECT_FALSE(sample.readings[0].min);
}

// PG185: slave SYSMON n answers n * 0x800 after the master; each reading says whose it is.
TEST(Sysmon, SlaveSysmonsAreReadAndNamed) {
    const auto sample = sample_of({{drp(0, kTemp), 664u << 6}, {drp(0, kFlag), kRefOnChip},
                                   {drp(1, kTemp), 644u << 6}, {drp(1, kFlag), kRefOnChip}, {drp(1, kVccint), 290u << 6},
                                   {drp(2, kTemp), 734u << 6}, {drp(2, kFlag), 0x0}, {drp(2, kVccbram), 291u << 6}},
                                  SysmonPrimitive::Sysmone4, 2);
    std::vector<std::string> names;
    for (const streams::SensorReading& r : sample.readings)
        names.push_back(r.name);
    EXPECT_EQ(names, (std::vector<std::string>{"Temp", "VCCINT", "VCCAUX", "VCCBRAM", "Slave 1 Temp", "Slave 1 VCCINT",
                                               "Slave 1 VCCAUX", "Slave 1 VCCBRAM", "Slave 2 Temp", "Slave 2 VCCINT",
                                               "Slave 2 VCCAUX", "Slave 2 VCCBRAM"}));
    EXPECT_NEAR(*reading(sample, "Temp").value, 50.0274, 1e-4);
    EXPECT_NEAR(*reading(sample, "Slave 1 Temp").value, 40.0799, 1e-4);
    EXPECT_NEAR(*reading(sample, "Slave 2 Temp").value, 84.4139, 1e-4) << "slave 2's own REF: external";
    EXPECT_DOUBLE_EQ(*reading(sample, "Slave 1 VCCINT").value, 290 * kSupplyLsb);
    EXPECT_DOUBLE_EQ(*reading(sample, "Slave 2 VCCBRAM").value, 291 * kSupplyLsb);
}

// A SYSMON whose Flag Register reads all-ones has no known REF bit, so no temperature; its
// supplies do not depend on it.
TEST(Sysmon, WithoutItsFlagRegisterASysmonHasNoTemperature) {
    const auto sample = sample_of({{drp(0, kTemp), 664u << 6}, {drp(0, kFlag), kRefOnChip},
                                   {drp(1, kTemp), 664u << 6}, {drp(1, kFlag), 0xFFFF}, {drp(1, kVccint), 290u << 6}},
                                  SysmonPrimitive::Sysmone4, 1);
    EXPECT_TRUE(reading(sample, "Temp").value);
    const streams::SensorReading& slave = reading(sample, "Slave 1 Temp");
    EXPECT_FALSE(slave.value);
    EXPECT_FALSE(slave.max || slave.min);
    EXPECT_EQ(slave.unreadable, "the Flag Register reads all-ones: its REF bit, which selects the temperature "
                                "transfer function (UG580), is unknown");
    EXPECT_TRUE(reading(sample, "Slave 1 VCCINT").value);
    EXPECT_EQ(sample.status, std::vector<std::string>{"Slave 1 Flag Register reads 0xffff (all-ones): its alarm "
                                                      "and reference bits mean nothing"});
}

TEST(Sysmon, AnAllOnesBlockHasNoReading) {
    Rig rig;  // nothing at the block's offset
    auto block = sensors::make_sysmon(rig.window(frame(2)), 2, SysmonPrimitive::Sysmone4, "bar 0 offset 0x4000");
    const streams::SensorSample sample = block->sample().value();
    ASSERT_EQ(sample.readings.size(), 12u);
    for (const streams::SensorReading& r : sample.readings) {
        EXPECT_FALSE(r.value) << r.name;
        EXPECT_FALSE(r.min || r.max || r.alarm) << r.name;
        EXPECT_EQ(r.unreadable, "reads 0xffff (all-ones: no block answers)") << r.name;
    }
    EXPECT_TRUE(sample.alarms.empty());
    EXPECT_EQ(sample.status.size(), 3u) << "one unreadable Flag Register per SYSMON";
}

// UG580 Flag Register: ALM0..ALM2 bits 0..2, OT bit 3, ALM3 bit 4; each SYSMON its own.
TEST(Sysmon, AlarmBitsFlagTheirReadingAndOtTheBlock) {
    const auto sample = sample_of({{drp(0, kTemp), 664u << 6}, {drp(0, kFlag), kRefOnChip | 0x12},
                                   {drp(1, kTemp), 815u << 6}, {drp(1, kFlag), kRefOnChip | 0x09}},
                                  SysmonPrimitive::Sysmone4, 1);
    std::vector<std::string> alarmed;
    for (const streams::SensorReading& r : sample.readings)
        if (r.alarm)
            alarmed.push_back(r.name);
    EXPECT_EQ(alarmed, (std::vector<std::string>{"VCCINT", "VCCBRAM", "Slave 1 Temp"}));
    EXPECT_EQ(sample.alarms, std::vector<std::string>{"Slave 1 OT (over-temperature)"});
}

TEST(Sysmon, ErrorsNameTheBlockAndTheDocument) {
    Rig rig(registers({}), frame(3));
    auto small = sensors::make_sysmon(rig.window(frame(1)), 2, SysmonPrimitive::Sysmone4, "bar 0 offset 0x4000");
    EXPECT_EQ(small->kind(), "SYSMON");
    EXPECT_TRUE(failed_with(
        small->sample(), ERANGE,
        "read SYSMON bar 0 offset 0x4000: Numerical result out of range (the register window is 0x1000 bytes; "
        "a SYSMON with 2 slaves spans 0x1800 (PG185))"));
    auto four = sensors::make_sysmon(rig.window(frame(3)), 4, SysmonPrimitive::Sysmone4, "bar 0 offset 0x4000");
    EXPECT_TRUE(failed_with(four->sample(), EINVAL,
                            "read SYSMON bar 0 offset 0x4000: Invalid argument (4 slave SYSMONs: sysmon_slave_sel "
                            "selects at most 3 (PG185))"));
}

// The simulated U200 (VU9P, S(2) at 0x4000): the die's temperature in the master, the slaves a
// degree and a half apart, UltraScale+ supplies.
TEST(Sysmon, ReadsTheSimulatedU200) {
    const designs::Design* u200 = sim_test::builtin_registry().find("U200_dma_ddr4");
    ASSERT_NE(u200, nullptr);
    sim::DesignInstance made = sim_test::instance("U200_dma_ddr4");
    const designs::Peripheral& p = u200->peripherals[0];
    ASSERT_EQ(p.type, designs::PeripheralType::Sysmon);
    vfio::Bar* bar = made.device->bar(p.bar).value();
    auto block = sensors::make_sysmon(bar->window(p.offset, p.frame_size()).value(), p.sysmon_slaves,
                                      SysmonPrimitive::Sysmone4, "bar 0 offset 0x4000");
    const streams::SensorSample sample = block->sample().value();
    ASSERT_EQ(sample.readings.size(), 12u);
    const double die = made.die->temperature_c();
    EXPECT_NEAR(*reading(sample, "Temp").value, die, 0.5);
    EXPECT_NEAR(*reading(sample, "Slave 1 Temp").value, die + 1.5, 0.6);
    EXPECT_NEAR(*reading(sample, "Slave 2 Temp").value, die + 3.0, 0.6);
    EXPECT_NEAR(*reading(sample, "VCCINT").value, 0.85, 2 * kSupplyLsb);
    EXPECT_NEAR(*reading(sample, "Slave 2 VCCAUX").value, 1.8, 2 * kSupplyLsb);
    EXPECT_EQ(*reading(sample, "Slave 1 Temp").max, *reading(sample, "Slave 1 Temp").value);
    EXPECT_TRUE(sample.alarms.empty());
    EXPECT_TRUE(sample.status.empty());
}

}  // namespace sysmon_test
