// The AXI GPIO (PG144) driver, and opening the GPIOs a design lists by what they are wired to
// (designs::PeripheralType::DdrResetGpio, M2LedGpio).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "designs/design.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/mmio.hpp"

namespace gpio {

// PG144 Register Space (AXI GPIO v2.0): each channel's data and 3-state control.
namespace pg144 {
inline constexpr uint64_t GPIO_DATA = 0x0;   // channel 1 data: outputs written, inputs read
inline constexpr uint64_t GPIO_TRI = 0x4;    // channel 1 3-state control: 1 input, 0 output
inline constexpr uint64_t GPIO2_DATA = 0x8;  // channel 2 data
inline constexpr uint64_t GPIO2_TRI = 0xC;   // channel 2 3-state control
}  // namespace pg144

enum class Channel { Gpio, Gpio2 };  // PG144's channel 1 (GPIO_*) and channel 2 (GPIO2_*)

// One AXI GPIO over its register window. PG144: GPIO_DATA reads the input pins for the bits
// configured as inputs; an output written is not read back where the design makes every bit an
// input (fpga_sio's designs), so callers keep what they wrote.
class AxiGpio {
public:
    AxiGpio(vfio::RegisterWindow regs, std::string where) : m_regs(std::move(regs)), m_where(std::move(where)) {}
    uint32_t read_data(Channel channel) const;
    void write_data(Channel channel, uint32_t value) const;
    const std::string& where() const { return m_where; }  // "bar 0 offset 0x6000"

private:
    vfio::RegisterWindow m_regs;
    std::string m_where;
};

// The design's first GPIO of `type` for the device's revision; nullopt when it lists none.
// Fails when its BAR cannot hold the GPIO's registers.
pdt::Result<std::optional<AxiGpio>> open_design_gpio(vfio::Device& device, const designs::Design& design,
                                                     uint8_t revision, designs::PeripheralType type);

}  // namespace gpio
