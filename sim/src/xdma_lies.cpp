// The lying engine (docs/verification.md, streams/lie.hpp): every data write an engine makes
// to its destination (H2C memory-mapped: card memory; C2H: host memory) goes through deliver(),
// which drops it (moves_nothing, stale_after=N past N transfers) or holds back the transfer's
// last streams::kLateTailBytes until the channel starts a transfer late_by after the completion
// (completes_early). A transfer is one descriptor; they are counted over every channel of the
// model, both directions.
#include <algorithm>

#include "late_tails.hpp"
#include "xdma_internal.hpp"

namespace sim::xdma_impl {

void raw_write(Impl& impl, bool card, uint64_t address, const uint8_t* data, uint64_t n) {
    if (card)
        impl.card_memory.write(address, data, n);
    else
        (void)impl.device.dma_write(address, data, n);  // posted: the IOMMU may refuse it
}

void deliver(Impl& impl, Channel& ch, bool card, uint64_t address, const uint8_t* data, uint64_t n) {
    if (!impl.lie.moves(impl.lie_transfers))
        return;
    if (!impl.lie.late_tail()) {
        raw_write(impl, card, address, data, n);
        return;
    }
    HeldTail& held = ch.held;
    if (!held.bytes.empty() && (held.card != card || held.address + held.bytes.size() != address)) {
        raw_write(impl, held.card, held.address, held.bytes.data(), held.bytes.size());  // not contiguous
        held.bytes.clear();
    }
    if (held.bytes.empty())
        held.address = address, held.card = card;
    held.bytes.insert(held.bytes.end(), data, data + n);
    if (held.bytes.size() > streams::kLateTailBytes) {  // all but the last bytes land now
        const uint64_t now = held.bytes.size() - streams::kLateTailBytes;
        raw_write(impl, card, held.address, held.bytes.data(), now);
        held.bytes.erase(held.bytes.begin(), held.bytes.begin() + static_cast<long>(now));
        held.address += now;
    }
}

void end_transfer(Impl& impl, Channel& ch) {
    ++impl.lie_transfers;
    if (ch.held.bytes.empty())
        return;
    ch.held.due = std::chrono::steady_clock::now() + impl.lie.late_by;
    ch.late.push_back(std::move(ch.held));
    ch.held = HeldTail{};
}

void land_late(Impl& impl, Channel& ch) {
    land_due_tails(ch.late, [&](const HeldTail& t) { raw_write(impl, t.card, t.address, t.bytes.data(), t.bytes.size()); });
}

}  // namespace sim::xdma_impl
