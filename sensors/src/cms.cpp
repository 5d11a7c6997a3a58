#include "sensors/cms.hpp"

#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "base/format.hpp"
#include "sensors/plausible.hpp"

namespace sensors {
namespace {

using streams::SensorUnit;
using pdt::format;

// PG348 Register Space: offsets from the CMS base.
constexpr uint64_t MB_RESETN_REG = 0x020000;
constexpr uint32_t MB_RESETN = 1u << 0;  // active-low MicroBlaze reset: 0 holds it in reset
constexpr uint64_t REG_MAP = 0x028000;
// PG348 Table 2, the REG_MAP: offsets from REG_MAP.
constexpr uint64_t REG_MAP_ID_REG = 0x0000;
constexpr uint64_t FW_VERSION_REG = 0x0004;
constexpr uint64_t STATUS_REG = 0x0008;
constexpr uint64_t ERROR_REG = 0x000C;
constexpr uint64_t PROFILE_NAME_REG = 0x0014;
constexpr uint64_t HOST_STATUS2_REG = 0x030C;
constexpr uint32_t REG_MAP_READY = 1u << 0;
constexpr uint64_t POWER_GOOD_INS_REG = 0x0370;
constexpr uint32_t POWER_BAD = 1u << 0;  // 0: power good, 1: power bad
constexpr uint32_t kRegMapId = 0x74736574;
constexpr uint32_t kProfileU200U250 = 0x55325858;  // "U2XX"
constexpr uint32_t kAllOnes = 0xffffffffu;
// ERROR_REG fields.
constexpr uint32_t SAT_CTRL_ERR = 1u << 27;  // Satellite Controller Error
constexpr uint32_t PKT_ERROR = 1u << 26;     // Packet Error
constexpr unsigned SAT_CTRL_ERR_CODE_SHIFT = 20;  // bits 25:20
constexpr uint32_t SAT_CTRL_ERR_CODE_MASK = 0x3f;

// Each sensor's three words of Table 2 (<sensor>_MAX_REG, _AVG_REG, _INS_REG), from its MAX_REG.
constexpr uint64_t MAX_REG = 0x0;
constexpr uint64_t AVG_REG = 0x4;
constexpr uint64_t INS_REG = 0x8;

// A sensor of Table 2: MAX_REG at max_reg, AVG_REG at +4, INS_REG at +8, unsigned integers in
// mV, mA (milli: true) or C. every_card: Table 3 gives it every Alveo card; the rest are the
// U200/U250 profile's.
struct Sensor {
    const char* name;
    uint64_t max_reg;
    SensorUnit unit;
    bool every_card;
};
constexpr Sensor kSensors[] = {
    {"12V_PEX", 0x0020, SensorUnit::Volts, true},       {"3V3_PEX", 0x002C, SensorUnit::Volts, false},
    {"3V3_AUX", 0x0038, SensorUnit::Volts, false},      {"12V_AUX", 0x0044, SensorUnit::Volts, false},
    {"DDR4_VPP_BTM", 0x0050, SensorUnit::Volts, false}, {"SYS_5V5", 0x005C, SensorUnit::Volts, false},
    {"VCC1V2_TOP", 0x0068, SensorUnit::Volts, false},   {"VCC1V8", 0x0074, SensorUnit::Volts, true},
    {"VCC0V85", 0x0080, SensorUnit::Volts, false},      {"DDR4_VPP_TOP", 0x008C, SensorUnit::Volts, false},
    {"MGT0V9AVCC", 0x0098, SensorUnit::Volts, false},   {"12V_SW", 0x00A4, SensorUnit::Volts, false},
    {"MGTAVTT", 0x00B0, SensorUnit::Volts, false},      {"VCC1V2_BTM", 0x00BC, SensorUnit::Volts, false},
    {"12VPEX_I_IN", 0x00C8, SensorUnit::Amperes, true}, {"12V_AUX_I_IN", 0x00D4, SensorUnit::Amperes, false},
    {"VCCINT", 0x00E0, SensorUnit::Volts, true},        {"VCCINT_I", 0x00EC, SensorUnit::Amperes, true},
    {"FPGA_TEMP", 0x00F8, SensorUnit::Celsius, true},   {"FAN_TEMP", 0x0104, SensorUnit::Celsius, false},
    {"DIMM_TEMP0", 0x0110, SensorUnit::Celsius, false}, {"DIMM_TEMP1", 0x011C, SensorUnit::Celsius, false},
    {"DIMM_TEMP2", 0x0128, SensorUnit::Celsius, false}, {"DIMM_TEMP3", 0x0134, SensorUnit::Celsius, false},
    {"SE98_TEMP0", 0x0140, SensorUnit::Celsius, true},  {"SE98_TEMP1", 0x014C, SensorUnit::Celsius, true},
    {"SE98_TEMP2", 0x0158, SensorUnit::Celsius, false}, {"CAGE_TEMP0", 0x0170, SensorUnit::Celsius, false},
    {"CAGE_TEMP1", 0x017C, SensorUnit::Celsius, false}, {"VCCINT_TEMP", 0x02CC, SensorUnit::Celsius, false},
};

// The 12 V rails whose power is computed as V x I (by reading name).
struct Rail {
    const char* power;
    const char* volts;
    const char* amps;
};
constexpr Rail kRails[] = {{"12V_PEX power (computed)", "12V_PEX", "12VPEX_I_IN"},
                           {"12V_AUX power (computed)", "12V_AUX", "12V_AUX_I_IN"}};

// ERROR_REG bits 25:20, the Satellite Controller Error Code.
const char* sat_ctrl_error_name(uint32_t code) {
    static const char* const kNames[] = {"none",
                                         "SAT_COMMS_CHKSUM_ERR",
                                         "SAT_COMMS_EOP_ERR",
                                         "SAT_COMMS_SOP_ERR",
                                         "SAT_COMMS_ESQ_SEQ_ERR",
                                         "SAT_COMMS_BAD_MSG_ID",
                                         "SAT_COMMS_BAD_VERSION",
                                         "SAT_COMMS_RX_BUF_OVERFLOW",
                                         "SAT_COMMS_BAD_SENSOR_ID",
                                         "SAT_COMMS_NS_MSG_ID",
                                         "SAT_COMMS_SC_FUN_ERR",
                                         "SAT_COMMS_FAIL_TO_EN_BSL"};
    return code < std::size(kNames) ? kNames[code] : "undocumented";
}

// PROFILE_NAME_REG holds four ASCII characters, first in bits 31:24.
std::string profile_text(uint32_t profile) {
    std::string text;
    for (int shift = 24; shift >= 0; shift -= 8) {
        const char c = static_cast<char>((profile >> shift) & 0xff);
        text += (c >= 0x20 && c < 0x7f) ? c : '.';
    }
    return text;
}

double from_register(SensorUnit unit, uint32_t raw) {
    return unit == SensorUnit::Celsius ? static_cast<double>(raw) : static_cast<double>(raw) / 1000.0;
}

class Cms : public streams::SensorBlock {
public:
    Cms(vfio::RegisterWindow window, std::string location, CmsOptions options)
        : m_window(std::move(window)), m_location(std::move(location)), m_options(options) {}

