// What the XADC (UG480) and the SYSMON (UG580) share, as the two drivers read it: the status
// registers of the on-chip sensors at DRP addresses 00h..3Fh, mirrored 4 bytes per DRP address
// by the wizards (PG091, PG185), each result MSB-justified in 16 bits; the max and min records;
// the Flag Register's alarm bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "streams/sensor_block.hpp"
#include "vfio_access/mmio.hpp"

namespace sensors::detail {

// Temperature (C) = code * gain / 2^bits - offset (UG480 temperature sensor transfer function;
// UG580 Equations 2-5, 2-7, 2-9, 2-11).
struct TemperatureTransfer {
    double gain = 0;
    double offset = 0;
};

// One XADC or SYSMON as the window shows it.
struct MonitorView {
    uint64_t drp_base = 0;  // window offset of DRP address 00h
    unsigned bits = 12;     // ADC resolution: 12 (XADC), 10 (SYSMON)
    std::string prefix;     // prepended to the reading names: "" for the master, "Slave 1 " ...
    std::optional<TemperatureTransfer> temperature;  // nullopt: the transfer function is unknown
    std::string no_transfer;                         // why it is unknown
    std::optional<uint16_t> flag;                    // the Flag Register; nullopt: reads all-ones
    std::optional<uint32_t> aosr;                    // PG091 AOSR of the master, where read
};

// The Flag Register (DRP 3Fh) of the monitor at drp_base, or nullopt with a status line in `out`
// when it reads all-ones (no block answers: its alarm bits mean nothing).
std::optional<uint16_t> read_flag(const vfio::RegisterWindow& window, uint64_t drp_base, const std::string& prefix,
                                  streams::SensorSample& out);

// Appends Temp, VCCINT, VCCAUX and VCCBRAM with their max/min records and alarms, and the
// monitor's OT alarm to out.alarms.
void read_monitor(const vfio::RegisterWindow& window, const MonitorView& view, streams::SensorSample& out);

}  // namespace sensors::detail
