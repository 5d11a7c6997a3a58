// The board-health seam: a sensor block of a card (a 7-series XADC, an UltraScale SYSMON and its
// slave SYSMONs, an Alveo CMS, ...) gives named readings with units.
//
// Contract:
// - sample() reads the block once and returns every reading it has, in the block's own order,
//   each converted exactly as the block's document states (UG480, UG580, PG348).
// - A reading that is out of its physical range (an unconnected block reads all-ones, a
//   temperature below absolute zero or above what the die survives) has no value: `value` is
//   nullopt and `unreadable` says what was read. It is never shown as a measurement.
// - min and max are the block's own (the XADC's and SYSMON's min/max registers, CMS's MAX
//   registers), present only where the block keeps them and has recorded something. average is
//   the block's own mean of its samples (CMS's AVG registers), likewise only where it keeps one.
// - alarm is true while the block's alarm for that reading is active; block-wide alarms (the
//   over-temperature OT, a CMS error bit) are in SensorSample::alarms, by name.
// - sample() fails (a pdt::Error naming the block and its BAR offset) only when the block cannot
//   be read at all: a CMS whose firmware never became ready, a BAR that cannot be mapped.
// - A block is used by one thread at a time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace streams {

enum class SensorUnit { Celsius, Volts, Amperes, Watts };

// Each unit's two spellings: its symbol, as the text output prints it after a value, and its
// name, the base unit of a Prometheus metric name and of JSON.
struct SensorUnitSpelling {
    SensorUnit unit;
    const char* symbol;
    const char* name;
};
inline constexpr SensorUnitSpelling kSensorUnitSpellings[] = {{SensorUnit::Celsius, "C", "celsius"},
                                                              {SensorUnit::Volts, "V", "volts"},
                                                              {SensorUnit::Amperes, "A", "amperes"},
                                                              {SensorUnit::Watts, "W", "watts"}};

// "C", "V", "A", "W"; "?" for a value not in the table.
inline const char* unit_symbol(SensorUnit unit) {
    for (const SensorUnitSpelling& s : kSensorUnitSpellings)
        if (s.unit == unit)
            return s.symbol;
    return "?";
}

// "celsius", "volts", "amperes", "watts"; "unknown" for a value not in the table.
inline const char* unit_name(SensorUnit unit) {
    for (const SensorUnitSpelling& s : kSensorUnitSpellings)
        if (s.unit == unit)
            return s.name;
    return "unknown";
}

struct SensorReading {
    std::string name;  // the document's name: "Temp", "VCCINT", "SLR1 Temp", "FPGA_TEMP", ...
    SensorUnit unit = SensorUnit::Celsius;
    std::optional<double> value;  // nullopt: unreadable
    std::optional<double> min;    // the block's own record, where it keeps one
    std::optional<double> max;
    std::optional<double> average;  // the block's own mean (CMS AVG_REG), where it keeps one
    bool alarm = false;
    std::string unreadable;  // why value is nullopt: "reads 0xffff (all-ones)", ...
};

struct SensorSample {
    std::vector<SensorReading> readings;
    std::vector<std::string> alarms;  // active block-wide alarms: "OT (over-temperature)", ...
    std::vector<std::string> status;  // block status lines worth showing (CMS status and errors)
};

class SensorBlock {
public:
    virtual ~SensorBlock() = default;
    // "XADC", "SYSMON", "CMS": the block's kind as fpga_sio names it.
    virtual std::string kind() const = 0;
    // Where it sits: "bar 0 offset 0x1000".
    virtual std::string location() const = 0;
    virtual pdt::Result<SensorSample> sample() = 0;
};

}  // namespace streams
