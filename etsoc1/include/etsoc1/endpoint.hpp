// The ET-SoC-1 as a streams::CopyEndpoint for the link measurement tool: each queue is a card
// stream, copies are staged by the runtime (host buffers are plain memory, also when registered
// memory is asked for: the runtime has no call to register user memory, and the buffer's
// memory() says pageable; huge pages are not offered), and copies larger than one DMA-list
// command are split.
#pragma once

#include <memory>

#include "etsoc1/card.hpp"
#include "streams/copy_endpoint.hpp"

namespace etsoc1 {

struct EndpointConfig {
    int device = 0;
    unsigned queues = 4;                   // card streams
    unsigned window = 4;                   // copies in flight per direction (4 DMA channels each)
    uint64_t card_memory_bytes = 64u << 20;  // the window copies address, allocated on the card
    bool barrier_to_card = false;          // the flags every command carries
    bool barrier_from_card = false;
    // Aborts (reset_queues, the close) wait at most this long: the tool's transfer timeout.
    std::chrono::milliseconds abort_timeout{5000};
};

// The card must outlive the endpoint.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_endpoint(Card& card, const EndpointConfig& config);

}  // namespace etsoc1
