// The Alveo Card Management Solution Subsystem (CMS, PG348) as a board-health sensor block.
//
// The window is the CMS's 256 KiB (PG348 "Addressing": 0x4_0000 bytes) from its base. Each
// sample() (PG348 "Register Space", Table 2 the REG_MAP at +0x28000):
// 1. reads MB_RESETN_REG (+0x20000). Bit 0 clear means the MicroBlaze is held in reset, as after
//    power-up or aresetn_ctrl (PG348 "Resets"): only then it writes 1 there (the one write this
//    driver does) and says so in SensorSample::status;
// 2. waits, polling every options.poll_interval for at most options.ready_timeout, until
//    HOST_STATUS2_REG (REG_MAP +0x30C) bit 0, REG_MAP ready, is set: PG348 reads no sensor before
//    it. A CMS that never becomes ready fails the sample (ETIMEDOUT, naming the location and
//    what MB_RESETN_REG and HOST_STATUS2_REG read);
// 3. checks REG_MAP_ID_REG reads 0x74736574 (EIO otherwise: not a CMS), unless the whole block
//    reads all-ones (nothing answers): then every reading is unreadable, as checked_reading says;
// 4. reads PROFILE_NAME_REG (+0x14) to pick the card's sensors, then each sensor's MAX_REG,
//    AVG_REG and INS_REG (unsigned 32-bit integers in mV, mA or C, Table 2), converted to V, A
//    and C, each through checked_reading (INS) and checked_extreme (MAX and AVG; 0 is "nothing
//    recorded"), AVG as SensorReading::average;
// 5. decodes STATUS_REG, ERROR_REG and POWER_GOOD_INS_REG into SensorSample::status and alarms.
//
// Which sensors a card has (PG348 Table 3, "Supported Sensors per Alveo Card"): the registers of
// every card exist in every REG_MAP, and those a card lacks are not populated. For the U200/U250
// software profile ("U2XX", the card of the built-in designs that have a CMS) the driver reports
// Table 3's U200/U250 sensors; for any other profile only the sensors Table 3 gives every card
// (12V_PEX, 12VPEX_I_IN, VCCINT, VCCINT_I, VCC1V8, FPGA_TEMP, SE98_TEMP0, SE98_TEMP1), with a
// status line naming the profile. A listed sensor whose MAX, AVG and INS all read 0 is marked
// unreadable ("not populated": a fan-less card's FAN_TEMP), never shown as 0.
// Not reported: FAN_SPEED (RPM, no unit in the seam). The
// 12 V rails' power is computed (V x I of 12V_PEX/12VPEX_I_IN and 12V_AUX/12V_AUX_I_IN) and
// named so: PG348 gives a power register (PEX_12V_POWER) for the U50 only.
// Releasing the reset restarts the firmware, which starts MAX and AVG afresh. fpga_sio saw a
// U200 keep REG_MAP ready set across a reset and clears it by writing HOST_STATUS2_REG before
// the release; PG348 makes that register read-only, so this driver does not, and the sample
// right after a release may show the previous firmware run's values on such a card.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "streams/sensor_block.hpp"
#include "vfio_access/mmio.hpp"

namespace sensors {

struct CmsOptions {
    // How long the firmware may take to set REG_MAP ready. PG348 gives no figure; fpga_sio allows
    // 10 s, and other U200 hosts wait 5 s for the MicroBlaze to boot after the release.
    std::chrono::milliseconds ready_timeout{10000};
    std::chrono::milliseconds poll_interval{10};
};

// window: the CMS block (at least 0x40000 bytes); location: "bar 0 offset 0x40000", used in
// errors and as SensorBlock::location().
std::unique_ptr<streams::SensorBlock> make_cms(vfio::RegisterWindow window, std::string location);
std::unique_ptr<streams::SensorBlock> make_cms(vfio::RegisterWindow window, std::string location, CmsOptions options);

// One sensor's three words as the firmware wrote them (PG348 Table 2: <sensor>_MAX_REG, _AVG_REG,
// _INS_REG; unsigned integers in mV, mA or C), unconverted.
struct CmsSensorWords {
    uint32_t max = 0;
    uint32_t avg = 0;
    uint32_t ins = 0;
    bool operator==(const CmsSensorWords&) const = default;
};
// Reads the words of `sensor` (Table 2's name without the suffix: "12V_PEX") from the CMS in
// `window`, for the tools that study them (xilinx_cms_time_averaging). The firmware must be
// running: a sample() of the block starts it and waits for REG_MAP ready. Fails (a usage error)
// for a name not in the driver's table.
pdt::Result<CmsSensorWords> read_cms_sensor_words(const vfio::RegisterWindow& window, const std::string& sensor);

}  // namespace sensors
