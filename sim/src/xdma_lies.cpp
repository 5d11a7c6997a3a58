// The lying engine (docs/verification.md, streams/lie.hpp): every data write an engine makes
// to its destination (H2C memory-mapped: card memory; C2H: host memory) goes through deliver(),
// which drops it (moves_nothing, stale_after=N past N transfers) or holds back the transfer's
// last streams::kLateTailBytes until the channel starts a transfer late_by after the completion
// (completes_early). A transfer is one descriptor; they are counted over every channel of the
// model, both directions.
#include "xdma_internal.hpp"

namespace sim::xdma_impl {

void raw_write(Impl& impl, bool card, uint64_t address, const uint8_t* data, uint64_t n) {
    if (card)
        impl.card_memory.write(address, data, n);
    else
        (void)impl.device.dma_write(address, data, n);  // posted: the IOMMU may refuse it
}

namespace {

// raw_write to `impl`: how held-back bytes land.
auto raw_writer(Impl& impl) {
    return [&impl](bool card, uint64_t address, const uint8_t* data, uint64_t n) { raw_write(impl, card, address, data, n); };
}

}  // namespace

void deliver(Impl& impl, Channel& ch, bool card, uint64_t address, const uint8_t* data, uint64_t n) {
    ch.tails.deliver(impl.lie, impl.lie_transfers, card, address, data, n, raw_writer(impl));
}

void end_transfer(Impl& impl, Channel& ch) {
    ++impl.lie_transfers;
    ch.tails.end_transfer(impl.lie.late_by);
}

void land_late(Impl& impl, Channel& ch) { ch.tails.land_due(raw_writer(impl)); }

}  // namespace sim::xdma_impl
