#include "dma_bridge/xdma_discovery.hpp"

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

vfio::Result<vfio::RegisterWindow> dma_registers(vfio::Device& device, unsigned bar, uint64_t offset) {
    vfio::Bar* b = PDT_TRY(device.bar(bar));
    return b->window(offset, DMA_REGISTER_SPACE_SIZE, vfio::Access64::SplitLowHigh);
}

vfio::Result<std::vector<ChannelInfo>> discover(const vfio::RegisterWindow& regs, Direction direction, bool stream) {
    std::vector<ChannelInfo> channels;
    for (unsigned ch = 0; ch < MAX_CHANNELS; ++ch) {
        const uint64_t channel_block = block_offset(channel_target(direction), ch);
        const uint32_t id = regs.read32(channel_block + channel_reg::IDENTIFIER);
        const uint32_t sgdma_id = regs.read32(block_offset(sgdma_target(direction), ch) + sgdma_reg::IDENTIFIER);
        if (id == 0xFFFFFFFFu || sgdma_id == 0xFFFFFFFFu) {
            char object[64];
            std::snprintf(object, sizeof object, "%s channel %u identifier (BAR %u offset 0x%llx)", to_string(direction),
                          ch, regs.bar_index(), static_cast<unsigned long long>(regs.base() + channel_block));
            return vfio::make_error("discover XDMA channels", object, ENODEV,
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
        channels.push_back(info);
    }
    return channels;
}

vfio::Result<Channels> discover(const vfio::RegisterWindow& regs, bool stream) {
    Channels channels;
    channels.h2c = PDT_TRY(discover(regs, Direction::H2C, stream));
    channels.c2h = PDT_TRY(discover(regs, Direction::C2H, stream));
    return channels;
}

std::string describe(const ChannelInfo& info) {
    char text[160];
    std::snprintf(text, sizeof text, "%s %u %s version %u address_alignment=%u length_granularity=%u address_bits=%u",
                  to_string(info.direction), info.channel, info.stream ? "stream" : "memory-mapped", info.version,
                  info.address_alignment, info.length_granularity, info.address_bits);
    return text;
}

}  // namespace xdma
