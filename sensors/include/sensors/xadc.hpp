// The 7-series XADC (UG480) behind the XADC Wizard's AXI4-Lite interface (PG091): the die
// temperature and the VCCINT, VCCAUX and VCCBRAM supplies, with the XADC's max/min records and
// its alarms (the Flag Register and the Alarm Output Status Register, AOSR).
#pragma once

#include <memory>
#include <string>

#include "streams/sensor_block.hpp"
#include "vfio_access/mmio.hpp"

namespace sensors {

// The XADC Wizard's register frame: core registers 0x00..0x68, DRP 00h..7Fh at 0x200 + 4 * DRP.
inline constexpr uint64_t kXadcFrameBytes = 0x400;

// A sensor block reading the XADC Wizard at `window` (at least kXadcFrameBytes long, else
// sample() fails with ERANGE). `location` says where it sits ("bar 0 offset 0x1000"). Readings:
// "Temp" (UG480: code * 503.975 / 4096 - 273.15 on the 12-bit code), "VCCINT", "VCCAUX",
// "VCCBRAM" (code * 3 V / 4096); block alarm "OT (over-temperature)".
std::unique_ptr<streams::SensorBlock> make_xadc(vfio::RegisterWindow window, std::string location);

}  // namespace sensors
