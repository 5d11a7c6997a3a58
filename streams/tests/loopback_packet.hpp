// One packet through a stream loopback, as the stream-channel adapters' tests check it (XDMA,
// edu): the H2C channel completes the buffer sent, then the C2H channel completes the buffer
// expected, holding the packet's bytes.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>

#include "streams/stream_channel.hpp"

namespace stream_channel_test {

// For ASSERT_TRUE: `tx` completes buffer `sent`, then `rx` completes buffer `received` with
// `length` bytes, end of packet `eop`, the bytes those of `sent`; each within `timeout`.
inline testing::AssertionResult packet_came_back(streams::StreamChannel& tx, size_t sent, streams::StreamChannel& rx,
                                                 size_t received, uint64_t length, bool eop,
                                                 std::chrono::milliseconds timeout) {
    auto h2c = tx.wait(timeout);
    if (!h2c.ok())
        return testing::AssertionFailure() << h2c.error().message();
    if (h2c->buffer != sent)
        return testing::AssertionFailure() << "H2C completed buffer " << h2c->buffer << ", not " << sent;
    auto c2h = rx.wait(timeout);
    if (!c2h.ok())
        return testing::AssertionFailure() << c2h.error().message();
    if (c2h->buffer != received || c2h->length != length || c2h->end_of_packet != eop)
        return testing::AssertionFailure() << "C2H completed buffer " << c2h->buffer << " of " << c2h->length
                                           << " bytes, end of packet " << c2h->end_of_packet << "; expected buffer "
                                           << received << " of " << length << " bytes, end of packet " << eop;
    if (std::memcmp(rx.buffer(received), tx.buffer(sent), length) != 0)
        return testing::AssertionFailure() << "C2H buffer " << received << " differs from H2C buffer " << sent;
    return testing::AssertionSuccess();
}

}  // namespace stream_channel_test
