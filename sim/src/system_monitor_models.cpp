#include "sim/system_monitor_models.hpp"

#include <algorithm>
#include <cmath>

#include "model_support.hpp"

namespace sim {
namespace {

using model_support::read_by_registers;

// Temperature (C) = code * gain / 2^bits - offset, the code MSB-justified in 16 bits.
struct TransferFunction {
    unsigned bits;
    double gain;
    double offset;
};

TransferFunction transfer_function(const SystemMonitorConfig& config) {
    switch (config.kind) {
    case MonitorKind::Xadc:  // UG480, temperature sensor transfer function (12-bit)
        return {12, 503.975, 273.15};
    case MonitorKind::Sysmone1:  // UG580 Equation 2-7 (on-chip reference), 2-5 (external)
        return config.on_chip_reference ? TransferFunction{10, 501.3743, 273.6777}
                                        : TransferFunction{10, 502.9098, 273.8195};
    case MonitorKind::Sysmone4:  // UG580 Equation 2-11 (on-chip reference), 2-9 (external)
        return config.on_chip_reference ? TransferFunction{10, 509.3140064, 280.2308787}
                                        : TransferFunction{10, 507.5921310, 279.4265768};
    }
    return {12, 503.975, 273.15};
}

uint16_t msb_justified(double code, unsigned bits) {
    const double full = static_cast<double>((1u << bits) - 1);
    return static_cast<uint16_t>(static_cast<unsigned>(std::clamp(std::round(code), 0.0, full)) << (16 - bits));
}

// The status registers of the on-chip sensors, their max (20h + i) and min (24h + i) records,
// and their alarm registers (UG480 Table 3-2 "Alarm Threshold Registers", UG580 Table 4-12).
struct Channel {
    unsigned status, upper, lower;
    unsigned flag_bit;     // Flag Register (3Fh): ALM0..ALM2 at bits 0..2, ALM3 at bit 4
    unsigned disable_bit;  // Configuration Register 1 (41h): ALM0..ALM2 at bits 1..3, ALM3 at bit 8
};
constexpr Channel kChannel[] = {
    {SystemMonitorModel::TEMPERATURE, 0x50, 0x54, 0, 1},  // ALM[0]
    {SystemMonitorModel::VCCINT, 0x51, 0x55, 1, 2},       // ALM[1]
    {SystemMonitorModel::VCCAUX, 0x52, 0x56, 2, 3},       // ALM[2]
    {SystemMonitorModel::VCCBRAM, 0x58, 0x5C, 4, 8},      // ALM[3]
};
constexpr unsigned kFlagOt = 3, kFlagRef = 9;
constexpr unsigned kConfig1OtDisable = 0;
// The OT upper register (53h) holds a user threshold only with 0011b in its four LSBs; otherwise
// the OT threshold is the default 125 C (UG480 and UG580 "Thermal Management").
constexpr uint16_t kOtUserThreshold = 0x3;
constexpr double kOtDefaultC = 125.0;
// How each SYSMON of an SSI part differs: a slave sits this much warmer than the one before.
constexpr double kSlaveStepC = 1.5;
// Supply droop at full DMA load (VCCINT, VCCAUX, VCCBRAM), volts.
constexpr std::array<double, 3> kFullLoadDroopV = {0.006, 0.002, 0.004};

}  // namespace

SystemMonitorModel::SystemMonitorModel(std::shared_ptr<DieThermal> die, SystemMonitorConfig config)
    : m_die(std::move(die)), m_config(config),
      m_monitors(config.kind == MonitorKind::Xadc ? 1 : 1 + std::min(config.slaves, 3u)) {
    reset();
}

uint64_t SystemMonitorModel::drp_base(unsigned instance) const {
    return m_config.kind == MonitorKind::Xadc ? 0x200 : 0x400 + kSlaveStride * instance;
}

uint16_t SystemMonitorModel::temperature_code(double celsius) const {
    const TransferFunction f = transfer_function(m_config);
    return msb_justified((celsius + f.offset) * (1u << f.bits) / f.gain, f.bits);
}

// Supply sensors: 3 V full scale (UG480 and UG580 supply sensor transfer function).
uint16_t SystemMonitorModel::supply_code(double volts) const {
    const unsigned bits = transfer_function(m_config).bits;
    return msb_justified(volts / 3.0 * (1u << bits), bits);
}

std::array<double, 3> SystemMonitorModel::nominal_supplies() const {
    switch (m_config.kind) {
    case MonitorKind::Xadc: return {1.0, 1.8, 1.0};
    case MonitorKind::Sysmone1: return {0.95, 1.8, 0.95};
    case MonitorKind::Sysmone4: return {0.85, 1.8, 0.85};
    }
    return {1.0, 1.8, 1.0};
}

// The alarm registers as the wizards initialise them (PG091 / PG185 defaults): temperature
// 85 C upper, 60 C lower; OT upper 0000h (the 125 C default), OT lower 70 C; each supply
// within 5 % of its nominal value. Configuration register 2 holds the DCLK divider.
void SystemMonitorModel::reset_control_locked(Monitor& monitor) const {
    monitor.control.fill(0);
    monitor.control[CONFIG2] = 0x1e00;
    monitor.control[TEMP_UPPER] = temperature_code(85.0);
    monitor.control[TEMP_LOWER] = temperature_code(60.0);
    monitor.control[OT_UPPER] = 0x0000;
    monitor.control[OT_LOWER] = temperature_code(70.0);
    const std::array<double, 3> nominal = nominal_supplies();
    for (unsigned s = 0; s < 3; ++s) {
        monitor.control[kChannel[s + 1].upper] = supply_code(nominal[s] * 1.05);
        monitor.control[kChannel[s + 1].lower] = supply_code(nominal[s] * 0.95);
    }
}

// The hard macro's reset clears the max records to 0000h and the min records to FFFFh (UG480
// Table 3-1, UG580 Table 3-1: recorded "since power-up or the last reset") and the alarms.
void SystemMonitorModel::reset_hard_macro_locked() {
    for (Monitor& monitor : m_monitors) {
        monitor.max.fill(0x0000);
        monitor.min.fill(0xFFFF);
        monitor.alarm.fill(false);
        monitor.ot = false;
    }
}

void SystemMonitorModel::reset() {
    std::lock_guard lock(m_mutex);
    for (Monitor& monitor : m_monitors)
        reset_control_locked(monitor);
    reset_hard_macro_locked();
    m_gier = m_ipisr = m_ipier = 0;
}

SystemMonitorModel::Conversion SystemMonitorModel::convert_locked(unsigned instance) {
    const double load = m_die->load();
    const double celsius = m_die->temperature_c() + kSlaveStepC * instance;
    const std::array<double, 3> nominal = nominal_supplies();
    Conversion now;
    now.code[0] = temperature_code(celsius);
    for (unsigned s = 0; s < 3; ++s)
        now.code[s + 1] = supply_code(nominal[s] - kFullLoadDroopV[s] * load);
    return now;
}

// UG480 / UG580 "Automatic Alarms": the temperature alarm sets above its upper threshold and
// resets only below its lower threshold; a supply alarm is active while the supply is outside
// [lower, upper]. OT sets above the OT upper threshold and resets below the OT lower one.
// A bit set in Configuration Register 1 disables its alarm.
void SystemMonitorModel::evaluate_alarms_locked(unsigned instance, const Conversion& now) {
    Monitor& m = m_monitors[instance];
    const uint16_t disabled = m.control[CONFIG1];
    for (unsigned c = 0; c < kChannels; ++c) {
        const uint16_t upper = m.control[kChannel[c].upper], lower = m.control[kChannel[c].lower];
        if (c == 0)
            m.alarm[c] = now.code[c] > upper || (m.alarm[c] && now.code[c] >= lower);
        else
            m.alarm[c] = now.code[c] > upper || now.code[c] < lower;
        if (disabled & (1u << kChannel[c].disable_bit))
            m.alarm[c] = false;
    }
    const uint16_t ot_upper = (m.control[OT_UPPER] & 0xF) == kOtUserThreshold ? (m.control[OT_UPPER] & 0xFFF0)
                                                                              : temperature_code(kOtDefaultC);
    m.ot = !(disabled & (1u << kConfig1OtDisable)) &&
           (now.code[0] > ot_upper || (m.ot && now.code[0] >= m.control[OT_LOWER]));
}

uint16_t SystemMonitorModel::flag_locked(unsigned instance) const {
    const Monitor& m = m_monitors[instance];
    uint16_t flag = m.ot ? 1u << kFlagOt : 0;
    for (unsigned c = 0; c < kChannels; ++c)
        flag |= m.alarm[c] ? 1u << kChannel[c].flag_bit : 0;
    if (m_config.on_chip_reference)
        flag |= 1u << kFlagRef;
    return flag;
}

// AOSR (PG091, PG185): bit 0 OT, bit 1 + n ALM[n], bit 8 ALM[7] (the OR of ALM[6:0]).
uint32_t SystemMonitorModel::aosr_locked() const {
    const Monitor& m = m_monitors[0];
    uint32_t aosr = m.ot ? 1u : 0;
    for (unsigned c = 0; c < kChannels; ++c)
        aosr |= m.alarm[c] ? 1u << (1 + c) : 0;
    if (aosr & 0x1Eu)
        aosr |= 1u << 8;
    return aosr;
}

uint16_t SystemMonitorModel::read_drp_locked(unsigned instance, unsigned address) {
    const Conversion now = convert_locked(instance);
    evaluate_alarms_locked(instance, now);
    Monitor& m = m_monitors[instance];
    for (unsigned c = 0; c < kChannels; ++c) {
        if (address == kChannel[c].status) {
            m.max[c] = std::max(m.max[c], now.code[c]);
            m.min[c] = std::min(m.min[c], now.code[c]);
            return now.code[c];
        }
    }
    if (address >= MAX_TEMP && address < MAX_TEMP + kChannels)
        return m.max[address - MAX_TEMP];
    if (address >= MIN_TEMP && address < MIN_TEMP + kChannels)
        return m.min[address - MIN_TEMP];
    if (address == FLAG)
        return flag_locked(instance);
    if (address >= CONFIG0)
        return m.control[address];
    return 0;  // VP/VN, VREFP, VREFN, the auxiliary inputs: nothing connected
}

uint32_t SystemMonitorModel::read32_locked(uint64_t offset) {
    const bool xadc = m_config.kind == MonitorKind::Xadc;
    const unsigned instance = xadc ? 0 : static_cast<unsigned>(offset / kSlaveStride);
    if (instance >= m_monitors.size())
        return 0;
    const uint64_t base = drp_base(instance);
    const unsigned drp_addresses = xadc ? 0x80 : 0x100;  // DADDR[6:0] (UG480), DADDR[7:0] (UG580)
    if (offset >= base && offset < base + 4ull * drp_addresses)
        return read_drp_locked(instance, static_cast<unsigned>((offset - base) / 4));
    if (instance != 0)
        return 0;
    switch (offset) {
    case AOSR: evaluate_alarms_locked(0, convert_locked(0)); return aosr_locked();
    case GIER: return m_gier;
    case IPISR: return m_ipisr;
    case IPIER: return m_ipier;
    default: return 0;  // SRR, CONVSTR, SYSMONRR are write-only; SR reads idle
    }
}

uint64_t SystemMonitorModel::read(uint64_t offset, unsigned width) {
    std::lock_guard lock(m_mutex);
    return read_by_registers(offset, width, [this](uint64_t at) { return read32_locked(at); });
}

void SystemMonitorModel::write32_locked(uint64_t offset, uint32_t value) {
    const bool xadc = m_config.kind == MonitorKind::Xadc;
    const unsigned instance = xadc ? 0 : static_cast<unsigned>(offset / kSlaveStride);
    if (instance >= m_monitors.size())
        return;
    const uint64_t base = drp_base(instance);
    const unsigned drp_addresses = xadc ? 0x80 : 0x100;
    if (offset >= base && offset < base + 4ull * drp_addresses) {
        const unsigned address = static_cast<unsigned>((offset - base) / 4);
        if (address >= CONFIG0)  // the status registers 00h..3Fh are read only
            m_monitors[instance].control[address] = static_cast<uint16_t>(value);
        return;
    }
    if (instance != 0)
        return;
    switch (offset) {
    case SRR:
        if (value == SRR_RESET) {  // resets the core and the hard macro (PG091, PG185)
            m_gier = m_ipisr = m_ipier = 0;
            reset_hard_macro_locked();
        }
        break;
    case SYSMONRR: reset_hard_macro_locked(); break;
    case GIER: m_gier = value & 0x80000000u; break;
    case IPISR: m_ipisr ^= value & 0x3FFFu; break;  // toggle on write
    case IPIER: m_ipier = value & 0x3FFFu; break;
    default: break;
    }
}

void SystemMonitorModel::write(uint64_t offset, unsigned width, uint64_t value) {
    if (width != 4 || (offset & 3))
        return;  // 32-bit AXI4-Lite registers: narrower writes are not decoded
    std::lock_guard lock(m_mutex);
    write32_locked(offset, static_cast<uint32_t>(value));
}

std::shared_ptr<SystemMonitorModel> make_xadc_block(std::shared_ptr<DieThermal> die) {
    return std::make_shared<SystemMonitorModel>(std::move(die), SystemMonitorConfig{MonitorKind::Xadc, 0, true});
}

std::shared_ptr<SystemMonitorModel> make_sysmon_block(std::shared_ptr<DieThermal> die,
                                                      designs::SysmonPrimitive primitive, unsigned slaves) {
    const MonitorKind kind =
        primitive == designs::SysmonPrimitive::Sysmone1 ? MonitorKind::Sysmone1 : MonitorKind::Sysmone4;
    return std::make_shared<SystemMonitorModel>(std::move(die), SystemMonitorConfig{kind, slaves, true});
}

}  // namespace sim
