// XDMA model: construction, the register block in the BAR, the engine thread or stepping,
// the throttle, card memory and the public control API.
#include <algorithm>
#include <bit>
#include <cstring>

#include "xdma_internal.hpp"

namespace sim {

const char* to_string(XdmaFault fault) {
    switch (fault) {
    case XdmaFault::EngineStall: return "engine stall";
    case XdmaFault::EngineHang: return "engine hang";
    case XdmaFault::DescriptorReadError: return "descriptor read error";
    case XdmaFault::BadMagic: return "bad descriptor magic";
    case XdmaFault::DataBitFlip: return "data bit flip";
    case XdmaFault::DropPacket: return "dropped packet";
    case XdmaFault::DuplicatePacket: return "duplicated packet";
    case XdmaFault::ReorderPacket: return "reordered packet";
    case XdmaFault::ShortC2hLength: return "short C2H length";
    case XdmaFault::OverrunOneByte: return "overrun by one byte";
    }
    return "unknown fault";
}

namespace xdma_impl {

Impl::Impl(SimDevice& dev, XdmaConfig cfg) : device(dev), config(cfg) {
    config.num_h2c = std::min(config.num_h2c, kMaxChannels);
    config.num_c2h = std::min(config.num_c2h, kMaxChannels);
    for (unsigned i = 0; i < config.num_h2c; ++i) {
        h2c.emplace_back();
        h2c.back().direction = XdmaDirection::H2C;
        h2c.back().index = i;
        routes.push_back(i < config.num_c2h ? std::optional<unsigned>(i) : std::nullopt);
    }
    for (unsigned i = 0; i < config.num_c2h; ++i) {
        c2h.emplace_back();
        c2h.back().direction = XdmaDirection::C2H;
        c2h.back().index = i;
    }
}

void Impl::notify() { cv.notify_all(); }

size_t Impl::step_locked(std::chrono::steady_clock::time_point now, bool throttle) {
    size_t progressed = 0;
    const size_t total = h2c.size() + c2h.size();
    for (size_t k = 0; k < total; ++k) {
        const size_t i = (round_robin + k) % total;
        Channel& ch = i < h2c.size() ? h2c[i] : c2h[i - h2c.size()];
        if (timed_mm()) {
            progressed += step_timed_mm(ch, now);
            continue;
        }
        const int dir = ch.direction == XdmaDirection::H2C ? 0 : 1;
        if (throttle && link_free_at[dir] > now)
            continue;
        const uint64_t before = bytes_moved;
        if (!advance(ch))
            continue;
        ++progressed;
        if (throttle) {
            const double seconds = static_cast<double>(bytes_moved - before) / config.link_bytes_per_second;
            // When work was waiting as the link's last transfer ended, the link stayed busy: a
            // late wake-up of this thread is caught up, so the rate holds on average under
            // scheduling noise. An idle link saves no credit.
            const auto base = link_backlogged[dir] ? link_free_at[dir] : std::max(link_free_at[dir], now);
            link_free_at[dir] = base + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                           std::chrono::duration<double>(seconds));
            link_backlogged[dir] = false;
            for (const Channel& other : ch.direction == XdmaDirection::H2C ? h2c : c2h)
                link_backlogged[dir] = link_backlogged[dir] || has_work(other);
        }
    }
    round_robin = (round_robin + 1) % std::max<size_t>(total, 1);
    return progressed;
}

bool Impl::timed_mm() const {
    return !config.stream && (config.link_bytes_per_second > 0 || config.link_latency.count() > 0);
}

// A memory-mapped channel on a timed link: the link takes the fetched descriptor when it is free
// (one direction's channels share it, back to back); its data moves then, and it completes
// (count, writeback, status) link_latency plus its transfer time later.
bool Impl::step_timed_mm(Channel& ch, std::chrono::steady_clock::time_point now) {
    using duration = std::chrono::steady_clock::duration;
    bool progressed = false;
    if (ch.link_done_at) {
        const bool waiting = ch.current && ch.running && !ch.stalled;
        if (waiting && now < *ch.link_done_at)
            return false;
        if (waiting)
            complete_timed_mm(ch);
        ch.link_done_at.reset();  // completed, or stopped (Run cleared, reset) before it did
        progressed = true;
    }
    const int dir = ch.direction == XdmaDirection::H2C ? 0 : 1;
    if (link_free_at[dir] > now || !start_timed_mm(ch))
        return progressed;
    if (!ch.current || ch.stalled)
        return true;  // stopped on an error, or hung with no card memory answering
    const double seconds =
        config.link_bytes_per_second > 0 ? static_cast<double>(ch.current->length) / config.link_bytes_per_second : 0;
    link_free_at[dir] = std::max(link_free_at[dir], now) + std::chrono::duration_cast<duration>(std::chrono::duration<double>(seconds));
    ch.link_done_at = link_free_at[dir] + std::chrono::duration_cast<duration>(config.link_latency);
    return true;
}

void Impl::engine_thread() {
    using clock = std::chrono::steady_clock;
    const bool throttle = config.link_bytes_per_second > 0 || timed_mm();
    std::unique_lock lock(mutex);
    while (!stopping) {
        const uint64_t seen = generation;
        const auto now = clock::now();
        if (step_locked(now, throttle) > 0) {
            lock.unlock();  // let register accesses in between rounds
            std::this_thread::yield();
            lock.lock();
            continue;
        }
        auto deadline = now + std::chrono::milliseconds(100);
        if (throttle)
            for (const auto& at : link_free_at)
                if (at > now)
                    deadline = std::min(deadline, at);
        for (const auto* channels : {&h2c, &c2h})
            for (const Channel& ch : *channels)
                for (const auto& at : {ch.link_done_at, ch.late_due})
                    if (at && *at > now)
                        deadline = std::min(deadline, *at);
        cv.wait_until(lock, deadline, [&] { return stopping || generation != seen; });
    }
}

}  // namespace xdma_impl

