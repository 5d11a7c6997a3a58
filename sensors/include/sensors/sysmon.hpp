// The UltraScale SYSMONE1 and UltraScale+ SYSMONE4 (UG580) behind the System Management
// Wizard's AXI4-Lite interface (PG185), with the slave SYSMONs of multi-SLR (SSI) parts: the
// die temperature and the VCCINT, VCCAUX and VCCBRAM supplies of each SYSMON, with their max/min
// records and the alarms of each SYSMON's Flag Register.
#pragma once

#include <memory>
#include <string>

#include "designs/design.hpp"
#include "streams/sensor_block.hpp"
#include "vfio_access/mmio.hpp"

namespace sensors {

// The primitive as the design data names it (designs/design.hpp): SYSMONE1 or SYSMONE4.
using SysmonPrimitive = designs::SysmonPrimitive;

// PG185: the master's DRP 00h..FFh at 0x400 + 4 * DRP; the slave SYSMON that sysmon_slave_sel
// n selects has the same layout n * 0x800 further on (at most 3 slaves).
inline constexpr uint64_t kSysmonBytesPerSysmon = 0x800;
inline constexpr unsigned kSysmonMaxSlaves = 3;

// A sensor block reading the SYSMON at `window` (at least (1 + slaves) * 0x800 long, else
// sample() fails with ERANGE; more than 3 slaves fail with EINVAL). Readings of the master:
// "Temp", "VCCINT", "VCCAUX", "VCCBRAM"; of slave n the same names after "Slave n ". The
// temperature follows UG580 Equation 2-7 / 2-5 (SYSMONE1) or 2-11 / 2-9 (SYSMONE4) as the Flag
// Register's REF bit says the on-chip or an external reference is used; supplies code * 3 V /
// 1024 on the 10-bit code. Block alarms: "OT (over-temperature)", "Slave n OT (over-temperature)".
std::unique_ptr<streams::SensorBlock> make_sysmon(vfio::RegisterWindow window, unsigned slaves,
                                                  SysmonPrimitive primitive, std::string location);

}  // namespace sensors
