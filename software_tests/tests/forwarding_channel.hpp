// A streams::StreamChannel that forwards every call to a channel owned elsewhere: to hand out an
// owner of a channel another object keeps (fake_stream_device.hpp), or, derived from, to wrap a
// real channel and change what one call returns (edu_stream_vm_test's bit-flipping C2H).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "streams/stream_channel.hpp"

namespace stream_channel_test {

class ForwardingChannel : public streams::StreamChannel {
public:
    explicit ForwardingChannel(streams::StreamChannel& target) : m_target(target) {}
    streams::Direction direction() const override { return m_target.direction(); }
    std::string name() const override { return m_target.name(); }
    size_t buffer_count() const override { return m_target.buffer_count(); }
    uint64_t buffer_size() const override { return m_target.buffer_size(); }
    uint8_t* buffer(size_t index) override { return m_target.buffer(index); }
    pdt::Result<void> submit(size_t index, uint64_t length, bool eop) override {
        return m_target.submit(index, length, eop);
    }
    pdt::Result<std::optional<streams::Completion>> poll() override { return m_target.poll(); }
    pdt::Result<streams::Completion> wait(std::chrono::milliseconds timeout) override {
        return m_target.wait(timeout);
    }
    pdt::Result<void> stop() override { return m_target.stop(); }
    bool busy() const override { return m_target.busy(); }

private:
    streams::StreamChannel& m_target;
};

}  // namespace stream_channel_test
