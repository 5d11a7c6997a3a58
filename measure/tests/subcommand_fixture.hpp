// What a test of the measurement subcommands (run_sweep, run_latency, run_access, ...) hands
// each call: silent progress, default settings, and the verified-bytes and warnings outputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "measure/progress.hpp"
#include "measure/subcommands.hpp"
#include "streams/copy_endpoint.hpp"

struct SubcommandTest : ::testing::Test {
    std::ostringstream silent;
    measure::Progress progress{silent, false};
    measure::CommonSettings common;
    uint64_t verified = 0;
    std::vector<std::string> warnings;
};

// Forwards every call to the endpoint it owns; a test overrides the call it watches or breaks.
class ForwardingEndpoint : public streams::CopyEndpoint {
public:
    explicit ForwardingEndpoint(std::unique_ptr<streams::CopyEndpoint> inner) : m_inner(std::move(inner)) {}
    const streams::EndpointInfo& info() const override { return m_inner->info(); }
    vfio::Result<std::unique_ptr<streams::HostBuffer>> allocate(uint64_t bytes, streams::HostMemory memory) override {
        return m_inner->allocate(bytes, memory);
    }
    vfio::Result<streams::Ticket> issue(streams::Direction d, unsigned queue, streams::HostBuffer& host,
                                        uint64_t host_offset, uint64_t card_offset, uint64_t bytes) override {
        return m_inner->issue(d, queue, host, host_offset, card_offset, bytes);
    }
    vfio::Result<void> wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) override {
        return m_inner->wait(ticket, timeout);
    }
    vfio::Result<void> reset_queues() override { return m_inner->reset_queues(); }

private:
    std::unique_ptr<streams::CopyEndpoint> m_inner;
};
