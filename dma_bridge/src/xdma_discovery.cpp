#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_registers.hpp"

#include <algorithm>
#include <cstdio>

namespace xdma {
namespace {

bool identifier_matches(uint32_t value, uint32_t expected_target, bool stream, unsigned channel) {
    return identifier::subsystem_identifier(value) == identifier::SUBSYSTEM_IDENTIFIER &&
           identifier::target(value) == expected_target && identifier::stream(value) == stream &&
           identifier::channel_id(value) == channel;
}

}  // namespace

std::string decode_status(Direction direction, uint32_t value) {
    static const char* const kBits[] = {"busy", "descriptor_stopped", "descriptor_completed", "align_mismatch",
                                        "magic_stopped", "invalid_length", "idle_stopped"};
    // read_error [13:9], write_error [18:14], desc_error [23:19] (PG195 per-direction meanings).
    static const char* const kH2cRead[] = {"unsupported request", "completer abort", "parity", "header EP",
                                           "unexpected completion"};
    static const char* const kC2hRead[] = {"decode", "slave", "bit 11", "bit 12", "bit 13"};
    static const char* const kWrite[] = {"decode", "slave", "bit 16", "bit 17", "bit 18"};
    static const char* const kDesc[] = {"unsupported request", "completer abort", "parity", "header EP",
                                        "unexpected completion"};
    std::string text;
    auto add = [&](const std::string& s) { text += (text.empty() ? "" : " ") + s; };
    for (unsigned bit = 0; bit < 7; ++bit)
        if (value & (1u << bit))
            add(kBits[bit]);
    auto field = [&](const char* name, unsigned first, const char* const* names) {
        for (unsigned i = 0; i < 5; ++i)
            if (value & (1u << (first + i)))
                add(std::string(name) + "(" + names[i] + ")");
    };
    field("read_error", 9, direction == Direction::H2C ? kH2cRead : kC2hRead);
    field("write_error", 14, kWrite);
    field("desc_error", 19, kDesc);
    return text.empty() ? "idle" : text;
}

pdt::Result<vfio::RegisterWindow> dma_registers(vfio::Device& device, unsigned bar, uint64_t offset) {
    vfio::Bar* b = PDT_TRY(device.bar(bar));
    // A BAR smaller than the 64 KiB register space is legal when the blocks the driver touches
    // fit (check_engine_blocks); the window ends with the BAR so nothing beyond it is accessed.
    const uint64_t size = offset < b->size() ? std::min(DMA_REGISTER_SPACE_SIZE, b->size() - offset) : 0;
    if (size < REGISTER_BLOCK_SIZE) {
        char object[64];
        std::snprintf(object, sizeof object, "DMA BAR %u offset 0x%llx", bar, static_cast<unsigned long long>(offset));
        char hint[96];
        std::snprintf(hint, sizeof hint, "the BAR is 0x%llx bytes: no XDMA register block fits",
                      static_cast<unsigned long long>(b->size()));
        return pdt::make_error("map XDMA registers", object, ERANGE, hint);
    }
    return b->window(offset, size, vfio::Access64::SplitLowHigh);
}

pdt::Result<void> check_block(const vfio::RegisterWindow& regs, uint32_t block_target, unsigned channel) {
    const uint64_t start = block_offset(block_target, channel);
    if (start + REGISTER_BLOCK_SIZE <= regs.size())
        return {};
    char object[96];
    std::snprintf(object, sizeof object, "%s block at 0x%04llx..0x%04llx", block_name(block_target, channel).c_str(),
                  static_cast<unsigned long long>(start), static_cast<unsigned long long>(start + REGISTER_BLOCK_SIZE - 1));
    char hint[160];
    std::snprintf(hint, sizeof hint,
                  "does not fit the DMA BAR %u of 0x%llx bytes (register space from offset 0x%llx); the driver needs it",
                  regs.bar_index(), static_cast<unsigned long long>(regs.base() + regs.size()),
                  static_cast<unsigned long long>(regs.base()));
    return pdt::make_error("check XDMA register blocks", object, ERANGE, hint);
}

pdt::Result<void> check_engine_blocks(const vfio::RegisterWindow& regs, Direction direction, unsigned channel) {
    PDT_CHECK(check_block(regs, channel_target(direction), channel));
    PDT_CHECK(check_block(regs, target::IRQ_BLOCK, 0));
    PDT_CHECK(check_block(regs, sgdma_target(direction), channel));
    return check_block(regs, target::SGDMA_COMMON, 0);
}

std::string block_name(uint32_t block_target, unsigned channel) {
    const std::string ch = " " + std::to_string(channel);
    switch (block_target) {
    case target::H2C_CHANNEL: return "H2C channel" + ch;
    case target::C2H_CHANNEL: return "C2H channel" + ch;
    case target::IRQ_BLOCK: return "IRQ";
    case target::CONFIG: return "config";
    case target::H2C_SGDMA: return "H2C SGDMA" + ch;
    case target::C2H_SGDMA: return "C2H SGDMA" + ch;
    case target::SGDMA_COMMON: return "SGDMA common";
    case target::MSIX: return "MSI-X";
    }
    return "target " + std::to_string(block_target);
}

pdt::Result<std::vector<ChannelInfo>> discover(const vfio::RegisterWindow& regs, Direction direction, bool stream) {
    std::vector<ChannelInfo> channels;
    for (unsigned ch = 0; ch < MAX_CHANNELS; ++ch) {
        // Channel 0's blocks must fit the BAR; a later channel whose blocks do not cannot exist.
        if (auto fits = check_block(regs, channel_target(direction), ch); !fits.ok())
            return ch == 0 ? pdt::Result<std::vector<ChannelInfo>>(fits.error()) : channels;
        if (auto fits = check_block(regs, sgdma_target(direction), ch); !fits.ok())
            return ch == 0 ? pdt::Result<std::vector<ChannelInfo>>(fits.error()) : channels;
        const uint64_t channel_block = block_offset(channel_target(direction), ch);
        const uint32_t id = regs.read32(channel_block + channel_reg::IDENTIFIER);
        const uint32_t sgdma_id = regs.read32(block_offset(sgdma_target(direction), ch) + sgdma_reg::IDENTIFIER);
        if (id == 0xFFFFFFFFu || sgdma_id == 0xFFFFFFFFu) {
            char object[64];
            std::snprintf(object, sizeof object, "%s channel %u identifier (BAR %u offset 0x%llx)", to_string(direction),
                          ch, regs.bar_index(), static_cast<unsigned long long>(regs.base() + channel_block));
            return pdt::make_error("discover XDMA channels", object, ENODEV,
                                   "identifier reads 0xffffffff: device gone (link down or surprise removal)");
        }
        if (!identifier_matches(id, channel_target(direction), stream, ch) ||
            !identifier_matches(sgdma_id, sgdma_target(direction), stream, ch))
            break;
        const uint32_t alignments = regs.read32(channel_block + channel_reg::ALIGNMENTS);
        ChannelInfo info;
        info.direction = direction;
        info.channel = ch;
        info.stream = stream;
        info.version = identifier::version(id);
        info.identifier = id;
        info.address_alignment = (alignments >> 16) & 0xFF;
        info.length_granularity = (alignments >> 8) & 0xFF;
        info.address_bits = alignments & 0xFF;
        info.alignments = alignments;
        channels.push_back(info);
    }
    return channels;
}

pdt::Result<Channels> discover(const vfio::RegisterWindow& regs, bool stream) {
    Channels channels;
    channels.h2c = PDT_TRY(discover(regs, Direction::H2C, stream));
    channels.c2h = PDT_TRY(discover(regs, Direction::C2H, stream));
    return channels;
}

CheckedAlignments check_alignments(const ChannelInfo& info, unsigned requested_mask_bits) {
    CheckedAlignments checked{info.address_alignment, info.length_granularity, info.address_bits, {}};
    char reg[64];
    std::snprintf(reg, sizeof reg, "Alignments register (0x4C) reads 0x%08x: ", info.alignments);
    auto power_of_two = [](unsigned v) { return v != 0 && (v & (v - 1)) == 0; };
    for (auto [name, field] : {std::pair{"address_alignment", &checked.address_alignment},
                               std::pair{"length_granularity", &checked.length_granularity}}) {
        if (power_of_two(*field))
            continue;
        checked.warnings.push_back(std::string(reg) + name + " " + std::to_string(*field) +
                                   " is not a power of two; ignored, assuming 64 bytes (the widest XDMA datapath)");
        *field = 64;
    }
    if (info.address_bits < 32 || info.address_bits > 64) {
        checked.warnings.push_back(std::string(reg) + "address_bits " + std::to_string(info.address_bits) +
                                   " makes no sense (a PCIe DMA engine has 32 to 64); ignored, using a " +
                                   std::to_string(requested_mask_bits) + "-bit DMA mask");
        checked.address_bits = requested_mask_bits;
    }
    return checked;
}

std::string describe(const ChannelInfo& info) {
    char text[160];
    std::snprintf(text, sizeof text, "%s %u %s version %u address_alignment=%u length_granularity=%u address_bits=%u",
                  to_string(info.direction), info.channel, info.stream ? "stream" : "memory-mapped", info.version,
                  info.address_alignment, info.length_granularity, info.address_bits);
    return text;
}

}  // namespace xdma