    std::string kind() const override { return "CMS"; }
    std::string location() const override { return m_location; }
    pdt::Result<streams::SensorSample> sample() override;

private:
    uint32_t reg_map(uint64_t offset) const { return m_window.read32(REG_MAP + offset); }
    void start_firmware(streams::SensorSample& out);
    pdt::Result<void> wait_ready() const;
    streams::SensorReading read_sensor(const Sensor& sensor) const;
    void add_rail_powers(streams::SensorSample& out) const;
    void decode_status(streams::SensorSample& out) const;

    vfio::RegisterWindow m_window;
    std::string m_location;
    CmsOptions m_options;
};

// PG348 Resets: after power-up or aresetn_ctrl MB_RESETN_REG is 0, the MicroBlaze held in reset;
// the host writes 1 to start the CMS firmware. Written only when it reads held in reset (an
// all-ones read is no CMS: nothing is written then).
void Cms::start_firmware(streams::SensorSample& out) {
    const uint32_t resetn = m_window.read32(MB_RESETN_REG);
    if (resetn == kAllOnes || (resetn & MB_RESETN) != 0)
        return;
    m_window.write32(MB_RESETN_REG, MB_RESETN);
    out.status.push_back(format("MB_RESETN_REG read 0x%08x: MicroBlaze released from reset, CMS firmware started "
                                "(MAX and AVG start afresh)",
                                resetn));
}

// PG348 Resets: wait for REG_MAP ready in HOST_STATUS2_REG before reading any sensor.
pdt::Result<void> Cms::wait_ready() const {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const uint32_t status2 = reg_map(HOST_STATUS2_REG);
        if (status2 & REG_MAP_READY)
            return {};
        const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
        if (waited >= m_options.ready_timeout)
            return pdt::make_error(
                "wait for CMS REG_MAP ready", m_location, ETIMEDOUT,
                format("HOST_STATUS2_REG reads 0x%08x (REG_MAP ready, bit 0, clear) after %lld ms; MB_RESETN_REG "
                       "reads 0x%08x: the CMS firmware did not start (PG348 Resets)",
                       status2, static_cast<long long>(waited.count()), m_window.read32(MB_RESETN_REG)));
        std::this_thread::sleep_for(m_options.poll_interval);
    }
}

streams::SensorReading Cms::read_sensor(const Sensor& sensor) const {
    const uint32_t max = reg_map(sensor.max_reg + MAX_REG);
    const uint32_t avg = reg_map(sensor.max_reg + AVG_REG);
    const uint32_t ins = reg_map(sensor.max_reg + INS_REG);
    streams::SensorReading reading = checked_reading(sensor.name, sensor.unit, ins, 32, from_register(sensor.unit, ins));
    if (max == 0 && avg == 0 && ins == 0) {  // a sensor this card does not populate
        reading.value.reset();
        reading.unreadable = "reads 0x00000000 in MAX, AVG and INS (not populated on this card)";
        return reading;
    }
    if (reading.value) {
        reading.max = checked_extreme(sensor.unit, max, 32, from_register(sensor.unit, max), 0);
        reading.average = checked_extreme(sensor.unit, avg, 32, from_register(sensor.unit, avg), 0);
    }
    return reading;
}

// V x I of each 12 V rail the card reports: PG348 has a power register (PEX_12V_POWER) for
// the U50 only (Table 3).
void Cms::add_rail_powers(streams::SensorSample& out) const {
    auto find = [&](const char* name) -> const streams::SensorReading* {
        for (const streams::SensorReading& r : out.readings)
            if (r.name == name)
                return &r;
        return nullptr;
    };
    std::vector<streams::SensorReading> powers;
    for (const Rail& rail : kRails) {
        const streams::SensorReading* volts = find(rail.volts);
        const streams::SensorReading* amps = find(rail.amps);
        if (!volts || !amps)
            continue;
        streams::SensorReading power;
        power.name = rail.power;
        power.unit = SensorUnit::Watts;
        if (volts->value && amps->value) {
            const double watts = *volts->value * *amps->value;
            power = checked_reading(rail.power, SensorUnit::Watts, 0, 32, watts);
            const PhysicalRange range = physical_range(SensorUnit::Watts);
            if (!power.value)
                power.unreadable = format("%s x %s computes to %.3f W, outside %g..%g W", rail.volts, rail.amps,
                                          watts, range.low, range.high);
        } else {
            power.unreadable = format("needs %s and %s, one of them unreadable", rail.volts, rail.amps);
        }
        powers.push_back(std::move(power));
    }
    out.readings.insert(out.readings.end(), powers.begin(), powers.end());
}

// STATUS_REG, ERROR_REG and POWER_GOOD_INS_REG (Table 2) as status lines and alarms.
void Cms::decode_status(streams::SensorSample& out) const {
    out.status.push_back(format("FW_VERSION_REG 0x%08x", reg_map(FW_VERSION_REG)));
    const uint32_t status = reg_map(STATUS_REG);
    const uint32_t mode = status >> 28;
    out.status.push_back(format("STATUS_REG 0x%08x: Satellite Controller Mode %u (%s), Comms Version %u", status, mode,
                                mode == 1 ? "normal" : "not normal", (status >> 24) & 0xf));
    const uint32_t error = reg_map(ERROR_REG);
    if (error != 0)
        out.status.push_back(format("ERROR_REG 0x%08x", error));
    if (error & SAT_CTRL_ERR) {
        const uint32_t code = (error >> SAT_CTRL_ERR_CODE_SHIFT) & SAT_CTRL_ERR_CODE_MASK;
        out.alarms.push_back(format("Satellite Controller Error %u (%s)", code, sat_ctrl_error_name(code)));
    }
    if (error & PKT_ERROR)
        out.alarms.push_back("Packet Error");
    if (reg_map(POWER_GOOD_INS_REG) & POWER_BAD)
        out.alarms.push_back("Power Bad (POWER_GOOD_INS_REG)");
}

pdt::Result<streams::SensorSample> Cms::sample() {
    streams::SensorSample out;
    start_firmware(out);
    PDT_CHECK(wait_ready());
    const uint32_t id = reg_map(REG_MAP_ID_REG);
    const bool absent = id == kAllOnes;
    if (!absent && id != kRegMapId)
        return pdt::make_error("read CMS REG_MAP", m_location, EIO,
                               format("REG_MAP_ID_REG reads 0x%08x, not 0x%08x (PG348 Table 2): not a CMS", id,
                                      kRegMapId));
    const uint32_t profile = reg_map(PROFILE_NAME_REG);
    const bool u200_u250 = profile == kProfileU200U250;
    if (absent)
        out.status.push_back("REG_MAP_ID_REG reads 0xffffffff (all-ones): no CMS answers");
    else if (!u200_u250)
        out.status.push_back(format("PROFILE_NAME_REG 0x%08x \"%s\": not U200/U250, showing only the sensors PG348 "
                                    "Table 3 gives every card",
                                    profile, profile_text(profile).c_str()));
    for (const Sensor& sensor : kSensors)
        if (sensor.every_card || u200_u250)
            out.readings.push_back(read_sensor(sensor));
    add_rail_powers(out);
    if (!absent)
        decode_status(out);
    return out;
}

}  // namespace

pdt::Result<CmsSensorWords> read_cms_sensor_words(const vfio::RegisterWindow& window, const std::string& sensor) {
    for (const Sensor& s : kSensors)
        if (sensor == s.name)
            return CmsSensorWords{window.read32(REG_MAP + s.max_reg + MAX_REG), window.read32(REG_MAP + s.max_reg + AVG_REG),
                                  window.read32(REG_MAP + s.max_reg + INS_REG)};
    return pdt::usage_error("read CMS sensor", sensor, "not a sensor of PG348 Table 2 the driver knows");
}

std::unique_ptr<streams::SensorBlock> make_cms(vfio::RegisterWindow window, std::string location) {
    return make_cms(std::move(window), std::move(location), CmsOptions{});
}

std::unique_ptr<streams::SensorBlock> make_cms(vfio::RegisterWindow window, std::string location, CmsOptions options) {
    return std::make_unique<Cms>(std::move(window), std::move(location), options);
}

}  // namespace sensors
