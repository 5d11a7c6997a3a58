// The AXI GPIO (PG144) model and what the designs wire to it: the MIG whose reset and status
// pins fpga_sio's DDR designs bring to a GPIO (ddr3_reset_control), and the Lite/NiteFury M.2
// LED output (flash_m2_led). Written from PG144 and the MIG's port descriptions, not from the
// drivers.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "sim/sim_device.hpp"

namespace sim {

// AXI GPIO (PG144 Register Space): GPIO_DATA 0x0, GPIO_TRI 0x4, GPIO2_DATA 0x8, GPIO2_TRI 0xC.
// Writing a channel's data register drives its outputs (gpio_io_o, gpio2_io_o) whatever the TRI
// bits; reading it gives the input pin for each bit whose TRI bit is 1 (input: the reset value)
// and the written value for each bit whose TRI bit is 0. Each output bit's changes are counted
// for the tests (an LED's toggles).
class AxiGpioModel : public RegisterBlock {
public:
    static constexpr uint64_t GPIO_DATA = 0x0, GPIO_TRI = 0x4, GPIO2_DATA = 0x8, GPIO2_TRI = 0xC;
    static constexpr uint64_t kSize = 0x200;
    using Inputs = std::function<uint32_t()>;           // the channel's gpio_io_i pins now
    using OutputHook = std::function<void(uint32_t)>;   // called with the outputs after a write
    // channel 1 and 2 (index 0 and 1): their input pins (none: all 0) and output hooks.
    AxiGpioModel(std::array<Inputs, 2> inputs = {}, std::array<OutputHook, 2> hooks = {});
    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;

    uint32_t outputs(unsigned channel) const;                      // channel 1 or 2
    uint64_t output_changes(unsigned channel, unsigned bit) const;  // times the bit changed

private:
    struct Channel {
        uint32_t data = 0;
        uint32_t tri = 0xffffffffu;
        std::array<uint64_t, 32> changes{};
    };
    mutable std::mutex m_mutex;
    std::array<Inputs, 2> m_inputs;
    std::array<OutputHook, 2> m_hooks;
    std::array<Channel, 2> m_channels;
};

// A MIG (7 series UG586 / UltraScale PG150) behind a clocking wizard, as fpga_sio's DDR designs
// wire it to their GPIO's channel 1: output bit 0 resets the clocking wizard; inputs bit 1 the
// wizard's locked, bit 2 mmcm_locked, bit 3 init_calib_complete, bit 4 ui_clk_sync_rst. Found
// calibrated; while reset is held the clocks are unlocked, calibration lost and ui_clk_sync_rst
// high; after release the clocks lock (and ui_clk_sync_rst falls) after locked_after, and
// calibration completes calibrated_after later, unless it never calibrates or the reset never
// reaches it (lies).
class MigResetModel {
public:
    struct Config {
        std::chrono::microseconds locked_after{50};
        std::chrono::microseconds calibrated_after{20'000};
        bool calibrates = true;
        bool follows_reset = true;  // false: a reset that never reaches the MIG (a lie)
    };
    static constexpr uint32_t kResetMask = 1u << 0, kLockedMask = 1u << 1, kMmcmLockedMask = 1u << 2,
                              kInitCalibCompleteMask = 1u << 3, kUiClkSyncRstMask = 1u << 4;
    explicit MigResetModel(Config config) : m_config(config) {}
    void set_reset(bool asserted);
    uint32_t status() const;  // the input bits now

private:
    using Clock = std::chrono::steady_clock;
    Config m_config;
    mutable std::mutex m_mutex;
    bool m_reset = false;
    std::optional<Clock::time_point> m_released;  // none: never reset since power-up (calibrated)
};

// The DDR reset GPIO: an AXI GPIO whose channel 1 is wired to `mig`.
std::shared_ptr<AxiGpioModel> make_ddr_reset_gpio(std::shared_ptr<MigResetModel> mig);

}  // namespace sim
