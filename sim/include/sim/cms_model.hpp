// A register-level model of the Alveo Card Management Solution Subsystem (PG348, "Register
// Space", Table 2 the REG_MAP) of a U200/U250, its 256 KiB (PG348 "Addressing") seen from the
// host:
//   0x00000-0x1FFFF  firmware memory (reads 0 here; writes ignored)
//   0x20000          MB_RESETN_REG: bit 0 active-low MicroBlaze reset, 0 after power-up
//                    ("Resets"); the host writes 1 to start the CMS firmware
//   0x22000          HOST_INTC (PG099): its ISR reads 0 (no watchdog timeout)
//   0x28000          REG_MAP, the host/CMS shared memory (offsets below are from it)
// Once MB_RESETN_REG is released, HOST_STATUS2_REG (0x30C) bit 0 (REG_MAP ready) is set after
// the firmware's boot delay; until then the REG_MAP reads 0, as a fresh block RAM. Holding the
// MicroBlaze in reset again (writing 0) or CONTROL_REG's reboot bit starts over.
// Once ready: REG_MAP_ID_REG 0x74736574, FW_VERSION_REG, STATUS_REG (Satellite Controller Mode
// 1, normal, in 31:28), ERROR_REG (set by the test hook, cleared by CONTROL_REG bit 1),
// PROFILE_NAME_REG "U2XX" (U200/U250), CONTROL_REG (bit 0 resets MAX and AVG, bit 1 ERROR_REG,
// both self-clearing), HOST_MSG_OFFSET_REG, POWER_GOOD_INS_REG (0x370, bit 0: 0 good, 1 bad),
// and each sensor of a U200/U250 as its MAX/AVG/INS words (unsigned mV, mA, C, RPM), computed
// at each read from the die: FPGA_TEMP from DieThermal::temperature_c(), the board sensors a few
// degrees below it, the 12 V input currents and VCCINT_I rising with DieThermal::load(), the
// 12V_PEX voltage drooping a little with it. The firmware samples every sensor once per
// sample_period from REG_MAP ready: INS the latest sample, MAX the highest since MAX/AVG were
// reset, AVG a running mean that halves the distance to each new sample and starts from 0, so
// that right after the firmware starts (or CONTROL_REG bit 0) AVG reads half of INS, as fpga_sio
// saw on a U200 (xilinx_cms_time_averaging.c; PG348 does not say how AVG is computed, and the
// period is the model's own). Sensors a U200/U250 does not have read 0.
// Not modelled: the mailbox (CONTROL_REG bit 5 reads back as written, nothing answers it), the
// satellite controller's own timing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "sim/die_thermal.hpp"
#include "sim/sim_device.hpp"

namespace sim {

class CmsModel : public RegisterBlock {
public:
    // PG348 Register Space: offsets from the CMS base.
    static constexpr uint64_t MB_RESETN_REG = 0x020000;
    static constexpr uint64_t HOST_INTC = 0x022000;
    static constexpr uint64_t REG_MAP = 0x028000;
    static constexpr uint64_t kSize = 0x40000;  // PG348 Addressing
    // REG_MAP (Table 2), offsets from REG_MAP.
    static constexpr uint64_t REG_MAP_ID_REG = 0x0000;
    static constexpr uint64_t FW_VERSION_REG = 0x0004;
    static constexpr uint64_t STATUS_REG = 0x0008;
    static constexpr uint64_t ERROR_REG = 0x000C;
    static constexpr uint64_t PROFILE_NAME_REG = 0x0014;
    static constexpr uint64_t CONTROL_REG = 0x0018;
    static constexpr uint64_t HOST_MSG_OFFSET_REG = 0x0300;
    static constexpr uint64_t HOST_MSG_ERROR_REG = 0x0304;
    static constexpr uint64_t HOST_STATUS2_REG = 0x030C;
    static constexpr uint64_t POWER_GOOD_INS_REG = 0x0370;
    static constexpr uint32_t kRegMapId = 0x74736574;
    static constexpr uint32_t kProfileU200U250 = 0x55325858;  // "U2XX"
    static constexpr uint32_t kFirmwareVersion = 0x00040801;  // the model's own, not a release
    static constexpr uint32_t CONTROL_RESET_MAX_AVG = 1u << 0;
    static constexpr uint32_t CONTROL_RESET_ERROR_REG = 1u << 1;
    static constexpr uint32_t CONTROL_REBOOT_MICROBLAZE = 1u << 6;

    using Clock = std::function<double()>;  // seconds, monotonic
    struct Config {
        // How long the firmware takes from reset release to REG_MAP ready; a negative value: it
        // never becomes ready (a CMS whose firmware does not start).
        std::chrono::milliseconds boot_delay{50};
        Clock clock;  // steady_clock by default
        std::chrono::milliseconds sample_period{20};  // the firmware's sampling of every sensor
    };

    CmsModel(std::shared_ptr<DieThermal> die, Config config);
    explicit CmsModel(std::shared_ptr<DieThermal> die) : CmsModel(std::move(die), Config{}) {}

    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;  // aresetn_ctrl: MicroBlaze held in reset, REG_MAP cleared

    // Test hooks: the ERROR_REG and POWER_GOOD_INS_REG values the firmware reports.
    void set_error_reg(uint32_t value);
    void set_power_bad(bool bad);

private:
    // A sensor's words as the firmware last sampled it; last_tick: its last sample's number.
    struct SensorWords {
        uint32_t max = 0;
        double avg = 0;
        uint32_t ins = 0;
        int64_t last_tick = 0;
    };
    uint32_t read_locked(uint64_t offset);
    void write_locked(uint64_t offset, uint32_t value);
    bool ready_locked() const;
    uint32_t reg_map_locked(uint64_t offset);
    uint32_t sensor_locked(uint64_t offset);
    int64_t tick_locked() const;  // the firmware's samples taken since REG_MAP ready, less one
    void start_firmware_locked();

    std::mutex m_mutex;
    std::shared_ptr<DieThermal> m_die;
    Config m_config;
    bool m_running = false;  // MB_RESETN_REG bit 0
    double m_released_at = 0;
    uint32_t m_error_reg = 0;
    uint32_t m_control = 0;
    bool m_power_bad = false;
    std::map<uint64_t, SensorWords> m_sensors;  // by the sensor's MAX_REG offset
    int64_t m_first_tick = 0;                    // the first sample since MAX/AVG were reset
};

}  // namespace sim
