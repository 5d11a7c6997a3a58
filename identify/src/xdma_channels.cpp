#include "xdma_channels.hpp"

namespace identify {
namespace {

constexpr unsigned kMaxChannels = 4;         // PG195: up to 4 H2C and 4 C2H channels
constexpr uint32_t kSubsystemId = 0x1fc;     // identifier [31:20]
constexpr uint64_t kAlignments = 0x4c;       // channel Alignments register
constexpr uint32_t kStreamBit = 1u << 15;    // identifier [15]

}  // namespace

std::vector<Channel> discover_channels(const vfio::RegisterWindow& dma, bool stream) {
    std::vector<Channel> channels;
    for (const unsigned target : {0u, 1u}) {  // 0: H2C channels, 1: C2H channels
        for (unsigned ch = 0; ch < kMaxChannels; ++ch) {
            const uint64_t base = (uint64_t{target} << 12) | (uint64_t{ch} << 8);
            const uint32_t identifier = dma.read32(base);
            if ((identifier >> 20) != kSubsystemId || ((identifier >> 16) & 0xf) != target ||
                ((identifier & kStreamBit) != 0) != stream || ((identifier >> 8) & 0xf) != ch)
                break;
            const uint32_t alignments = dma.read32(base + kAlignments);
            Channel channel;
            channel.h2c = target == 0;
            channel.id = ch;
            channel.addr_alignment = (alignments >> 16) & 0xff;
            channel.len_granularity = (alignments >> 8) & 0xff;
            channel.num_address_bits = alignments & 0xff;
            channel.version = identifier & 0xff;
            channels.push_back(channel);
        }
    }
    return channels;
}

}  // namespace identify
