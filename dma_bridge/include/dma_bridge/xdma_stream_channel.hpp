// streams::StreamChannel for one XDMA AXI4-Stream channel (H2C or C2H): the engine plus its
// registered DMA buffers (H2C device-read-only, C2H device-write-only), so the stream tests
// of software_tests/ run on XDMA designs and on the simulated XDMA model alike.
//
//   xdma::StreamChannelOptions o;
//   o.direction = streams::Direction::C2H; o.channel = 0; o.dma_bar = 0;
//   o.buffer_count = 64; o.buffer_size = 0x10000;
//   auto c2h = PDT_TRY(xdma::XdmaStreamChannel::create(device, o));
#pragma once

#include <deque>
#include <memory>

#include "streams/stream_channel.hpp"
#include "dma_bridge/xdma_engine.hpp"
#include "dma_bridge/xdma_performance.hpp"

namespace xdma {

struct StreamChannelOptions {
    Direction direction = Direction::H2C;
    unsigned channel = 0;
    unsigned dma_bar = 0;
    uint64_t register_offset = 0;  // of the DMA register space in dma_bar
    size_t buffer_count = 16;      // buffers x descriptors per buffer must be <= 1023
    uint64_t buffer_size = 0x10000;
    RunMode mode = RunMode::Credits;
    CompletionMethod completion = CompletionMethod::PollWriteback;
    bool completion_auto = false;  // EngineOptions::completion_auto
    unsigned msi_vector = 0;  // CompletionMethod::Interrupt; enable MSI on the device first
    uint32_t max_descriptor_length = 0x0FFFFFC0;
    std::chrono::milliseconds timeout{10000};
    vfio::BufferKind buffer_kind = vfio::BufferKind::Anonymous;
    unsigned dma_mask_bits = 64;  // lowered by the engine's (Engine::dma_mask_bits) for the buffers
    // EngineOptions::coalesce_credits, off by default: a stream user waits after each submit
    // (poll/wait write the held credits), so there is little to coalesce, and receive buffers of
    // a C2H channel held back while the caller waits on another channel would starve a loopback.
    bool coalesce_credits = false;
};

class XdmaStreamChannel : public streams::StreamChannel {
public:
    // The device must outlive the channel.
    static pdt::Result<std::unique_ptr<XdmaStreamChannel>> create(vfio::Device& device, StreamChannelOptions options);

    streams::Direction direction() const override { return m_options.direction; }
    std::string name() const override { return m_engine->name(); }
    size_t buffer_count() const override { return m_options.buffer_count; }
    uint64_t buffer_size() const override { return m_options.buffer_size; }
    uint8_t* buffer(size_t index) override { return m_buffers.data() + index * m_options.buffer_size; }
    pdt::Result<void> submit(size_t index, uint64_t length, bool end_of_packet) override;
    pdt::Result<std::optional<streams::Completion>> poll() override;
    pdt::Result<streams::Completion> wait(std::chrono::milliseconds timeout) override;
    // Stops the engine (Run cleared, idle) and abandons queued buffers; the next submit
    // reinitialises the channel, so this is also the way to recover after an error or timeout.
    pdt::Result<void> stop() override;
    bool busy() const override { return m_engine->busy(); }
    void report_failure(const std::string& what) override { m_engine->report_failure(what); }
    bool start_ip_counts() override;
    std::vector<std::string> ip_counts() const override { return m_monitor.lines(); }

    Engine& engine() { return *m_engine; }
    uint64_t buffer_iova(size_t index) const { return m_buffers.iova() + index * m_options.buffer_size; }

private:
    explicit XdmaStreamChannel(StreamChannelOptions options) : m_options(options) {}
    streams::Completion completion(const TransferCompletion& done);

    StreamChannelOptions m_options;
    vfio::Device* m_device = nullptr;
    PerformanceMonitors m_monitor;    // start_ip_counts(): this channel's
    vfio::DmaRegion m_buffers;        // declared before the engine: unmapped after it stops
    std::unique_ptr<Engine> m_engine;
    std::deque<std::pair<uint64_t, size_t>> m_queue;  // transfer id, buffer index
};

}  // namespace xdma
