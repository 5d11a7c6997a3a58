// The copy endpoint's calls as its adapters' tests make them (streams::CopyEndpoint): an error
// fails the test with the endpoint's message, and the test goes on with an empty result.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "streams/copy_endpoint.hpp"

// A copy-endpoint test takes these with "using namespace copy_endpoint_test": the calls and the
// seam's names they are written in.
namespace copy_endpoint_test {

using streams::Direction;
using streams::HostMemory;

// The endpoint an adapter's open_copy_endpoint made, or nullptr when it failed (the error fails
// the test).
inline std::unique_ptr<streams::CopyEndpoint> opened(pdt::Result<std::unique_ptr<streams::CopyEndpoint>> endpoint) {
    EXPECT_TRUE(endpoint.ok()) << endpoint.error().message();
    return endpoint.ok() ? std::move(endpoint).value() : nullptr;
}

inline std::unique_ptr<streams::HostBuffer> buffer(streams::CopyEndpoint& e, uint64_t bytes,
                                                   HostMemory memory = HostMemory::Registered) {
    auto b = e.allocate(bytes, memory);
    EXPECT_TRUE(b.ok()) << b.error().message();
    return b.ok() ? std::move(b).value() : nullptr;
}

inline streams::Ticket issue(streams::CopyEndpoint& e, Direction d, unsigned queue, streams::HostBuffer& host,
                             uint64_t host_offset, uint64_t card_offset, uint64_t bytes) {
    auto t = e.issue(d, queue, host, host_offset, card_offset, bytes);
    EXPECT_TRUE(t.ok()) << t.error().message();
    return t.ok() ? *t : streams::Ticket{};
}

}  // namespace copy_endpoint_test
