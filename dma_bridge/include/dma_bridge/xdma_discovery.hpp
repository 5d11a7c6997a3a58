// XDMA channel discovery from the identifier registers (fpga_sio's rules): for each direction,
// channels 0, 1, ... up to 4 count while the channel and SGDMA identifiers carry subsystem
// 0x1FC, the expected target, the expected stream bit and channel ID = index; the first
// mismatch ends the count.
#pragma once

#include <string>
#include <vector>

#include "dma_bridge/xdma_direction.hpp"
#include "vfio_access/device.hpp"

namespace xdma {

struct ChannelInfo {
    Direction direction = Direction::H2C;
    unsigned channel = 0;
    bool stream = false;
    unsigned version = 0;
    uint32_t identifier = 0;
    // Channel Alignments register: [23:16] address alignment (bytes), [15:8] length
    // granularity (bytes), [7:0] address bits.
    unsigned address_alignment = 1;
    unsigned length_granularity = 1;
    unsigned address_bits = 64;
    uint32_t alignments = 0x00010140;  // the register as read (discover keeps its fields raw)
};

// The Alignments register (PG195 channel register 0x4C) checked for sense, as an engine uses
// it. An address_alignment or length_granularity that is not a power of two (0 included) is
// ignored and 64 bytes assumed: the widest XDMA datapath (512 bits), which every XDMA IP
// accepts. An address_bits outside 32..64 is ignored (a PCIe function addresses 32 bits at
// least, descriptors carry 64): the engine keeps the DMA mask it was given. Each ignored field
// gets a warning naming the register, the field and its value.
struct CheckedAlignments {
    unsigned address_alignment = 1;
    unsigned length_granularity = 1;
    unsigned address_bits = 64;  // sane: the register's; else requested_mask_bits
    std::vector<std::string> warnings;
};
CheckedAlignments check_alignments(const ChannelInfo& info, unsigned requested_mask_bits);

struct Channels {
    std::vector<ChannelInfo> h2c;
    std::vector<ChannelInfo> c2h;
};

// The DMA register space at `offset` of `bar`, 64-bit registers split low/high: 64 KiB, or up
// to the end of a smaller BAR (PG195 lets a design use a smaller one as long as the blocks the
// driver touches fit; check them with check_engine_blocks before use).
pdt::Result<vfio::RegisterWindow> dma_registers(vfio::Device& device, unsigned bar, uint64_t offset = 0);

// ERANGE naming the block, its addresses and the BAR size when the block does not fit.
pdt::Result<void> check_block(const vfio::RegisterWindow& regs, uint32_t block_target, unsigned channel = 0);
// The blocks an engine touches: its channel and SGDMA blocks, the IRQ block, SGDMA common.
pdt::Result<void> check_engine_blocks(const vfio::RegisterWindow& regs, Direction direction, unsigned channel);
// "H2C SGDMA 0", "IRQ", "SGDMA common".
std::string block_name(uint32_t block_target, unsigned channel = 0);

// Channels of one direction. An identifier reading 0xFFFFFFFF fails with ENODEV (device gone),
// never as "no channels"; channel 0's blocks beyond a small BAR fail with ERANGE (check_block).
pdt::Result<std::vector<ChannelInfo>> discover(const vfio::RegisterWindow& regs, Direction direction, bool stream);
pdt::Result<Channels> discover(const vfio::RegisterWindow& regs, bool stream);

// "H2C 0 stream version 6 address_alignment=1 length_granularity=1 address_bits=64".
std::string describe(const ChannelInfo& info);

}  // namespace xdma
