// The CMS driver against PG348: Register Space (MB_RESETN_REG at +0x20000, REG_MAP at +0x28000),
// Table 2 (the REG_MAP: sensor words as unsigned 32-bit integers in mV, mA and C, STATUS_REG,
// ERROR_REG, HOST_STATUS2_REG), Table 3 (sensors per card) and Resets (release, then wait for
// REG_MAP ready). The register values are set by hand in a fake BAR; the last tests run the
// driver against the simulated CMS.
#include "sensors/cms.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <thread>

#include "sim/cms_model.hpp"
#include "test_support/text.hpp"

namespace {

using streams::SensorReading;
using streams::SensorUnit;

constexpr uint64_t MB_RESETN_REG = 0x20000;
constexpr uint64_t REG_MAP = 0x28000;
constexpr uint64_t REG_MAP_ID_REG = REG_MAP + 0x0;
constexpr uint64_t STATUS_REG = REG_MAP + 0x8;
constexpr uint64_t ERROR_REG = REG_MAP + 0xC;
constexpr uint64_t PROFILE_NAME_REG = REG_MAP + 0x14;
constexpr uint64_t HOST_STATUS2_REG = REG_MAP + 0x30C;
constexpr uint64_t POWER_GOOD_INS_REG = REG_MAP + 0x370;
// Table 2: MAX_REG of a sensor (AVG_REG +4, INS_REG +8).
constexpr uint64_t V12_PEX = REG_MAP + 0x20;
constexpr uint64_t V12_AUX = REG_MAP + 0x44;
constexpr uint64_t I12_PEX = REG_MAP + 0xC8;
constexpr uint64_t I12_AUX = REG_MAP + 0xD4;
constexpr uint64_t FPGA_TEMP = REG_MAP + 0xF8;
constexpr uint64_t FAN_TEMP = REG_MAP + 0x104;

// A CMS's 256 KiB as a table of 32-bit words; unset words read `fill`. Writing 1 to
// MB_RESETN_REG makes HOST_STATUS2_REG read ready after `polls_to_ready` more reads of it.
class FakeCms : public vfio::MmioBackend {
public:
    uint64_t size() const override { return 0x40000; }
    uint64_t read(uint64_t offset, unsigned) override {
        std::lock_guard lock(m_mutex);
        if (offset == HOST_STATUS2_REG && booting && ++polls >= polls_to_ready) {
            booting = false;
            regs[HOST_STATUS2_REG] = 1;
        }
        const auto found = regs.find(offset);
        return found == regs.end() ? fill : found->second;
    }
    void write(uint64_t offset, unsigned, uint64_t value) override {
        std::lock_guard lock(m_mutex);
        writes.emplace_back(offset, static_cast<uint32_t>(value));
        regs[offset] = static_cast<uint32_t>(value);
        if (offset == MB_RESETN_REG && value == 1 && polls_to_ready >= 0)
            booting = true;
    }
    void sensor(uint64_t max_reg, uint32_t max, uint32_t avg, uint32_t ins) {
        regs[max_reg] = max;
        regs[max_reg + 4] = avg;
        regs[max_reg + 8] = ins;
    }

