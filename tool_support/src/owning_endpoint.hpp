// A copy endpoint together with what it copies through (bus and device, opened designs, a
// model): `owned` is declared before `inner`, so it outlives the endpoint that uses it.
#pragma once

#include <memory>

#include "streams/copy_endpoint.hpp"

namespace tool_support {

template <typename Owned>
class OwningEndpoint final : public streams::CopyEndpoint {
public:
    OwningEndpoint() = default;
    explicit OwningEndpoint(Owned from) : owned(std::move(from)) {}

    const streams::EndpointInfo& info() const override { return inner->info(); }
    vfio::Result<std::unique_ptr<streams::HostBuffer>> allocate(uint64_t bytes, streams::HostMemory memory) override {
        return inner->allocate(bytes, memory);
    }
    vfio::Result<streams::Ticket> issue(streams::Direction d, unsigned queue, streams::HostBuffer& host,
                                        uint64_t host_offset, uint64_t card_offset, uint64_t bytes) override {
        return inner->issue(d, queue, host, host_offset, card_offset, bytes);
    }
    vfio::Result<void> wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) override {
        return inner->wait(ticket, timeout);
    }
    vfio::Result<void> reset_queues() override { return inner->reset_queues(); }

    Owned owned;
    std::unique_ptr<streams::CopyEndpoint> inner;
};

}  // namespace tool_support
