// A copy endpoint that forwards every call to the endpoint it holds: the base of wrappers that
// add to one call (own what the endpoint copies through, record, break a copy in a test).
#pragma once

#include <memory>

#include "streams/copy_endpoint.hpp"

namespace streams {

class ForwardingEndpoint : public CopyEndpoint {
public:
    ForwardingEndpoint() = default;
    explicit ForwardingEndpoint(std::unique_ptr<CopyEndpoint> to) : inner(std::move(to)) {}

    const EndpointInfo& info() const override { return inner->info(); }
    pdt::Result<std::unique_ptr<HostBuffer>> allocate(uint64_t bytes, HostMemory memory) override {
        return inner->allocate(bytes, memory);
    }
    pdt::Result<Ticket> issue(Direction d, unsigned queue, HostBuffer& host, uint64_t host_offset, uint64_t card_offset,
                              uint64_t bytes) override {
        return inner->issue(d, queue, host, host_offset, card_offset, bytes);
    }
    pdt::Result<void> wait(const Ticket& ticket, std::chrono::milliseconds timeout) override {
        return inner->wait(ticket, timeout);
    }
    pdt::Result<void> reset_queues() override { return inner->reset_queues(); }
    pdt::Result<void> launch_empty(unsigned queue, unsigned count, std::chrono::milliseconds timeout) override {
        return inner->launch_empty(queue, count, timeout);
    }
    bool start_ip_counts() override { return inner->start_ip_counts(); }
    std::vector<std::string> ip_counts() const override { return inner->ip_counts(); }

    std::unique_ptr<CopyEndpoint> inner;
};

}  // namespace streams
