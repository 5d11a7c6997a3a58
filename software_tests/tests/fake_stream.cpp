#include "fake_stream.hpp"

#include <cstring>

#include "pattern/pattern.hpp"

namespace fake {

class FakeChannel : public streams::StreamChannel {
public:
    FakeChannel(FakeLoopback& loop, streams::Direction direction, std::string name, size_t count, uint64_t size)
        : m_loop(loop), m_direction(direction), m_name(std::move(name)), m_size(size),
          m_buffers(count, std::vector<uint32_t>(size / 4, 0)) {}

    streams::Direction direction() const override { return m_direction; }
    std::string name() const override { return m_name; }
    size_t buffer_count() const override { return m_buffers.size(); }
    uint64_t buffer_size() const override { return m_size; }
    uint8_t* buffer(size_t index) override { return reinterpret_cast<uint8_t*>(m_buffers.at(index).data()); }

    pdt::Result<void> submit(size_t index, uint64_t length, bool end_of_packet) override {
        if (index >= m_buffers.size() || length > m_size)
            return pdt::make_error("submit", m_name, EINVAL);
        std::lock_guard lock(m_loop.m_mutex);
        queued.push_back(Queued{index, length, end_of_packet});
        if (m_direction == streams::Direction::C2H)
            m_loop.c2h_submitted(index);
        m_loop.pump();
        m_loop.m_changed.notify_all();
        return {};
    }
    pdt::Result<std::optional<streams::Completion>> poll() override {
        std::lock_guard lock(m_loop.m_mutex);
        return take();
    }
    pdt::Result<streams::Completion> wait(std::chrono::milliseconds timeout) override {
        std::unique_lock lock(m_loop.m_mutex);
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            auto taken = take();
            if (!taken.ok())
                return std::move(taken).error();
            if (*taken)
                return **taken;
            if (m_loop.m_changed.wait_until(lock, deadline) == std::cv_status::timeout && !has_work())
                return pdt::make_error("wait", m_name, ETIMEDOUT);
        }
    }
    pdt::Result<void> stop() override {
        std::lock_guard lock(m_loop.m_mutex);
        if (m_loop.stop_leaves_busy() && m_direction == streams::Direction::C2H)
            return {};
        queued.clear();
        completed.clear();
        if (m_direction == streams::Direction::C2H) {
            m_loop.m_late.reset();
            m_loop.m_awaiting_resubmit.reset();
        }
        stops++;
        return {};
    }
    bool busy() const override {
        std::lock_guard lock(m_loop.m_mutex);
        return !queued.empty();
    }

    struct Queued {
        size_t index;
        uint64_t length;
        bool eop;
    };
    std::deque<Queued> queued;
    std::deque<streams::Completion> completed;
    bool error = false;
    int stops = 0;

private:
    bool has_work() const { return !completed.empty() || error; }
    pdt::Result<std::optional<streams::Completion>> take() {
        m_loop.pump();
        if (error) {
            error = false;
            return pdt::make_error("C2H transfer", m_name, EIO, "injected fault");
        }
        if (completed.empty())
            return std::optional<streams::Completion>{};
        auto completion = completed.front();
        completed.pop_front();
        m_loop.m_changed.notify_all();
        return std::optional<streams::Completion>{completion};
    }

    FakeLoopback& m_loop;
    streams::Direction m_direction;
    std::string m_name;
    uint64_t m_size;
    std::vector<std::vector<uint32_t>> m_buffers;
};

FakeLoopback::FakeLoopback(LoopbackConfig config) : m_config(std::move(config)) {
    const size_t c2h_buffers = m_config.c2h_buffers ? m_config.c2h_buffers : m_config.buffers;
    const uint64_t c2h_size = m_config.c2h_buffer_size ? m_config.c2h_buffer_size : m_config.buffer_size;
    m_h2c = std::make_unique<FakeChannel>(*this, streams::Direction::H2C,
                                          m_config.bdf + " H2C " + std::to_string(m_config.h2c_channel),
                                          m_config.buffers, m_config.buffer_size);
    m_c2h = std::make_unique<FakeChannel>(*this, streams::Direction::C2H,
                                          m_config.bdf + " C2H " + std::to_string(m_config.c2h_channel),
                                          c2h_buffers, c2h_size);
    if (m_config.c2h_prefill_stream) {
        const pattern::Pattern prefill(*m_config.c2h_prefill_stream, 0);
        for (size_t i = 0; i < c2h_buffers; ++i)
            prefill.generate(reinterpret_cast<uint32_t*>(m_c2h->buffer(i)), c2h_size / 4, i * (c2h_size / 4));
    }
}

