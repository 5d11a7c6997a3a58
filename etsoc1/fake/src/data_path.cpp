// The bounce buffer and the DMA between it and card memory (data_path.hpp).
#include "data_path.hpp"

#include <algorithm>
#include <cstring>

namespace etsoc1 {

namespace {
constexpr uint64_t kEarlyBytes = 64;  // completes_early holds back this much of a command's last node
}

uint64_t BounceBuffer::reserve(uint64_t bytes) {
    uint64_t offset = 0;
    for (const auto& [used, length] : m_used) {  // in offset order: the first gap that holds it
        if (offset + bytes <= used)
            break;
        offset = std::max(offset, used + length);
    }
    if (offset + bytes > m_bytes.size())
        m_bytes.resize(offset + bytes);
    m_used[offset] = bytes;
    return offset;
}

void BounceBuffer::release(uint64_t offset) { m_used.erase(offset); }

void DataPath::stage(const std::vector<Node>& nodes, uint64_t offset) {
    for (const Node& n : nodes) {
        std::memcpy(m_bounce.at(offset), n.host, n.bytes);
        offset += n.bytes;
    }
}

void DataPath::unstage(const std::vector<Node>& nodes, uint64_t offset) {
    for (const Node& n : nodes) {
        std::memcpy(n.host, m_bounce.at(offset), n.bytes);
        offset += n.bytes;
    }
}

bool DataPath::moves(uint64_t copy, bool failed) const {
    return !failed && !m_p.moves_nothing && !(m_p.stale_after && copy > *m_p.stale_after);
}

void DataPath::to_card(uint8_t* card, const uint8_t* from, uint64_t bytes) {
    std::memcpy(card, from, bytes);
    const auto& corrupt = m_p.corrupt_h2c_byte;
    if (corrupt && *corrupt >= m_h2c_bytes && *corrupt < m_h2c_bytes + bytes)
        card[*corrupt - m_h2c_bytes] ^= 0x5a;
    m_h2c_bytes += bytes;
}

void DataPath::land(const Late& late, const CardMemory& card) {
    if (!late.to_card) {
        std::memcpy(m_bounce.at(late.bounce), late.bytes.data(), late.bytes.size());
        return;
    }
    if (uint8_t* to = card(late.card, late.bytes.size()))
        std::memcpy(to, late.bytes.data(), late.bytes.size());
}

void DataPath::dma(bool h2c, const std::vector<Node>& nodes, uint64_t offset, uint64_t copy, bool failed,
                   const CardMemory& card) {
    std::optional<Late> earlier = std::exchange(m_late, std::nullopt);
    for (size_t i = 0; moves(copy, failed) && i < nodes.size(); offset += nodes[i++].bytes) {
        const Node& n = nodes[i];
        uint8_t* memory = card(n.card, n.bytes);
        if (memory == nullptr)
            continue;  // freed while in flight: nothing to move into or from
        const bool last = i + 1 == nodes.size();
        const uint64_t held = m_p.completes_early && last ? std::min(kEarlyBytes, n.bytes) : 0;
        const uint64_t now = n.bytes - held;
        if (h2c)
            to_card(memory, m_bounce.at(offset), now);
        else
            std::memcpy(m_bounce.at(offset), memory, now);
        if (held == 0)
            continue;
        Late late{h2c, n.card + now, offset + now, std::vector<uint8_t>(held)};
        if (h2c)
            to_card(late.bytes.data(), m_bounce.at(offset + now), held);  // counted and corrupted as received
        else
            std::memcpy(late.bytes.data(), memory + now, held);
        m_late = std::move(late);
    }
    // After this command's own bytes moved: a read-back issued as the next command still finds
    // the earlier command's last bytes missing.
    if (earlier)
        land(*earlier, card);
}

}  // namespace etsoc1
