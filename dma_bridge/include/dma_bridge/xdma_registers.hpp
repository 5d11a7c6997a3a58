// XDMA (AMD DMA/Bridge Subsystem for PCI Express, PG195) register space: block addresses,
// register offsets and bit fields, with PG195's register and field names.
#pragma once

#include <cstdint>
#include <string>

#include "dma_bridge/xdma_direction.hpp"

namespace xdma {

// Address = target [15:12] | channel [11:8] | byte offset [7:0].
namespace target {
inline constexpr uint32_t H2C_CHANNEL = 0x0;
inline constexpr uint32_t C2H_CHANNEL = 0x1;
inline constexpr uint32_t IRQ_BLOCK = 0x2;
inline constexpr uint32_t CONFIG = 0x3;
inline constexpr uint32_t H2C_SGDMA = 0x4;
inline constexpr uint32_t C2H_SGDMA = 0x5;
inline constexpr uint32_t SGDMA_COMMON = 0x6;
inline constexpr uint32_t MSIX = 0x8;  // MSI-X table; no identifier
}  // namespace target

inline constexpr uint64_t DMA_REGISTER_SPACE_SIZE = 0x10000;  // the full PG195 address map
inline constexpr uint64_t REGISTER_BLOCK_SIZE = 0x100;         // one channel slot of a block
inline constexpr unsigned MAX_CHANNELS = 4;                   // per direction
inline constexpr uint64_t block_offset(uint32_t target, unsigned channel = 0) { return uint64_t{target} << 12 | uint64_t{channel} << 8; }
inline uint32_t channel_target(Direction d) { return d == Direction::H2C ? target::H2C_CHANNEL : target::C2H_CHANNEL; }
inline uint32_t sgdma_target(Direction d) { return d == Direction::H2C ? target::H2C_SGDMA : target::C2H_SGDMA; }

// Identifier register (offset 0x00 of every block except MSI-X).
namespace identifier {
inline constexpr uint32_t SUBSYSTEM_IDENTIFIER = 0x1FC;  // [31:20]
inline uint32_t subsystem_identifier(uint32_t v) { return v >> 20; }
inline uint32_t target(uint32_t v) { return (v >> 16) & 0xF; }
inline bool stream(uint32_t v) { return (v >> 15) & 1; }  // 1 = AXI4-Stream, 0 = AXI-MM
inline unsigned channel_id(uint32_t v) { return (v >> 8) & 0xF; }
inline unsigned version(uint32_t v) { return v & 0xFF; }
}  // namespace identifier

// H2C / C2H Channel registers (targets 0 and 1).
namespace channel_reg {
inline constexpr uint32_t IDENTIFIER = 0x00;
inline constexpr uint32_t CONTROL = 0x04;
inline constexpr uint32_t CONTROL_W1S = 0x08;
inline constexpr uint32_t CONTROL_W1C = 0x0C;
inline constexpr uint32_t STATUS = 0x40;     // RW1C
inline constexpr uint32_t STATUS_RC = 0x44;  // clear on read
inline constexpr uint32_t COMPLETED_DESCRIPTOR_COUNT = 0x48;
inline constexpr uint32_t ALIGNMENTS = 0x4C;
inline constexpr uint32_t POLL_MODE_LOW_WRITE_BACK_ADDRESS = 0x88;
inline constexpr uint32_t POLL_MODE_HIGH_WRITE_BACK_ADDRESS = 0x8C;
inline constexpr uint32_t INTERRUPT_ENABLE_MASK = 0x90;
inline constexpr uint32_t INTERRUPT_ENABLE_MASK_W1S = 0x94;
inline constexpr uint32_t INTERRUPT_ENABLE_MASK_W1C = 0x98;
inline constexpr uint32_t PERFORMANCE_MONITOR_CONTROL = 0xC0;
inline constexpr uint32_t PERFORMANCE_CYCLE_COUNT = 0xC4;    // lo, hi at 0xC8
inline constexpr uint32_t PERFORMANCE_DATA_COUNT = 0xCC;     // lo, hi at 0xD0
}  // namespace channel_reg

// Performance Monitor Control (0xC0) bits; the counts' high words (0xC8, 0xD0) hold bits
// [41:32] in [9:0] and the count's maxed flag in bit 16.
namespace performance {
inline constexpr uint32_t auto_ = 1u << 0;  // Auto: cleared when Control.Run sets, stopped by a STOP descriptor
inline constexpr uint32_t clear = 1u << 1;  // Clear (write-only)
inline constexpr uint32_t run = 1u << 2;    // Run: counting while Control.Run is set
}  // namespace performance

// Channel Status (0x40) bits.
namespace status {
inline constexpr uint32_t busy = 1u << 0;
inline constexpr uint32_t descriptor_stopped = 1u << 1;
inline constexpr uint32_t descriptor_completed = 1u << 2;
inline constexpr uint32_t align_mismatch = 1u << 3;
inline constexpr uint32_t magic_stopped = 1u << 4;
inline constexpr uint32_t invalid_length = 1u << 5;
inline constexpr uint32_t idle_stopped = 1u << 6;
inline constexpr uint32_t read_error = 0x1Fu << 9;    // [13:9]
inline constexpr uint32_t write_error = 0x1Fu << 14;  // [18:14]
inline constexpr uint32_t desc_error = 0x1Fu << 19;   // [23:19]
inline constexpr uint32_t errors = align_mismatch | magic_stopped | invalid_length | read_error | write_error | desc_error;
}  // namespace status

// Channel Control (0x04) and Interrupt Enable Mask (0x90) bits: an ie_ bit enables its event at
// the position Status (0x40) reports the event in.
namespace control {
inline constexpr uint32_t run = 1u << 0;
inline constexpr uint32_t ie_descriptor_stopped = status::descriptor_stopped;
inline constexpr uint32_t ie_descriptor_completed = status::descriptor_completed;
inline constexpr uint32_t ie_align_mismatch = status::align_mismatch;
inline constexpr uint32_t ie_magic_stopped = status::magic_stopped;
inline constexpr uint32_t ie_invalid_length = status::invalid_length;
inline constexpr uint32_t ie_idle_stopped = status::idle_stopped;
inline constexpr uint32_t ie_read_error = status::read_error;
inline constexpr uint32_t ie_write_error = status::write_error;
inline constexpr uint32_t ie_desc_error = status::desc_error;
inline constexpr uint32_t non_inc_mode = 1u << 25;
inline constexpr uint32_t pollmode_wb_enable = 1u << 26;
inline constexpr uint32_t stream_wb_disable = 1u << 27;  // C2H stream writeback disable
}  // namespace control

// "busy descriptor_completed desc_error(unsupported request)": the set bits by PG195 name.
std::string decode_status(Direction direction, uint32_t value);

// H2C / C2H SGDMA registers (targets 4 and 5).
namespace sgdma_reg {
inline constexpr uint32_t IDENTIFIER = 0x00;
inline constexpr uint32_t DESCRIPTOR_LOW_ADDRESS = 0x80;
inline constexpr uint32_t DESCRIPTOR_HIGH_ADDRESS = 0x84;
inline constexpr uint32_t DESCRIPTOR_ADJACENT = 0x88;  // [5:0]
inline constexpr uint32_t DESCRIPTOR_CREDITS = 0x8C;   // [9:0]
}  // namespace sgdma_reg

// SGDMA Common registers (target 6). Per-channel bits: H2C [3:0], C2H [19:16].
namespace sgdma_common_reg {
inline constexpr uint32_t IDENTIFIER = 0x00;
inline constexpr uint32_t DESCRIPTOR_CONTROL = 0x10;  // halt bits
inline constexpr uint32_t DESCRIPTOR_CONTROL_W1S = 0x14;
inline constexpr uint32_t DESCRIPTOR_CONTROL_W1C = 0x18;
inline constexpr uint32_t DESCRIPTOR_CREDIT_MODE_ENABLE = 0x20;
inline constexpr uint32_t DESCRIPTOR_CREDIT_MODE_ENABLE_W1S = 0x24;
inline constexpr uint32_t DESCRIPTOR_CREDIT_MODE_ENABLE_W1C = 0x28;
inline uint32_t channel_bit(Direction d, unsigned channel) { return (d == Direction::H2C ? 1u : 1u << 16) << channel; }
}  // namespace sgdma_common_reg

// IRQ Block registers (target 2). Channel interrupt sources: H2C channels, then C2H channels.
namespace irq_reg {
inline constexpr uint32_t IDENTIFIER = 0x00;
inline constexpr uint32_t USER_INTERRUPT_ENABLE_MASK = 0x04;
inline constexpr uint32_t USER_INTERRUPT_ENABLE_MASK_W1S = 0x08;
inline constexpr uint32_t USER_INTERRUPT_ENABLE_MASK_W1C = 0x0C;
inline constexpr uint32_t CHANNEL_INTERRUPT_ENABLE_MASK = 0x10;
inline constexpr uint32_t CHANNEL_INTERRUPT_ENABLE_MASK_W1S = 0x14;
inline constexpr uint32_t CHANNEL_INTERRUPT_ENABLE_MASK_W1C = 0x18;
inline constexpr uint32_t USER_INTERRUPT_REQUEST = 0x40;
inline constexpr uint32_t CHANNEL_INTERRUPT_REQUEST = 0x44;
inline constexpr uint32_t USER_INTERRUPT_PENDING = 0x48;
inline constexpr uint32_t CHANNEL_INTERRUPT_PENDING = 0x4C;
inline constexpr uint32_t USER_VECTOR_NUMBER = 0x80;     // 4 registers, 4 x 5-bit vectors each
inline constexpr uint32_t CHANNEL_VECTOR_NUMBER = 0xA0;  // 2 registers, 4 x 5-bit vectors each
}  // namespace irq_reg

namespace config_reg {
inline constexpr uint32_t IDENTIFIER = 0x00;
inline constexpr uint32_t MSI_ENABLE = 0x14;
inline constexpr uint32_t PCIE_DATA_WIDTH = 0x18;  // [2:0] pcie_width: 64 << n bits
}  // namespace config_reg

// Descriptor credits: 10 bits.
inline constexpr uint32_t MAX_DESCRIPTOR_CREDITS = 1023;

}  // namespace xdma
