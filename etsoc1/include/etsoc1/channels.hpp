// The ET-SoC-1 as a card with DMA stream channels, behind the neutral seam
// streams::StreamChannel, so the stream-test drivers that run XDMA, edu and CUDA channels move
// and verify data through the card's memory. A Loop pairs an H2C and a C2H channel: the n-th
// H2C buffer is copied into card slot n % slots, and the n-th C2H buffer is copied back from
// that slot once its H2C copy completed, so the host verifies every byte it sent. Host buffers
// are plain memory: the runtime stages every copy through its bounce buffer anyway. The C2H
// copy reads the slot in other pieces than the H2C copy wrote it, last piece first (halves,
// second half first, for a slot up to two DMA nodes: split_last_first), so that a card that
// moves nothing and leaves the H2C bytes in the reused bounce buffer fails the data check
// (docs/verification.md rule 3) instead of handing them straight back.
#pragma once

#include <cstdint>
#include <memory>

#include "etsoc1/card.hpp"
#include "etsoc1/transfers.hpp"
#include "streams/stream_channel.hpp"

namespace etsoc1 {

struct ChannelConfig {
    int device = 0;
    unsigned channel = 0;        // names the channels
    size_t buffer_count = 8;     // host buffers per channel, and card slots of the loop
    uint64_t buffer_size = 16u << 20;  // a multiple of 4
    unsigned window = 2;         // copies in flight per direction, each on its own card stream
    std::chrono::milliseconds abort_timeout{5000};  // a stop's aborts, all streams together
};

class Loop;
// Allocates the loop's card slots and its streams; the card must outlive the loop.
pdt::Result<std::shared_ptr<Loop>> make_loop(Card& card, const ChannelConfig& config);

pdt::Result<std::unique_ptr<streams::StreamChannel>> open_h2c(std::shared_ptr<Loop> loop);
pdt::Result<std::unique_ptr<streams::StreamChannel>> open_c2h(std::shared_ptr<Loop> loop);

}  // namespace etsoc1
