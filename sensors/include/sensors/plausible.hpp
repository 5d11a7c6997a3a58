// The one range check every sensor driver applies before a conversion is shown: a raw code
// that is all-ones (an unconnected block, a BAR that reads back undefined AXI space) or a
// converted value outside the physical range of its unit is unreadable, never a measurement.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "streams/sensor_block.hpp"

namespace sensors {

struct PhysicalRange {
    double low = 0;
    double high = 0;
};

// The range a reading of this unit can have on a card: -60..150 C (below any operating range
// of the parts, above the junction limit, where the die shuts down), 0..15 V (the 12 V rails
// with margin), 0..100 A, 0..500 W.
PhysicalRange physical_range(streams::SensorUnit unit);

// A reading named `name` converted from `raw` (a `raw_bits`-bit register field): its value,
// or unreadable with the reason ("reads 0xffff (all-ones)", "converts to 317.2 C, outside
// -60..150 C") when raw is all-ones or the value is out of range.
streams::SensorReading checked_reading(std::string name, streams::SensorUnit unit, uint32_t raw, unsigned raw_bits,
                                       double value);

// A min or max register's value: nullopt when raw is the block's "nothing recorded yet" code
// (all-ones for a min, zero for a max on XADC and SYSMON), all-ones or out of range.
std::optional<double> checked_extreme(streams::SensorUnit unit, uint32_t raw, unsigned raw_bits, double value,
                                      uint32_t unrecorded);

}  // namespace sensors