    std::map<uint64_t, uint32_t> regs;
    uint32_t fill = 0;
    int polls_to_ready = 3;  // negative: never ready
    bool booting = false;
    int polls = 0;
    std::vector<std::pair<uint64_t, uint32_t>> writes;

private:
    std::mutex m_mutex;
};

// A running U200 CMS: out of reset, REG_MAP ready, "U2XX" profile.
std::shared_ptr<FakeCms> running_u200() {
    auto cms = std::make_shared<FakeCms>();
    cms->regs[MB_RESETN_REG] = 1;
    cms->regs[HOST_STATUS2_REG] = 1;
    cms->regs[REG_MAP_ID_REG] = 0x74736574;
    cms->regs[PROFILE_NAME_REG] = 0x55325858;
    cms->regs[STATUS_REG] = 1u << 28;
    return cms;
}

// A U200 CMS as after power-up: the MicroBlaze held in reset (PG348 Resets: MB_RESETN_REG reads
// 0), REG_MAP not ready; once released, ready after `polls_to_ready` polls (negative: never).
std::shared_ptr<FakeCms> u200_held_in_reset(int polls_to_ready) {
    auto cms = running_u200();
    cms->regs[MB_RESETN_REG] = 0;
    cms->regs[HOST_STATUS2_REG] = 0;
    cms->polls_to_ready = polls_to_ready;
    return cms;
}

struct Block {
    explicit Block(std::shared_ptr<vfio::MmioBackend> backend,
                   sensors::CmsOptions options = {std::chrono::milliseconds(200), std::chrono::milliseconds(1)})
        : bar(0, std::move(backend)),
          cms(sensors::make_cms(bar.window(0, 0x40000).value(), "bar 0 offset 0x40000", options)) {}
    vfio::Bar bar;
    std::unique_ptr<streams::SensorBlock> cms;
};

const SensorReading& reading(const streams::SensorSample& sample, const std::string& name) {
    const auto found = std::find_if(sample.readings.begin(), sample.readings.end(),
                                    [&](const SensorReading& r) { return r.name == name; });
    if (found == sample.readings.end())
        throw std::runtime_error("no reading " + name);
    return *found;
}

bool has(const std::vector<std::string>& lines, const std::string& part) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

TEST(Cms, ConvertsTable2UnitsToVoltsAmperesAndCelsius) {
    auto fake = running_u200();
    fake->sensor(V12_PEX, 12208, 12150, 12132);  // Table 2: 12V_PEX in mV
    fake->sensor(I12_PEX, 3100, 2500, 2345);     // 12VPEX_I_IN in mA
    fake->sensor(FPGA_TEMP, 52, 48, 47);         // FPGA_TEMP in C
    Block block(fake);
    EXPECT_EQ(block.cms->kind(), "CMS");
    EXPECT_EQ(block.cms->location(), "bar 0 offset 0x40000");
    const auto sample = block.cms->sample();
    ASSERT_TRUE(sample.ok()) << sample.error().message();
    const SensorReading& volts = reading(*sample, "12V_PEX");
    EXPECT_EQ(volts.unit, SensorUnit::Volts);
    EXPECT_DOUBLE_EQ(*volts.value, 12.132);
    EXPECT_DOUBLE_EQ(*volts.max, 12.208);
    EXPECT_FALSE(volts.min) << "the CMS keeps no minimum";
    const SensorReading& amps = reading(*sample, "12VPEX_I_IN");
    EXPECT_EQ(amps.unit, SensorUnit::Amperes);
    EXPECT_DOUBLE_EQ(*amps.value, 2.345);
    EXPECT_DOUBLE_EQ(*amps.max, 3.1);
    EXPECT_DOUBLE_EQ(*volts.average, 12.15) << "12V_PEX_AVG_REG";
    EXPECT_DOUBLE_EQ(*amps.average, 2.5);
    const SensorReading& temp = reading(*sample, "FPGA_TEMP");
    EXPECT_EQ(temp.unit, SensorUnit::Celsius);
    EXPECT_DOUBLE_EQ(*temp.value, 47.0);
    EXPECT_DOUBLE_EQ(*temp.max, 52.0);
    const SensorReading& power = reading(*sample, "12V_PEX power (computed)");
    EXPECT_EQ(power.unit, SensorUnit::Watts);
    EXPECT_NEAR(*power.value, 12.132 * 2.345, 1e-9);
    EXPECT_TRUE(fake->writes.empty()) << "a running CMS is only read";
    EXPECT_TRUE(sample->alarms.empty());
    EXPECT_TRUE(has(sample->status, "Satellite Controller Mode 1 (normal)"));
}

TEST(Cms, ReportsTheU200SensorsOfTable3) {
    Block block(running_u200());
    const auto sample = block.cms->sample();
    ASSERT_TRUE(sample.ok());
    std::vector<std::string> names;
    for (const SensorReading& r : sample->readings)
        names.push_back(r.name);
    for (const char* name : {"3V3_PEX", "12V_AUX", "VCCINT", "VCCINT_I", "DIMM_TEMP3", "SE98_TEMP2", "CAGE_TEMP1",
                             "VCCINT_TEMP", "12V_AUX power (computed)"})
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    EXPECT_EQ(std::find(names.begin(), names.end(), "HBM_TEMP1"), names.end()) << "a U280/U50/U55 sensor";
    EXPECT_EQ(names.size(), 32u) << "30 sensors and 2 computed rail powers";
}

TEST(Cms, AnUnpopulatedSensorIsMarkedNotShownAsZero) {
    auto fake = running_u200();
    fake->sensor(FPGA_TEMP, 52, 48, 47);
    Block block(fake);  // FAN_TEMP (a fan-less card) reads 0 in all three words
    const auto sample = block.cms->sample();
    ASSERT_TRUE(sample.ok());
    const SensorReading& fan = reading(*sample, "FAN_TEMP");
    EXPECT_FALSE(fan.value);
    EXPECT_EQ(fan.unreadable, "reads 0x00000000 in MAX, AVG and INS (not populated on this card)");
    EXPECT_FALSE(reading(*sample, "12V_AUX power (computed)").value) << "12V_AUX not populated either";
    EXPECT_EQ(reading(*sample, "12V_AUX power (computed)").unreadable, "needs 12V_AUX and 12V_AUX_I_IN, one of them unreadable");
}

TEST(Cms, AnOutOfRangeValueIsUnreadable) {
    auto fake = running_u200();
    fake->sensor(FPGA_TEMP, 400, 400, 400);
    fake->sensor(V12_AUX, 12000, 12000, 12000);
    fake->sensor(I12_AUX, 90000, 90000, 90000);  // 90 A at 12 V: 1080 W
    Block block(fake);
    const auto sample = block.cms->sample();
    ASSERT_TRUE(sample.ok());
    EXPECT_FALSE(reading(*sample, "FPGA_TEMP").value);
    EXPECT_EQ(reading(*sample, "FPGA_TEMP").unreadable, "reads 0x00000190, which converts to 400.000 C, outside -60..150 C");
    EXPECT_EQ(reading(*sample, "12V_AUX power (computed)").unreadable,
              "12V_AUX x 12V_AUX_I_IN computes to 1080.000 W, outside 0..500 W");
}

TEST(Cms, OtherProfilesShowOnlyTheSensorsEveryCardHas) {
    auto fake = running_u200();
    fake->regs[PROFILE_NAME_REG] = 0x55353041;  // "U50A"
    Block block(fake);
    const auto sample = block.cms->sample();
    ASSERT_TRUE(sample.ok());
    EXPECT_EQ(sample->readings.size(), 9u) << "8 sensors of every card and the 12V_PEX power";
    EXPECT_TRUE(has(sample->status, "PROFILE_NAME_REG 0x55353041 \"U50A\": not U200/U250"));
}

TEST(Cms, ReleasesTheMicroBlazeOnlyWhenHeldInResetThenWaitsForReady) {
    auto fake = u200_held_in_reset(5);
    Block block(fake);
    const auto first = block.cms->sample();
    ASSERT_TRUE(first.ok()) << first.error().message();
    ASSERT_EQ(fake->writes.size(), 1u);
    EXPECT_EQ(fake->writes[0], std::make_pair(MB_RESETN_REG, 1u)) << "the one write: MB_RESETN_REG = 1";
    EXPECT_GE(fake->polls, 5) << "HOST_STATUS2_REG polled until REG_MAP ready";
    EXPECT_TRUE(has(first->status, "MB_RESETN_REG read 0x00000000: MicroBlaze released from reset"));
    const auto second = block.cms->sample();
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(fake->writes.size(), 1u) << "a running MicroBlaze is left alone";
    EXPECT_FALSE(has(second->status, "released"));
}

TEST(Cms, AFirmwareThatNeverBecomesReadyFailsTheSample) {
    auto fake = u200_held_in_reset(-1);
    Block block(fake, {std::chrono::milliseconds(30), std::chrono::milliseconds(1)});
    const auto sample = block.cms->sample();
    ASSERT_FALSE(sample.ok());
    EXPECT_EQ(sample.error().code, ETIMEDOUT);
    EXPECT_TRUE(test_support::contains_all(
        sample.error().message(),
        {"wait for CMS REG_MAP ready bar 0 offset 0x40000",
         "HOST_STATUS2_REG reads 0x00000000 (REG_MAP ready, bit 0, clear)", "MB_RESETN_REG reads 0x00000001"}));
}

TEST(Cms, AWrongRegMapIdIsNotACms) {
    auto fake = running_u200();
    fake->regs[REG_MAP_ID_REG] = 0x12345678;
    Block block(fake);
    const auto sample = block.cms->sample();
    ASSERT_FALSE(sample.ok());
    EXPECT_EQ(sample.error().code, EIO);
    EXPECT_NE(sample.error().message().find("REG_MAP_ID_REG reads 0x12345678, not 0x74736574"), std::string::npos)
        << sample.error().message();
}

TEST(Cms, AnAllOnesBlockIsUnreadableAndNeverWritten) {
    auto fake = std::make_shared<FakeCms>();
    fake->fill = 0xffffffffu;  // undefined AXI space: nothing answers
    Block block(fake);
    const auto sample = block.cms->sample();
    ASSERT_TRUE(sample.ok()) << sample.error().message();
    ASSERT_FALSE(sample->readings.empty());
    for (const SensorReading& r : sample->readings) {
        EXPECT_FALSE(r.value) << r.name;
        if (r.name.find("computed") == std::string::npos) {
            EXPECT_EQ(r.unreadable, "reads 0xffffffff (all-ones: no block answers)") << r.name;
        }
    }
    EXPECT_TRUE(fake->writes.empty()) << "all-ones is not a MicroBlaze held in reset";
    EXPECT_TRUE(has(sample->status, "no CMS answers"));
    EXPECT_TRUE(sample->alarms.empty());
}

TEST(Cms, ErrorAndPowerBitsBecomeAlarms) {
    auto fake = running_u200();
    // ERROR_REG: 27 Satellite Controller Error, 26 Packet Error, 25:20 code 7.
    fake->regs[ERROR_REG] = (1u << 27) | (1u << 26) | (7u << 20);
    fake->regs[POWER_GOOD_INS_REG] = 1;  // bit 0: power bad
    fake->regs[STATUS_REG] = 2u << 28;
    Block block(fake);
    const auto sample = block.cms->sample();
    ASSERT_TRUE(sample.ok());
    EXPECT_EQ(sample->alarms, (std::vector<std::string>{"Satellite Controller Error 7 (SAT_COMMS_RX_BUF_OVERFLOW)",
                                                        "Packet Error", "Power Bad (POWER_GOOD_INS_REG)"}));
    EXPECT_TRUE(has(sample->status, "ERROR_REG 0x0c700000"));
    EXPECT_TRUE(has(sample->status, "Satellite Controller Mode 2 (not normal)"));
    fake->regs[ERROR_REG] = (1u << 27) | (40u << 20);
    EXPECT_EQ(block.cms->sample()->alarms.front(), "Satellite Controller Error 40 (undocumented)");
}

// The driver against the simulated CMS (sim::CmsModel, written from PG348 on its own).
TEST(Cms, DrivesTheSimulatedCms) {
    auto die = std::make_shared<sim::DieThermal>(sim::TemperatureCurve::parse("70").value(), nullptr);
    auto model = std::make_shared<sim::CmsModel>(die, sim::CmsModel::Config{std::chrono::milliseconds(20), {}});
    auto bar_backend = std::make_shared<sim::SimBar>(0x40000);
    bar_backend->add_block(0, 0x40000, model);
    Block block(bar_backend);
    const auto first = block.cms->sample();
    ASSERT_TRUE(first.ok()) << first.error().message();
    EXPECT_TRUE(has(first->status, "MicroBlaze released from reset"));
    EXPECT_DOUBLE_EQ(*reading(*first, "FPGA_TEMP").value, 70.0);
    EXPECT_LT(*reading(*first, "SE98_TEMP0").value, 70.0);
    EXPECT_DOUBLE_EQ(*reading(*first, "12V_PEX").value, 12.0);
    EXPECT_GT(*reading(*first, "12V_PEX power (computed)").value, 10.0);
    EXPECT_TRUE(first->alarms.empty());
    model->set_error_reg(1u << 26);
    const auto second = block.cms->sample();
    ASSERT_TRUE(second.ok());
    EXPECT_FALSE(has(second->status, "released"));
    EXPECT_EQ(second->alarms, std::vector<std::string>{"Packet Error"});
}

TEST(Cms, ASimulatedCmsThatNeverBootsFails) {
    auto model = std::make_shared<sim::CmsModel>(nullptr, sim::CmsModel::Config{std::chrono::milliseconds(-1), {}});
    auto bar_backend = std::make_shared<sim::SimBar>(0x40000);
    bar_backend->add_block(0, 0x40000, model);
    Block block(bar_backend, {std::chrono::milliseconds(20), std::chrono::milliseconds(1)});
    const auto sample = block.cms->sample();
    ASSERT_FALSE(sample.ok());
    EXPECT_EQ(sample.error().code, ETIMEDOUT);
}

// The raw words of a sensor, as xilinx_cms_time_averaging reads them.
TEST(Cms, ReadsASensorsMaxAvgAndInsWordsUnconverted) {
    auto fake = running_u200();
    fake->sensor(V12_PEX, 12208, 6066, 12132);
    Block block(fake);
    const auto words = sensors::read_cms_sensor_words(block.bar.window(0, 0x40000).value(), "12V_PEX");
    ASSERT_TRUE(words.ok()) << words.error().message();
    EXPECT_EQ(*words, (sensors::CmsSensorWords{12208, 6066, 12132}));
    const auto unknown = sensors::read_cms_sensor_words(block.bar.window(0, 0x40000).value(), "13V_PEX");
    ASSERT_FALSE(unknown.ok());
    EXPECT_TRUE(unknown.error().usage);
    EXPECT_TRUE(test_support::contains(unknown.error().message(), "13V_PEX")) << unknown.error().message();
}

// The simulated firmware's AVG, through the driver: half of INS at its first sample after the
// release, then closing on INS one sample period at a time.
TEST(Cms, TheSimulatedCmsAverageStartsAtHalfAndClosesOnTheReading) {
    auto die = std::make_shared<sim::DieThermal>(sim::TemperatureCurve::parse("70").value(), nullptr);
    sim::CmsModel::Config config{std::chrono::milliseconds(5), {}};
    config.sample_period = std::chrono::milliseconds(5);
    auto model = std::make_shared<sim::CmsModel>(die, config);
    auto bar_backend = std::make_shared<sim::SimBar>(0x40000);
    bar_backend->add_block(0, 0x40000, model);
    Block block(bar_backend);
    const auto first = block.cms->sample();
    ASSERT_TRUE(first.ok()) << first.error().message();
    const SensorReading& volts = reading(*first, "12V_PEX");
    ASSERT_TRUE(volts.average);
    EXPECT_LT(*volts.average, *volts.value) << "the first samples average from 0";
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto later = block.cms->sample();
    ASSERT_TRUE(later.ok());
    EXPECT_DOUBLE_EQ(*reading(*later, "12V_PEX").average, *reading(*later, "12V_PEX").value);
}

}  // namespace
