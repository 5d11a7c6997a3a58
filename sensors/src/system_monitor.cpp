#include "system_monitor.hpp"

#include "base/format.hpp"
#include "sensors/plausible.hpp"

namespace sensors::detail {
namespace {

using streams::SensorUnit;

// The on-chip sensors (UG480 Table 3-1, UG580 Table 3-1): the status register, its max record at
// 20h + i and min record at 24h + i, its alarm ALM[i] in the Flag Register (UG480 and UG580 Flag
// Register: ALM0..ALM2 at bits 0..2, ALM3 at bit 4) and in the AOSR (PG091: ALM[i] at bit 1 + i).
struct Channel {
    const char* name;
    SensorUnit unit;
    unsigned status;
    unsigned flag_bit;
    unsigned aosr_bit;
};
constexpr Channel kChannels[] = {
    {"Temp", SensorUnit::Celsius, 0x00, 0, 1},   // ALM[0]
    {"VCCINT", SensorUnit::Volts, 0x01, 1, 2},   // ALM[1]
    {"VCCAUX", SensorUnit::Volts, 0x02, 2, 3},   // ALM[2]
    {"VCCBRAM", SensorUnit::Volts, 0x06, 4, 4},  // ALM[3]
};
constexpr unsigned kMaxRecord = 0x20, kMinRecord = 0x24, kFlagRegister = 0x3F;
constexpr unsigned kFlagOt = 3, kAosrOt = 0;
constexpr double kSupplyFullScaleV = 3.0;  // supply sensor transfer function (UG480, UG580)

uint16_t read_drp(const vfio::RegisterWindow& window, uint64_t drp_base, unsigned address) {
    return static_cast<uint16_t>(window.read32(drp_base + 4ull * address));
}

// The code's value in the channel's unit; nullopt for a temperature without a transfer function.
std::optional<double> convert(const MonitorView& view, unsigned channel, uint32_t code) {
    const double full_scale = static_cast<double>(1u << view.bits);
    if (kChannels[channel].unit == SensorUnit::Volts)
        return code * kSupplyFullScaleV / full_scale;
    if (!view.temperature)
        return std::nullopt;
    return code * view.temperature->gain / full_scale - view.temperature->offset;
}

streams::SensorReading read_channel(const vfio::RegisterWindow& window, const MonitorView& view, unsigned channel) {
    const Channel& c = kChannels[channel];
    const unsigned shift = 16 - view.bits;  // MSB-justified
    const uint16_t raw = read_drp(window, view.drp_base, c.status);
    const std::optional<double> value = convert(view, channel, raw >> shift);
    streams::SensorReading reading;
    if (!value && raw != 0xFFFF) {
        reading.name = view.prefix + c.name;
        reading.unit = c.unit;
        reading.unreadable = view.no_transfer;
    } else {
        reading = checked_reading(view.prefix + c.name, c.unit, raw, 16, value.value_or(0));
    }
    if (!value)
        return reading;
    const uint32_t unrecorded_min = (1u << view.bits) - 1;  // records reset to FFFFh (min), 0000h (max)
    const uint32_t max_code = read_drp(window, view.drp_base, kMaxRecord + channel) >> shift;
    const uint32_t min_code = read_drp(window, view.drp_base, kMinRecord + channel) >> shift;
    reading.max = checked_extreme(c.unit, max_code, view.bits, convert(view, channel, max_code).value_or(0), 0);
    reading.min =
        checked_extreme(c.unit, min_code, view.bits, convert(view, channel, min_code).value_or(0), unrecorded_min);
    reading.alarm = (view.flag && (*view.flag >> c.flag_bit & 1)) || (view.aosr && (*view.aosr >> c.aosr_bit & 1));
    return reading;
}

}  // namespace

std::optional<uint16_t> read_flag(const vfio::RegisterWindow& window, uint64_t drp_base, const std::string& prefix,
                                  streams::SensorSample& out) {
    const uint16_t flag = read_drp(window, drp_base, kFlagRegister);
    if (flag != 0xFFFF)
        return flag;
    out.status.push_back(prefix + "Flag Register reads 0xffff (all-ones): its alarm and reference bits mean nothing");
    return std::nullopt;
}

void read_monitor(const vfio::RegisterWindow& window, const MonitorView& view, streams::SensorSample& out) {
    for (unsigned channel = 0; channel < std::size(kChannels); ++channel)
        out.readings.push_back(read_channel(window, view, channel));
    const bool ot = (view.flag && (*view.flag >> kFlagOt & 1)) || (view.aosr && (*view.aosr >> kAosrOt & 1));
    if (ot)
        out.alarms.push_back(view.prefix + "OT (over-temperature)");
}

}  // namespace sensors::detail
