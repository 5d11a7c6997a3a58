#include "sim/cms_model.hpp"

#include <algorithm>
#include <cmath>

#include "model_support.hpp"

namespace sim {
namespace {

using model_support::steady_seconds;
using model_support::read_by_registers;

// One sensor of a U200/U250 (PG348 Table 3): its MAX_REG offset in the REG_MAP (AVG_REG and
// INS_REG follow at +4 and +8, Table 2) and its instantaneous value in the register's unit
// (mV, mA, C or RPM) for a die at `celsius` under `load` (0..1).
struct SensorModel {
    uint64_t max_reg;
    double (*ins)(double celsius, double load);
};

// Supplies at their nominal voltage; the 12 V inputs droop a little and their currents rise
// with the DMA load, as VCCINT's current does; board temperatures sit below the die's.
constexpr SensorModel kU200Sensors[] = {
    {0x0020, [](double, double load) { return 12000.0 - 150.0 * load; }},  // 12V_PEX
    {0x002C, [](double, double) { return 3300.0; }},                      // 3V3_PEX
    {0x0038, [](double, double) { return 3300.0; }},                      // 3V3_AUX
    {0x0044, [](double, double load) { return 12000.0 - 100.0 * load; }},  // 12V_AUX
    {0x0050, [](double, double) { return 2500.0; }},                      // DDR4_VPP_BTM
    {0x005C, [](double, double) { return 5500.0; }},                      // SYS_5V5
    {0x0068, [](double, double) { return 1200.0; }},                      // VCC1V2_TOP
    {0x0074, [](double, double) { return 1800.0; }},                      // VCC1V8
    {0x0080, [](double, double) { return 850.0; }},                       // VCC0V85
    {0x008C, [](double, double) { return 2500.0; }},                      // DDR4_VPP_TOP
    {0x0098, [](double, double) { return 900.0; }},                       // MGT0V9AVCC
    {0x00A4, [](double, double) { return 12000.0; }},                     // 12V_SW
    {0x00B0, [](double, double) { return 1200.0; }},                      // MGTAVTT
    {0x00BC, [](double, double) { return 1200.0; }},                      // VCC1V2_BTM
    {0x00C8, [](double, double load) { return 1800.0 + 3200.0 * load; }},  // 12VPEX_I_IN
    {0x00D4, [](double, double load) { return 1200.0 + 2800.0 * load; }},  // 12V_AUX_I_IN
    {0x00E0, [](double, double) { return 850.0; }},                       // VCCINT
    {0x00EC, [](double, double load) { return 9000.0 + 21000.0 * load; }},  // VCCINT_I
    {0x00F8, [](double c, double) { return c; }},                         // FPGA_TEMP
    {0x0104, [](double c, double) { return c - 12.0; }},                  // FAN_TEMP
    {0x0110, [](double c, double) { return c - 6.0; }},                   // DIMM_TEMP0
    {0x011C, [](double c, double) { return c - 7.0; }},                   // DIMM_TEMP1
    {0x0128, [](double c, double) { return c - 8.0; }},                   // DIMM_TEMP2
    {0x0134, [](double c, double) { return c - 9.0; }},                   // DIMM_TEMP3
    {0x0140, [](double c, double) { return c - 9.0; }},                   // SE98_TEMP0
    {0x014C, [](double c, double) { return c - 10.0; }},                  // SE98_TEMP1
    {0x0158, [](double c, double) { return c - 11.0; }},                  // SE98_TEMP2
    {0x0164, [](double c, double) { return 2000.0 + 40.0 * std::max(0.0, c - 38.0); }},  // FAN_SPEED
    {0x0170, [](double c, double) { return c - 10.0; }},                  // CAGE_TEMP0
    {0x017C, [](double c, double) { return c - 10.0; }},                  // CAGE_TEMP1
    {0x02CC, [](double c, double) { return c - 3.0; }},                   // VCCINT_TEMP
};

const SensorModel* find_sensor(uint64_t reg) {
    for (const SensorModel& s : kU200Sensors)
        if (reg >= s.max_reg && reg < s.max_reg + 12)
            return &s;
    return nullptr;
}

// Registers hold unsigned integers (Table 2): a value below zero reads 0.
uint32_t to_register(double value) { return value <= 0 ? 0u : static_cast<uint32_t>(std::lround(value)); }

}  // namespace

CmsModel::CmsModel(std::shared_ptr<DieThermal> die, Config config) : m_die(std::move(die)), m_config(std::move(config)) {
    if (!m_config.clock)
        m_config.clock = steady_seconds;
}

uint64_t CmsModel::read(uint64_t offset, unsigned width) {
    std::lock_guard lock(m_mutex);
    return read_by_registers(offset, width, [this](uint64_t at) { return read_locked(at); });
}

void CmsModel::write(uint64_t offset, unsigned width, uint64_t value) {
    std::lock_guard lock(m_mutex);
    if (width >= 4 && offset % 4 == 0)  // the registers are 32-bit (PG348): narrower writes are ignored
        for (unsigned word = 0; word < width / 4; ++word)
            write_locked(offset + 4 * word, static_cast<uint32_t>(value >> (32 * word)));
}

void CmsModel::reset() {
    std::lock_guard lock(m_mutex);
    m_running = false;
    m_error_reg = 0;
    m_control = 0;
    m_sensors.clear();
}

void CmsModel::set_error_reg(uint32_t value) {
    std::lock_guard lock(m_mutex);
    m_error_reg = value;
}

void CmsModel::set_power_bad(bool bad) {
    std::lock_guard lock(m_mutex);
    m_power_bad = bad;
}

bool CmsModel::ready_locked() const {
    if (!m_running || m_config.boot_delay.count() < 0)
        return false;
    return m_config.clock() - m_released_at >= std::chrono::duration<double>(m_config.boot_delay).count();
}

void CmsModel::start_firmware_locked() {
    m_running = true;
    m_released_at = m_config.clock();
    m_error_reg = 0;
    m_control = 0;
    m_sensors.clear();  // the firmware starts its MAX and AVG afresh
    m_first_tick = 0;
}

uint32_t CmsModel::read_locked(uint64_t offset) {
    if (offset == MB_RESETN_REG)
        return m_running ? 1u : 0u;
    if (offset >= REG_MAP && offset < REG_MAP + 0x2000)
        return ready_locked() ? reg_map_locked(offset - REG_MAP) : 0u;
    return 0;  // firmware memory, HOST_INTC (no interrupt pending), reserved space
}

void CmsModel::write_locked(uint64_t offset, uint32_t value) {
    if (offset == MB_RESETN_REG) {
        const bool release = (value & 1u) != 0;
        if (release && !m_running)
            start_firmware_locked();
        else if (!release)
            m_running = false;
        return;
    }
    if (offset != REG_MAP + CONTROL_REG || !ready_locked())
        return;  // the REG_MAP's other registers are read-only to the host (Table 2)
    if (value & CONTROL_RESET_MAX_AVG) {
        m_sensors.clear();
        m_first_tick = tick_locked();  // afresh from this sample
    }
    if (value & CONTROL_RESET_ERROR_REG)
        m_error_reg = 0;
    if (value & CONTROL_REBOOT_MICROBLAZE) {
        start_firmware_locked();
        return;
    }
    // The self-clearing bits read back 0 once done, which here is at once.
    m_control = value & ~(CONTROL_RESET_MAX_AVG | CONTROL_RESET_ERROR_REG);
}

uint32_t CmsModel::reg_map_locked(uint64_t offset) {
    switch (offset) {
    case REG_MAP_ID_REG: return kRegMapId;
    case FW_VERSION_REG: return kFirmwareVersion;
    case STATUS_REG: return 1u << 28;  // Satellite Controller Mode 1 (normal)
    case ERROR_REG: return m_error_reg;
    case PROFILE_NAME_REG: return kProfileU200U250;
    case CONTROL_REG: return m_control;
    case HOST_MSG_OFFSET_REG: return 0x1000;
    case HOST_MSG_ERROR_REG: return 0;
    case HOST_STATUS2_REG: return 1;  // REG_MAP ready (read only once ready)
    case POWER_GOOD_INS_REG: return m_power_bad ? 1u : 0u;
    default: return sensor_locked(offset);
    }
}

int64_t CmsModel::tick_locked() const {
    const double since_ready = m_config.clock() - m_released_at - std::chrono::duration<double>(m_config.boot_delay).count();
    const double period = std::chrono::duration<double>(std::max(m_config.sample_period, std::chrono::milliseconds(1))).count();
    return static_cast<int64_t>(std::floor(std::max(0.0, since_ready) / period));
}

uint32_t CmsModel::sensor_locked(uint64_t offset) {
    const SensorModel* sensor = find_sensor(offset);
    if (!sensor)
        return 0;  // a sensor this card does not have, or reserved space
    const int64_t tick = tick_locked();
    auto [found, fresh] = m_sensors.try_emplace(sensor->max_reg);
    SensorWords& words = found->second;
    if (fresh)
        words.last_tick = std::min(m_first_tick, tick) - 1;
    // The samples taken since the last read, each at today's die (after 64 AVG has converged).
    if (tick > words.last_tick) {
        const double celsius = m_die ? m_die->temperature_c() : 38.0;
        const double load = m_die ? m_die->load() : 0.0;
        words.ins = to_register(sensor->ins(celsius, load));
        for (int64_t n = std::max(words.last_tick + 1, tick - 63); n <= tick; ++n) {
            words.max = std::max(words.max, words.ins);
            words.avg = (words.avg + words.ins) / 2.0;
        }
        words.last_tick = tick;
    }
    switch (offset - sensor->max_reg) {
    case 0: return words.max;
    case 4: return to_register(words.avg);
    default: return words.ins;
    }
}

}  // namespace sim
