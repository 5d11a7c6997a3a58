// The DDR reset control of fpga_sio's DDR designs (ddr3_reset_control): an AXI GPIO whose channel
// 1 output bit 0 resets the clocking wizard that clocks the memory controller (MIG 7 series,
// UG586; DDR4 MIG, PG150), and whose inputs show the controller's status. Wiring from the
// designs' create_project.tcl, as fpga_sio's ddr3_reset_control.c reads it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "gpio/axi_gpio.hpp"

namespace gpio {

// The channel 1 bits (fpga_sio's wiring; status names as UG586 "User Interface" names them).
namespace ddr_reset_bits {
inline constexpr uint32_t clocking_wizard_reset = 1u << 0;   // output, active high
inline constexpr uint32_t clocking_wizard_locked = 1u << 1;  // input (fixed high where unused)
inline constexpr uint32_t mmcm_locked = 1u << 2;             // input, the MIG's mmcm_locked
inline constexpr uint32_t init_calib_complete = 1u << 3;     // input, calibration done
inline constexpr uint32_t ui_clk_sync_rst = 1u << 4;         // input, the user interface reset
inline constexpr unsigned count = 5;
}  // namespace ddr_reset_bits

// The signals at a moment: the inputs read, bit 0 the reset as written (not read back).
struct SignalSample {
    std::chrono::nanoseconds since_first{0};
    uint32_t signals = 0;
};

// A reset's record: the first sample and each change after it, fpga_sio's 8192 at most.
struct ResetRecord {
    std::vector<SignalSample> history;
    bool completed = false;  // the clocks locked and calibration completed before the timeout
};

class DdrResetControl {
public:
    static constexpr size_t kMaxSamples = 8192;
    explicit DdrResetControl(AxiGpio gpio) : m_gpio(std::move(gpio)) {}
    // The signals now (bit 0: the reset as this control last wrote it, 0 at first).
    uint32_t signals() const;
    // Holds the reset for `duration`, releases it and waits up to `timeout` after the release for
    // the clocks to lock and calibration to complete, recording every change. The reset is
    // released on every path out.
    ResetRecord reset(std::chrono::nanoseconds duration, std::chrono::nanoseconds timeout);
    const AxiGpio& gpio() const { return m_gpio; }

private:
    void write_reset(bool asserted);
    AxiGpio m_gpio;
    uint32_t m_output = 0;
};

// fpga_sio's lines: "locked           : 1" ... "ui_clk_sync_rst  : 0" (the inputs only).
std::string signals_text(uint32_t signals);
// fpga_sio's table: " Time (secs) clocking_wizard_reset ..." and a line per sample.
std::string history_text(const ResetRecord& record);

}  // namespace gpio