template class DmaModel<xdma_impl::Impl, XdmaConfig>;

std::shared_ptr<XdmaModel> XdmaModel::attach(SimDevice& device, SimBar& bar, XdmaConfig config) {
    // The datapaths PG195 offers (Config Block PCIE Data Width): 64 to 512 bits.
    config.data_width_bytes = std::clamp(std::bit_floor(std::max(config.data_width_bytes, 1u)), 8u, 64u);
    std::shared_ptr<XdmaModel> model(new XdmaModel(device, config));
    // PG195 address map: a BAR smaller than the 64 KiB register space holds only the blocks that
    // fit (channels 0x0000/0x1000, IRQ 0x2000, config 0x3000, SGDMA 0x4000/0x5000, common 0x6000,
    // MSI-X 0x8000); the rest is absent.
    device.set_user_interrupt_model(model);
    const uint64_t room = bar.size() > config.block_offset ? bar.size() - config.block_offset : 0;
    // Registers are 32 bits wide; a 64-bit read returns all-ones and a 64-bit write updates only
    // the lower half (fpga_sio's observation of the IP), so drivers must use Access64::SplitLowHigh.
    return attach_model(device, bar, config.block_offset, std::min<uint64_t>(0x10000, room), /*both_halves=*/false,
                        model, model->m_impl);
}

void XdmaModel::set_route(unsigned h2c, std::optional<unsigned> c2h) {
    std::lock_guard lock(m_impl->mutex);
    if (h2c < m_impl->routes.size())
        m_impl->routes[h2c] = c2h;
}

std::optional<unsigned> XdmaModel::route(unsigned h2c) const {
    std::lock_guard lock(m_impl->mutex);
    if (m_impl->router)
        return m_impl->router(h2c);
    return h2c < m_impl->routes.size() ? m_impl->routes[h2c] : std::nullopt;
}

void XdmaModel::set_router(std::function<std::optional<unsigned>(unsigned)> router) {
    std::lock_guard lock(m_impl->mutex);
    m_impl->router = std::move(router);
}

void XdmaModel::push_c2h(unsigned c2h, std::vector<uint8_t> data, bool end_of_packet) {
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->push_c2h_locked(c2h, std::move(data), end_of_packet);
    }
    m_impl->notify();
}

uint64_t XdmaModel::c2h_pending_bytes(unsigned c2h) const {
    std::lock_guard lock(m_impl->mutex);
    return c2h < m_impl->c2h.size() ? m_impl->c2h[c2h].input_bytes : 0;
}

uint64_t XdmaModel::c2h_peak_pending_bytes() const {
    std::lock_guard lock(m_impl->mutex);
    return m_impl->peak_pending;
}

void XdmaModel::inject(XdmaDirection direction, unsigned channel, XdmaFault fault) {
    {
        std::lock_guard lock(m_impl->mutex);
        if (auto* ch = m_impl->channel(direction, channel))
            ch->faults.push_back(fault);
        ++m_impl->generation;
    }
    m_impl->notify();
}

void XdmaModel::set_ignores_stop() {
    std::lock_guard lock(m_impl->mutex);
    m_impl->config.run_clear_ignored = true;
}

streams::Lie XdmaModel::lie() const {
    std::lock_guard lock(m_impl->mutex);
    return m_impl->lie;
}

void XdmaModel::clear_faults() {
    std::lock_guard lock(m_impl->mutex);
    for (auto* list : {&m_impl->h2c, &m_impl->c2h})
        for (auto& ch : *list)
            ch.faults.clear();
}

std::vector<XdmaViolation> XdmaModel::violations() const {
    std::lock_guard lock(m_impl->mutex);
    return m_impl->violations;
}

uint64_t XdmaModel::descriptors_processed(XdmaDirection direction, unsigned channel) const {
    std::lock_guard lock(m_impl->mutex);
    const auto* ch = m_impl->channel(direction, channel);
    return ch ? ch->processed : 0;
}

size_t XdmaModel::faults_pending(XdmaDirection direction, unsigned channel) const {
    std::lock_guard lock(m_impl->mutex);
    const auto* ch = m_impl->channel(direction, channel);
    return ch ? ch->faults.size() : 0;
}

bool XdmaModel::busy(XdmaDirection direction, unsigned channel) const {
    std::lock_guard lock(m_impl->mutex);
    auto* ch = m_impl->channel(direction, channel);
    if (ch)
        m_impl->settle(*ch);
    return ch && (ch->status & xdma_impl::kStatusBusy);
}

}  // namespace sim
