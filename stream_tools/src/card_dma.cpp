#include "stream_tools/card_dma.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <thread>

#include "base/format.hpp"
#include "stream_test/rate_counter.hpp"
#include "stream_tools/stream_tools.hpp"

namespace stream_tools {

pdt::Result<XdmaCardDma> XdmaCardDma::open(vfio::Device& device, const Options& options) {
    xdma::EngineOptions engine;
    engine.stream = false;
    engine.dma_bar = options.dma_bar;
    engine.ring_descriptors = options.ring_descriptors;
    engine.dma_mask_bits = options.dma_mask_bits;
    engine.timeout = options.timeout;
    // Credits ring: one Descriptor Credits write per batch of submits, not per descriptor (the
    // F20 host cost of 40 ns a descriptor). run() polls every engine with work in flight in the
    // same round as it submits, and a poll writes the held credits: none wait on another engine.
    engine.coalesce_credits = true;
    XdmaCardDma dma;
    dma.m_timeout = options.timeout;
    dma.m_ring_descriptors = options.ring_descriptors;
    engine.direction = xdma::Direction::H2C;
    engine.channel = options.h2c_channel;
    PDT_TRY(xdma::configure_engine(device, options.ip, options.modes, engine));
    dma.m_h2c = PDT_TRY(xdma::Engine::open(device, engine));
    engine.direction = xdma::Direction::C2H;
    engine.channel = options.c2h_channel;
    PDT_TRY(xdma::configure_engine(device, options.ip, options.modes, engine));
    dma.m_c2h = PDT_TRY(xdma::Engine::open(device, engine));
    return dma;
}

pdt::Result<void> XdmaCardDma::stop() {
    auto h2c = m_h2c->stop();
    auto c2h = m_c2h->stop();
    PDT_CHECK(std::move(h2c));
    return c2h;
}

std::string XdmaCardDma::name(streams::Direction direction) const {
    return std::string(streams::to_string(direction)) + " channel " + std::to_string(engine(direction).options().channel);
}

CardDma::Alignment XdmaCardDma::alignment(streams::Direction direction) const {
    const xdma::ChannelInfo& info = engine(direction).info();
    return Alignment{info.address_alignment, info.length_granularity};
}

size_t XdmaCardDma::descriptors_for(streams::Direction direction, uint64_t length) const {
    return engine(direction).descriptors_for(length);
}

// Keeps both rings as full as their free descriptors allow; a C2H chunk starts only after the
// H2C chunk that wrote it completed (when both directions take part).
pdt::Result<void> XdmaCardDma::run(const vfio::DmaRegion* h2c_host, const vfio::DmaRegion* c2h_host,
                                const std::vector<Chunk>& chunks) {
    const size_t n = chunks.size();
    size_t h2c_started = 0, h2c_done = h2c_host ? 0 : n, c2h_started = 0, c2h_done = c2h_host ? 0 : n;
    if (!h2c_host)
        h2c_started = n;
    auto last_progress = std::chrono::steady_clock::now();
    while (h2c_done < n || c2h_done < n) {
        if (stop_requested())
            return stopped_early(m_h2c->name());
        bool progress = false;
        while (h2c_host && h2c_started < n &&
               m_h2c->free_descriptors() >= m_h2c->descriptors_for(chunks[h2c_started].length)) {
            const Chunk& c = chunks[h2c_started++];
            PDT_TRY(m_h2c->submit_memory(h2c_host->iova() + c.host_offset, c.card_address, c.length));
        }
        while (c2h_host && c2h_started < h2c_done &&
               m_c2h->free_descriptors() >= m_c2h->descriptors_for(chunks[c2h_started].length)) {
            const Chunk& c = chunks[c2h_started++];
            PDT_TRY(m_c2h->submit_memory(c2h_host->iova() + c.host_offset, c.card_address, c.length));
        }
        if (h2c_done < h2c_started && PDT_TRY(m_h2c->poll())) {
            ++h2c_done;
            progress = true;
        }
        if (c2h_done < c2h_started && PDT_TRY(m_c2h->poll())) {
            ++c2h_done;
            progress = true;
        }
        if (!progress && m_h2c->options().completion == xdma::CompletionMethod::Interrupt) {
            const Waited waited = PDT_TRY(wait_interrupt(h2c_done < h2c_started, c2h_done < c2h_started));
            h2c_done += waited == Waited::H2c;
            c2h_done += waited == Waited::C2h;
            progress = waited != Waited::None;
        }
        const auto now = std::chrono::steady_clock::now();
        if (progress) {
            last_progress = now;
        } else if (now - last_progress > m_timeout) {
            const bool h2c_stuck = h2c_done < h2c_started;
            const xdma::Engine& stuck = *(h2c_stuck ? m_h2c : m_c2h);
            pdt::Error error = pdt::make_error("memory-mapped DMA", stuck.name(), ETIMEDOUT,
                                               "no transfer completed within the transfer timeout of " +
                                                   std::to_string(m_timeout.count()) + " ms: " + stuck.describe_state());
            stuck.report_failure(error.message());
            return error;
        } else if (m_h2c->options().completion != xdma::CompletionMethod::Interrupt) {
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }
    return {};
}

// Interrupt completion: sleeps on the MSI of an engine with a transfer in flight (taking turns
// when both have one) for a short slice, so that the other engine and the deadline are seen.
pdt::Result<XdmaCardDma::Waited> XdmaCardDma::wait_interrupt(bool h2c_busy, bool c2h_busy) {
    if (!h2c_busy && !c2h_busy)
        return Waited::None;
    m_wait_c2h = c2h_busy && (!h2c_busy || !m_wait_c2h);
    xdma::Engine& engine = m_wait_c2h ? *m_c2h : *m_h2c;
    auto done = engine.wait(std::chrono::milliseconds(2));
    if (done.ok())
        return m_wait_c2h ? Waited::C2h : Waited::H2c;
    if (done.error().code == ETIMEDOUT)
        return Waited::None;
    return done.error();
}

void TransferTiming::add(std::chrono::nanoseconds elapsed) {
    ++m_count;
    m_total += elapsed;
    m_min = std::min(m_min, elapsed);
    m_max = std::max(m_max, elapsed);
}

// One figure of the report as fpga_sio prints it (transfer_timing.c: "  %s = %0.6lf (Mbytes/sec)"
// with the names " Min", "Mean", " Max"): "  Mean = 428.571429 (Mbytes/sec)"; or, over an interval
// too short to mean anything (under 10 ms or 1 MiB, as the stream tools' intervals), no rate but
// what was measured: "   Max: too short for a rate (4096 bytes in 0.000003 s)".
std::string TransferTiming::figure(const char* name, uint64_t bytes, std::chrono::nanoseconds t) {
    const double seconds = static_cast<double>(t.count()) / 1e9;
    if (seconds < stream_test::kMinRateSeconds || bytes < stream_test::kMinRateBytes)
        return pdt::format("  %4s: too short for a rate (%" PRIu64 " bytes in %.6f s)\n", name, bytes, seconds);
    return pdt::format("  %4s = %.6f (Mbytes/sec)\n", name, static_cast<double>(bytes) / seconds / 1e6);
}

std::string TransferTiming::report() const {
    std::string text = pdt::format("%s timing for %" PRIu64 " transfers of %" PRIu64 " bytes:\n", m_name.c_str(),
                                   m_count, m_bytes);
    if (m_count == 0)
        return text;
    // Min rate from the longest time, Max rate from the shortest.
    if (m_count > 1)
        text += figure("Min", m_bytes, m_max);
    text += figure("Mean", m_bytes * m_count, m_total);
    if (m_count > 1)
        text += figure("Max", m_bytes, m_min);
    return text;
}

}  // namespace stream_tools
