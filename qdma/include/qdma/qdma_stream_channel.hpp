// QDMA AXI4-Stream queues behind the stream-channel seam (streams::StreamChannel), polled.
//
// H2C: each buffer submitted is one H2C Stream Descriptor (16B), and so one packet: in internal
// mode a packet cannot span descriptors and len holds 64K-1 bytes (PG302 "H2C Stream
// Descriptor"); a submit past that, or one that does not end its packet, is refused (EINVAL).
// Completion is the ring's status descriptor cidx.
// C2H: each buffer is one C2H Stream Descriptor (8B) of the queue's C2H_BUF_SZ, which must be
// one of the IP's QDMA_C2H_BUF_SZ values (EINVAL naming them otherwise); a submit gives the
// whole buffer. Packets come back through the completion ring (color bit, length): a packet
// fills one or more buffers in ring order, and its last buffer's completion has end_of_packet.
//
//   auto function = std::shared_ptr<qdma::Function>(PDT_TRY(qdma::Function::open(device, options)));
//   auto h2c = PDT_TRY(qdma::open_stream_channel(function, streams::Direction::H2C, 0, {.count = 64, .size = 4096}));
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "qdma/qdma_function.hpp"
#include "streams/stream_channel.hpp"
#include "streams/stream_device.hpp"

namespace qdma {

struct StreamChannelOptions {
    uint32_t ring_entries = 0;        // a QDMA_GLBL_RNG_SZ value; 0: the smallest holding count + 1 descriptors
    uint32_t completion_entries = 0;  // C2H: likewise for the completion ring
    unsigned dma_mask_bits = 64;
    std::function<void(const std::string&)> warn;  // a queue found enabled (default: stderr)
};

// Opens the function's stream queue `qid` in `direction` with buffers.count buffers of
// buffers.size bytes, registered for DMA. ENODEV when the IP has no stream engine that way.
pdt::Result<std::unique_ptr<streams::StreamChannel>> open_stream_channel(std::shared_ptr<Function> function,
                                                                         streams::Direction direction, uint32_t qid,
                                                                         const streams::ChannelBuffers& buffers,
                                                                         const StreamChannelOptions& options = {});

}  // namespace qdma
