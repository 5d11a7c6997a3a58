// probe_xilinx_ip's library part (xdma_probe.hpp): PG195 "Register Space" block discovery, the
// read allow-list and the scratch-register pattern tests.
#include "dma_bridge/xdma_probe.hpp"

#include <cstdio>

#include "base/format.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_registers.hpp"
#include "vfio_access/bar_access.hpp"

namespace xdma {
namespace {

constexpr uint32_t kLastIdentifiedTarget = target::SGDMA_COMMON;

using pdt::hex32;

bool is_channel_target(uint32_t t) { return t == target::H2C_CHANNEL || t == target::C2H_CHANNEL; }
bool is_sgdma_target(uint32_t t) { return t == target::H2C_SGDMA || t == target::C2H_SGDMA; }
// The slots PG195 defines: channels 0..3 of the channel and SGDMA targets, one block of the others.
unsigned slots_of(uint32_t t) { return is_channel_target(t) || is_sgdma_target(t) ? MAX_CHANNELS : 1; }

// Registers a read of which changes nothing (PG195 register tables), by block kind. Status at
// 0x44 (clear on read) is absent on purpose.
struct ReadableRegister {
    uint32_t offset;
    const char* name;
};
constexpr ReadableRegister kChannelReadable[] = {
    {channel_reg::IDENTIFIER, "Identifier"},   {channel_reg::CONTROL, "Control"},
    {channel_reg::STATUS, "Status"},           {channel_reg::COMPLETED_DESCRIPTOR_COUNT, "Completed Descriptor Count"},
    {channel_reg::ALIGNMENTS, "Alignments"},   {channel_reg::INTERRUPT_ENABLE_MASK, "Interrupt Enable Mask"}};
constexpr ReadableRegister kSgdmaReadable[] = {{sgdma_reg::IDENTIFIER, "Identifier"},
                                               {sgdma_reg::DESCRIPTOR_LOW_ADDRESS, "Descriptor Low Address"},
                                               {sgdma_reg::DESCRIPTOR_HIGH_ADDRESS, "Descriptor High Address"},
                                               {sgdma_reg::DESCRIPTOR_ADJACENT, "Descriptor Adjacent"},
                                               {sgdma_reg::DESCRIPTOR_CREDITS, "Descriptor Credits"}};
constexpr ReadableRegister kIrqReadable[] = {{irq_reg::IDENTIFIER, "Identifier"},
                                             {irq_reg::USER_INTERRUPT_ENABLE_MASK, "User Interrupt Enable Mask"},
                                             {irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK, "Channel Interrupt Enable Mask"}};
constexpr ReadableRegister kCommonReadable[] = {
    {sgdma_common_reg::IDENTIFIER, "Identifier"},
    {sgdma_common_reg::DESCRIPTOR_CONTROL, "Descriptor Control"},
    {sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE, "Descriptor Credit Mode Enable"}};
constexpr ReadableRegister kConfigReadable[] = {{config_reg::IDENTIFIER, "Identifier"}};

template <size_t N>
std::optional<std::string> find_readable(const ReadableRegister (&table)[N], uint32_t reg) {
    for (const ReadableRegister& r : table)
        if (r.offset == reg)
            return std::string(r.name);
    return std::nullopt;
}

std::optional<std::string> readable_in(uint32_t block_target, uint32_t reg) {
    if (is_channel_target(block_target))
        return find_readable(kChannelReadable, reg);
    if (is_sgdma_target(block_target))
        return find_readable(kSgdmaReadable, reg);
    if (block_target == target::IRQ_BLOCK)
        return find_readable(kIrqReadable, reg);
    if (block_target == target::SGDMA_COMMON)
        return find_readable(kCommonReadable, reg);
    if (block_target == target::CONFIG)
        return find_readable(kConfigReadable, reg);
    return std::nullopt;
}

// The identifier register of the block at `offset` of `regs`; ENODEV when it reads all-ones.
pdt::Result<uint32_t> read_identifier(const vfio::RegisterWindow& regs, uint64_t offset) {
    const uint32_t value = regs.read32(offset + channel_reg::IDENTIFIER);
    if (value == 0xFFFFFFFFu)
        return pdt::make_error("read XDMA identifier",
                               "BAR " + std::to_string(regs.bar_index()) + " offset " + pdt::hex(regs.base() + offset),
                               ENODEV, "all-ones: the device is gone or its link is down");
    return value;
}

std::string window_object(const ScanWindow& w, uint64_t end) {
    return "BAR " + std::to_string(w.bar) + " window " + pdt::hex(w.start) + ".." + pdt::hex(end);
}

std::string request_object(const RegisterRequest& request) {
    return "BAR " + std::to_string(request.bar) + " offset " + pdt::hex(request.offset) + " width " +
           std::to_string(request.width);
}

}  // namespace

uint32_t FoundBlock::target() const { return identifier::target(identifier); }
bool FoundBlock::stream() const { return identifier::stream(identifier); }
unsigned FoundBlock::channel_id() const { return identifier::channel_id(identifier); }
unsigned FoundBlock::version() const { return identifier::version(identifier); }

pdt::Result<std::vector<FoundBlock>> scan_blocks(const vfio::RegisterWindow& regs) {
    std::vector<FoundBlock> found;
    for (uint32_t t = 0; t <= kLastIdentifiedTarget; ++t)
        for (unsigned slot = 0; slot < slots_of(t); ++slot) {
            const uint64_t offset = block_offset(t, slot);
            if (offset + REGISTER_BLOCK_SIZE > regs.size())
                continue;  // a smaller BAR holds only the slots that fit
            const uint32_t value = PDT_TRY(read_identifier(regs, offset));
            const FoundBlock block{offset, value};
            if (identifier::subsystem_identifier(value) == identifier::SUBSYSTEM_IDENTIFIER && block.target() == t &&
                (slots_of(t) == 1 || block.channel_id() == slot))
                found.push_back(block);
        }
    return found;
}

pdt::Result<vfio::RegisterWindow> check_scan_window(vfio::Device& device, const ScanWindow& w) {
    vfio::Bar* bar = PDT_TRY(device.bar(w.bar));
    const uint64_t end = w.end.value_or(bar->size());
    const std::string object = window_object(w, end);
    const std::string size = "BAR " + std::to_string(w.bar) + " is " + pdt::hex(bar->size()) + " bytes";
    if (w.start % REGISTER_BLOCK_SIZE != 0 || end % REGISTER_BLOCK_SIZE != 0)
        return pdt::usage_error("check scan window", object,
                                "-s and -e must be multiples of the 256-byte register frame (" + size + ")");
    if (end > bar->size() || w.start >= end)
        return pdt::usage_error("check scan window", object,
                                "the window must be non-empty and inside the BAR (" + size + ")");
    return bar->window(w.start, end - w.start);
}

pdt::Result<std::vector<FoundBlock>> scan_window(const vfio::RegisterWindow& regs) {
    std::vector<FoundBlock> found;
    for (uint64_t frame = 0; frame + REGISTER_BLOCK_SIZE <= regs.size(); frame += REGISTER_BLOCK_SIZE) {
        const uint64_t bar_offset = regs.base() + frame;
        const FoundBlock block{bar_offset, PDT_TRY(read_identifier(regs, frame))};
        if (identifier::subsystem_identifier(block.identifier) != identifier::SUBSYSTEM_IDENTIFIER)
            continue;
        const bool decodes_channel = is_channel_target(block.target()) || is_sgdma_target(block.target());
        if (!decodes_channel && ((bar_offset >> 8) & 0xF) != 0)
            continue;  // an alias of a block that is not per channel
        found.push_back(block);
    }
    return found;
}

std::string describe_alignments(const vfio::RegisterWindow& regs, const FoundBlock& block) {
    if (!is_channel_target(block.target()))
        return "";
    const uint32_t value = regs.read32(block.offset - regs.base() + channel_reg::ALIGNMENTS);
    return "  addr_alignment=" + std::to_string((value >> 16) & 0xFF) + " len_granularity=" +
           std::to_string((value >> 8) & 0xFF) + " address_bits=" + std::to_string(value & 0xFF);
}

std::string target_name(uint32_t t) {
    switch (t) {
    case target::H2C_CHANNEL: return "H2C Channels";
    case target::C2H_CHANNEL: return "C2H Channels";
    case target::IRQ_BLOCK: return "IRQ Block";
    case target::CONFIG: return "Config Block";
    case target::H2C_SGDMA: return "H2C SGDMA";
    case target::C2H_SGDMA: return "C2H SGDMA";
    case target::SGDMA_COMMON: return "SGDMA Common";
    case target::MSIX: return "MSI-X";
    default: return "target " + pdt::hex(t);
    }
}

std::string describe(const FoundBlock& block, uint64_t bar_offset) {
    std::string line = "Xilinx DMA bridge at BAR offset " + pdt::hex(bar_offset + block.offset) + " " +
                       target_name(block.target());
    if (is_channel_target(block.target()) || is_sgdma_target(block.target()))
        line += std::string(" stream=") + (block.stream() ? "AXI4-Stream Interface" : "AXI4 Memory Mapped Interface") +
                " channel_id_target=" + std::to_string(block.channel_id());
    return line + " version=" + std::to_string(block.version()) + " identifier=" + hex32(block.identifier);
}

std::optional<std::string> allowed_register(const std::vector<FoundBlock>& blocks, uint64_t offset) {
    for (const FoundBlock& block : blocks)
        if (offset >= block.offset && offset < block.offset + REGISTER_BLOCK_SIZE) {
            auto name = readable_in(block.target(), static_cast<uint32_t>(offset - block.offset));
            if (name)
                return target_name(block.target()) + " " + *name + " (" + pdt::hex(offset & 0xFF) + ")";
        }
    return std::nullopt;
}

std::optional<std::string> scratch_register(const std::vector<FoundBlock>& blocks, uint64_t offset) {
    for (const FoundBlock& block : blocks)
        for (const ScratchRegister& reg : scratch_registers())
            if (reg.target == block.target() && offset == block.offset + reg.offset)
                return target_name(block.target()) + " " + reg.name + " (" + pdt::hex(reg.offset) + ")";
    return std::nullopt;
}

pdt::Result<vfio::Bar*> check_access(vfio::Device& device, const RegisterRequest& request) {
    // PG195: the DMA registers are 32 bits wide, accessed 32 bits at a time.
    return vfio::check_bar_access(device, request, {4});
}

pdt::Result<void> check_request(vfio::Device& device, unsigned dma_bar, uint64_t register_offset,
                                const std::vector<FoundBlock>& blocks, const RegisterRequest& request) {
    PDT_TRY(check_access(device, request));
    const std::string object = request_object(request);
    if (request.bar != dma_bar)
        return pdt::make_error("check register access", object, EPERM,
                               "not on the allow-list: the design data names no registers in BAR " +
                                   std::to_string(request.bar) + " (the DMA bridge is BAR " + std::to_string(dma_bar) +
                                   "); a read of an unimplemented AXI address can hang the host");
    if (request.offset < register_offset || !allowed_register(blocks, request.offset - register_offset))
        return pdt::make_error("check register access", object, EPERM,
                               "not on the allow-list: no XDMA block found there names a register whose read "
                               "has no side effect (PG195 Register Space; Status 0x44 clears on read)");
    return {};
}

}  // namespace xdma
