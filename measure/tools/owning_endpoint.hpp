// A copy endpoint together with what it copies through (bus and device, opened designs, a
// model): `owned` is declared before `inner`, so it outlives the endpoint that uses it.
#pragma once

#include <memory>

#include "measure/copy_endpoint.hpp"

namespace measure_tool {

template <typename Owned>
class OwningEndpoint final : public measure::CopyEndpoint {
public:
    OwningEndpoint() = default;
    explicit OwningEndpoint(Owned from) : owned(std::move(from)) {}

    const measure::EndpointInfo& info() const override { return inner->info(); }
    vfio::Result<std::unique_ptr<measure::HostBuffer>> allocate(uint64_t bytes, measure::HostMemory memory) override {
        return inner->allocate(bytes, memory);
    }
    vfio::Result<measure::Ticket> issue(measure::Direction d, unsigned queue, measure::HostBuffer& host,
                                        uint64_t host_offset, uint64_t card_offset, uint64_t bytes) override {
        return inner->issue(d, queue, host, host_offset, card_offset, bytes);
    }
    vfio::Result<void> wait(const measure::Ticket& ticket, std::chrono::milliseconds timeout) override {
        return inner->wait(ticket, timeout);
    }
    vfio::Result<void> reset_queues() override { return inner->reset_queues(); }

    Owned owned;
    std::unique_ptr<measure::CopyEndpoint> inner;
};

}  // namespace measure_tool
