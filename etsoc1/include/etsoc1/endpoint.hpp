// The ET-SoC-1 as a streams::CopyEndpoint for the link measurement tool: each queue is a card
// stream, copies are staged by the runtime (host buffers are plain memory, also when registered
// memory is asked for: the runtime has no call to register user memory, and the buffer's
// memory() says pageable; huge pages are not offered), and copies larger than one DMA-list
// command are split.
#pragma once

#include <memory>

#include "etsoc1/card.hpp"
#include "etsoc1/transfers.hpp"
#include "streams/copy_endpoint.hpp"

namespace etsoc1 {

struct EndpointConfig {
    // The card, the copies in flight per direction (window: 4 DMA channels each), the card
    // streams that are the endpoint's queues (streams_per_direction), the flags every command
    // carries and how long aborts (reset_queues, the close) wait: the tool's transfer timeout.
    MoverConfig mover;
    uint64_t card_memory_bytes = 64u << 20;  // the window copies address, allocated on the card
};

// The card must outlive the endpoint.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_endpoint(Card& card, const EndpointConfig& config);

}  // namespace etsoc1
