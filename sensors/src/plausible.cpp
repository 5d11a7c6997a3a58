#include "sensors/plausible.hpp"

#include <cmath>

#include "base/format.hpp"

namespace sensors {
namespace {

uint32_t all_ones(unsigned bits) { return bits >= 32 ? 0xffffffffu : (1u << bits) - 1; }

}  // namespace

PhysicalRange physical_range(streams::SensorUnit unit) {
    switch (unit) {
    case streams::SensorUnit::Celsius: return {-60, 150};
    case streams::SensorUnit::Volts: return {0, 15};
    case streams::SensorUnit::Amperes: return {0, 100};
    case streams::SensorUnit::Watts: return {0, 500};
    }
    return {0, 0};
}

streams::SensorReading checked_reading(std::string name, streams::SensorUnit unit, uint32_t raw, unsigned raw_bits,
                                       double value) {
    streams::SensorReading reading;
    reading.name = std::move(name);
    reading.unit = unit;
    const unsigned digits = (raw_bits + 3) / 4;
    if ((raw & all_ones(raw_bits)) == all_ones(raw_bits)) {
        reading.unreadable = pdt::format("reads 0x%0*x (all-ones: no block answers)", digits, raw);
        return reading;
    }
    const PhysicalRange range = physical_range(unit);
    if (!std::isfinite(value) || value < range.low || value > range.high) {
        reading.unreadable = pdt::format("reads 0x%0*x, which converts to %.3f %s, outside %g..%g %s", digits, raw,
                                         value, streams::unit_symbol(unit), range.low, range.high,
                                         streams::unit_symbol(unit));
        return reading;
    }
    reading.value = value;
    return reading;
}

std::optional<double> checked_extreme(streams::SensorUnit unit, uint32_t raw, unsigned raw_bits, double value,
                                      uint32_t unrecorded) {
    if (raw == unrecorded || (raw & all_ones(raw_bits)) == all_ones(raw_bits))
        return std::nullopt;
    const PhysicalRange range = physical_range(unit);
    if (!std::isfinite(value) || value < range.low || value > range.high)
        return std::nullopt;
    return value;
}

}  // namespace sensors