FakeLoopback::~FakeLoopback() = default;
streams::StreamChannel& FakeLoopback::h2c() { return *m_h2c; }
streams::StreamChannel& FakeLoopback::c2h() { return *m_c2h; }
uint64_t FakeLoopback::packets_sent() const { return m_packets; }

void FakeLoopback::pump() {
    move_c2h();
    move_h2c();
    move_c2h();
}

void FakeLoopback::deliver(Packet packet) {
    if (m_held) {  // Reorder: the held packet goes after this one
        m_fifo.push_back(std::move(packet));
        m_fifo.push_back(std::move(*m_held));
        m_held.reset();
        return;
    }
    m_fifo.push_back(std::move(packet));
}

// H2C buffers complete once their packet fits in the FIFO (back-pressure as on a card).
void FakeLoopback::move_h2c() {
    auto& h2c = *m_h2c;
    while (!h2c.queued.empty() && m_fifo.size() < m_config.fifo_packets) {
        const auto queued = h2c.queued.front();
        h2c.queued.pop_front();
        Packet packet;
        const uint8_t* data = h2c.buffer(queued.index);
        packet.data.assign(data, data + queued.length);
        h2c.completed.push_back(streams::Completion{queued.index, queued.length, queued.eop});
        const bool hit = m_config.fault != Fault::None && m_packets == m_config.fault_packet;
        ++m_packets;
        if (!hit) {
            deliver(std::move(packet));
            continue;
        }
        switch (m_config.fault) {
        case Fault::BitFlip: packet.data[5 * 4] ^= 0x10; deliver(std::move(packet)); break;
        case Fault::Drop: break;
        case Fault::Duplicate: deliver(packet); deliver(std::move(packet)); break;
        case Fault::Reorder: m_held = std::move(packet); break;
        case Fault::Stale: packet.stale = true; deliver(std::move(packet)); break;
        case Fault::ShortLength: packet.data.resize(packet.data.size() - 64); deliver(std::move(packet)); break;
        case Fault::Stall: m_stalled = true; deliver(std::move(packet)); break;
        case Fault::WaitError: m_error_pending = true; deliver(std::move(packet)); break;
        case Fault::None: break;
        }
    }
}

void FakeLoopback::c2h_submitted(size_t buffer) {
    if (m_awaiting_resubmit == buffer)
        m_awaiting_resubmit.reset();
}

// What the C2H side writes of one transfer into a buffer, as its lie allows.
void FakeLoopback::write_c2h(size_t buffer, const uint8_t* data, size_t length) {
    const bool stale = m_config.lie == Lie::StaleAfter && m_c2h_transfers++ >= m_config.stale_after;
    if (m_config.lie == Lie::MovesNothing || stale)
        return;
    size_t now = length;
    if (m_config.lie == Lie::CompletesEarly) {
        now = length > 64 ? length - 64 : 0;
        m_late = Late{buffer, now, std::vector<uint8_t>(data + now, data + length)};
        m_awaiting_resubmit = buffer;
    }
    std::memcpy(m_c2h->buffer(buffer), data, now);
}

// Packets fill C2H buffers in order; a packet longer than a buffer spans several.
void FakeLoopback::move_c2h() {
    auto& c2h = *m_c2h;
    while (!m_stalled && !m_fifo.empty() && !c2h.queued.empty()) {
        if (m_config.lie == Lie::CompletesEarly) {
            if (m_awaiting_resubmit)
                return;  // the next transfer starts once the last one's buffer is queued again
            if (m_late) {  // it starts: the last transfer's last bytes land now
                std::memcpy(c2h.buffer(m_late->buffer) + m_late->offset, m_late->bytes.data(), m_late->bytes.size());
                m_late.reset();
            }
        }
        if (m_error_pending) {
            m_error_pending = false;
            c2h.error = true;
            m_fifo.pop_front();
            return;
        }
        Packet& packet = m_fifo.front();
        const auto queued = c2h.queued.front();
        c2h.queued.pop_front();
        const size_t length = std::min<size_t>(queued.length, packet.data.size() - packet.consumed);
        if (!packet.stale)
            write_c2h(queued.index, packet.data.data() + packet.consumed, length);
        packet.consumed += length;
        const bool eop = packet.consumed == packet.data.size();
        c2h.completed.push_back(streams::Completion{queued.index, length, eop});
        if (eop)
            m_fifo.pop_front();
    }
}

}  // namespace fake
