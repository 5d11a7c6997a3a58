// The loopback stream channels over the Mover (channels.hpp). Entries queue per direction; the
// loop issues an H2C copy when its card slot is free (the C2H copy that read it completed) and a
// C2H copy when the H2C copy that filled its slot completed, ordered on the host: the runtime's
// barrier would also wait for unrelated commands of the submission queue. A slot whose H2C copy
// failed is not read back: its C2H entry completes with that copy's error, so the failure is
// reported by name and never as the data check of a slot the card did not fill. A slot is read
// back in other pieces than it was written, last piece first (split_last_first), so that bytes
// the runtime staged for the write and the card never moved come back at the wrong places.
#include "etsoc1/channels.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace etsoc1 {

using streams::Completion;

namespace {

struct Entry {
    size_t index = 0;
    uint64_t length = 0;
    uint64_t sequence = 0;
    std::optional<TransferId> transfer;
    bool done = false;
    std::optional<pdt::Error> error;
    // A C2H read-back too small to cut (kUncut): the buffer's poison and the first read.
    std::vector<uint8_t> poison, first;
};

// split_last_first cuts a read-back above 4 bytes; one of 4 bytes is read whole.
constexpr uint64_t kUncut = 4;
constexpr uint64_t kDecoyBytes = 64;  // the decoy slot after the ring
constexpr std::chrono::milliseconds kDecoyTimeout{10000};

}  // namespace

class Loop {
public:
    Loop(Card& card, ChannelConfig config, std::unique_ptr<Mover> mover, CardAddress ring, std::string name)
        : config(config), name(std::move(name)), m_card(card), m_mover(std::move(mover)), m_ring(ring),
          m_length(config.buffer_count, 0) {
        for (auto& direction : m_host)
            for (size_t i = 0; i < config.buffer_count; ++i)
                direction.emplace_back(new uint8_t[config.buffer_size]);
    }
    ~Loop() {
        const streams::BuffersAtRisk at_risk = m_mover->buffers_at_risk();
        m_mover.reset();  // aborts what is in flight before the slots go
        if (!at_risk->load()) {
            (void)m_card.free(config.device, m_ring);
            return;
        }
        for (auto& direction : m_host)  // an abort did not complete: the card may still move them
            for (auto& slot : direction)
                streams::keep_until_exit(slot.release());
    }

    uint8_t* buffer(Direction d, size_t index) { return m_host[at(d)].at(index).get(); }
    pdt::Result<void> submit(Direction d, size_t index, uint64_t length);
    pdt::Result<std::optional<Completion>> poll(Direction d);
    pdt::Result<Completion> wait(Direction d, std::chrono::milliseconds timeout);
    pdt::Result<void> stop(Direction d);
    bool busy(Direction d) const {
        std::lock_guard lock(m_mutex);
        return !m_entries[at(d)].empty();
    }

    const ChannelConfig config;
    const std::string name;  // "ET-SoC-1 fake 0 channel 0"

private:
    static size_t at(Direction d) { return d == Direction::H2C ? 0 : 1; }
    pdt::Result<void> refresh();  // with m_mutex held
    pdt::Result<void> pump();     // with m_mutex held
    pdt::Result<void> first_read_and_decoy(Entry& e, CardAddress card, uint64_t bytes);  // with m_mutex held
    CardAddress slot(uint64_t sequence) const { return m_ring + sequence % config.buffer_count * config.buffer_size; }

    Card& m_card;
    std::unique_ptr<Mover> m_mover;
    CardAddress m_ring;
    std::vector<std::unique_ptr<uint8_t[]>> m_host[2];
    mutable std::mutex m_mutex;
    std::deque<Entry> m_entries[2];
    std::vector<uint64_t> m_length;  // bytes the H2C copy put in each slot
    uint64_t m_submitted[2] = {0, 0}, m_issued[2] = {0, 0}, m_done_prefix[2] = {0, 0};
    std::set<uint64_t> m_done[2];  // completed sequences past the prefix
    std::map<uint64_t, pdt::Error> m_failed_h2c;  // H2C sequence -> its copy's error, until C2H takes it
    bool m_stopped[2] = {false, false};  // stopped since its last submit
};

pdt::Result<void> Loop::refresh() {
    for (size_t d = 0; d < 2; ++d)
        for (Entry& e : m_entries[d]) {
            if (!e.transfer || e.done)
                continue;
            auto finished = m_mover->done(*e.transfer);
            if (!finished.ok()) {
                e.error = finished.error();
                if (d == 0)
                    m_failed_h2c.emplace(e.sequence, finished.error());
            } else if (!*finished) {
                continue;
            }
            if (d == 1 && !e.error && !e.first.empty()) {  // the two reads disagree: poison there
                uint8_t* host = buffer(Direction::C2H, e.index);
                for (size_t i = 0; i < e.first.size(); ++i)
                    if (host[i] != e.first[i])
                        host[i] = e.poison[i];
            }
            e.done = true;
            m_done[d].insert(e.sequence);
            while (m_done[d].erase(m_done_prefix[d]))
                ++m_done_prefix[d];
        }
    return {};
}

pdt::Result<void> Loop::pump() {
    const uint64_t slots = config.buffer_count;
    for (Entry& e : m_entries[0])
        if (!e.transfer && m_issued[0] < m_done_prefix[1] + slots) {
            m_length[m_issued[0] % slots] = e.length;
            e.transfer = PDT_TRY(m_mover->start(Direction::H2C, buffer(Direction::H2C, e.index), slot(m_issued[0]), e.length));
            ++m_issued[0];
        }
    for (Entry& e : m_entries[1])
        if (!e.transfer && !e.done && m_issued[1] < m_done_prefix[0]) {
            auto failed = m_failed_h2c.find(m_issued[1]);
            if (failed != m_failed_h2c.end()) {  // nothing to read back: the H2C copy's error instead
                e.error = std::move(failed->second);
                m_failed_h2c.erase(failed);
                e.done = true;
                m_done[1].insert(e.sequence);
                while (m_done[1].erase(m_done_prefix[1]))
                    ++m_done_prefix[1];
                ++m_issued[1];
                continue;
            }
            const uint64_t sent = m_length[m_issued[1] % slots];
            if (e.length < sent)
                return pdt::make_error("loop back through the card", name, EINVAL,
                                       "C2H buffer of " + std::to_string(e.length) + " bytes is smaller than the " +
                                           std::to_string(sent) + "-byte H2C packet");
            e.length = sent;
            if (sent <= kUncut)
                PDT_CHECK(first_read_and_decoy(e, slot(m_issued[1]), sent));
            e.transfer = PDT_TRY(m_mover->start(Direction::C2H, buffer(Direction::C2H, e.index), slot(m_issued[1]), sent,
                                                std::nullopt, Chunking::LastPieceFirst));
            ++m_issued[1];
        }
    return {};
}

// A read-back too small to cut: read at once and kept (a copy that completed early shows in it),
// the buffer's poison (the stream test poisons every C2H buffer) put back and staged through the
// runtime's reused bounce buffer to the decoy slot, so that the read-back proper, if the card
// moves nothing, brings the poison and not the bytes the H2C copy staged; refresh() compares.
pdt::Result<void> Loop::first_read_and_decoy(Entry& e, CardAddress card, uint64_t bytes) {
    uint8_t* host = buffer(Direction::C2H, e.index);
    e.poison.assign(host, host + bytes);
    PDT_CHECK(m_mover->wait(PDT_TRY(m_mover->start(Direction::C2H, host, card, bytes)), kDecoyTimeout));
    e.first.assign(host, host + bytes);
    std::copy(e.poison.begin(), e.poison.end(), host);
    const CardAddress decoy = m_ring + config.buffer_count * config.buffer_size;
    return m_mover->wait(PDT_TRY(m_mover->start(Direction::H2C, host, decoy, bytes)), kDecoyTimeout);
}

pdt::Result<void> Loop::submit(Direction d, size_t index, uint64_t length) {
    if (index >= config.buffer_count || length == 0 || length > config.buffer_size || length % 4 != 0)
        return pdt::make_error("submit", name + " " + streams::to_string(d), EINVAL,
                               "buffer " + std::to_string(index) + " length " + std::to_string(length) +
                                   ": needs a buffer index below " + std::to_string(config.buffer_count) +
                                   " and a non-zero multiple of 4 bytes up to the buffer size");
    std::lock_guard lock(m_mutex);
    m_stopped[at(d)] = false;
    m_entries[at(d)].push_back(Entry{index, length, m_submitted[at(d)]++, std::nullopt, false, std::nullopt, {}, {}});
    PDT_CHECK(refresh());
    return pump();
}

pdt::Result<std::optional<Completion>> Loop::poll(Direction d) {
    std::lock_guard lock(m_mutex);
    PDT_CHECK(refresh());
    PDT_CHECK(pump());
    auto& entries = m_entries[at(d)];
    if (entries.empty() || !entries.front().done)
        return std::optional<Completion>{};
    Entry e = std::move(entries.front());
    entries.pop_front();
    if (e.error)
        return *e.error;
    return std::optional<Completion>{Completion{e.index, e.length, true, 0}};
}

pdt::Result<Completion> Loop::wait(Direction d, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (auto polled = PDT_TRY(poll(d)))
            return *polled;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return pdt::make_error("wait for completion", name + " " + streams::to_string(d), ETIMEDOUT);
        auto progressed = m_mover->wait_progress(left);
        if (!progressed.ok()) {
            auto error = progressed.error();
            error.object = name + " " + streams::to_string(d);
            return error;
        }
    }
}

pdt::Result<void> Loop::stop(Direction d) {
    std::lock_guard lock(m_mutex);
    PDT_CHECK(m_mover->abandon(d));
    // What was abandoned counts as done, so that the other direction still gets what was
    // completed before (a source stops once drained while its sink still receives); once both
    // directions are idle, the loop starts afresh. A C2H side with no entry between two
    // buffers is not idle while slots the H2C side filled wait to be read back: only its own
    // stop gives those up.
    const size_t i = at(d);
    m_entries[i].clear();
    m_done[i].clear();
    m_submitted[i] = m_done_prefix[i] = m_issued[i];
    m_stopped[i] = true;
    if (m_entries[1 - i].empty() && (m_stopped[1] || m_issued[1] >= m_issued[0])) {
        m_failed_h2c.clear();
        for (size_t j = 0; j < 2; ++j) {
            m_done[j].clear();
            m_submitted[j] = m_issued[j] = m_done_prefix[j] = 0;
        }
    }
    return {};
}

namespace {

class Channel : public streams::StreamChannel {
public:
    Channel(std::shared_ptr<Loop> loop, Direction direction)
        : m_loop(std::move(loop)), m_direction(direction),
          m_name(m_loop->name + " " + streams::to_string(direction)) {}
    ~Channel() override { (void)stop(); }

    Direction direction() const override { return m_direction; }
    std::string name() const override { return m_name; }
    size_t buffer_count() const override { return m_loop->config.buffer_count; }
    uint64_t buffer_size() const override { return m_loop->config.buffer_size; }
    uint8_t* buffer(size_t index) override { return m_loop->buffer(m_direction, index); }
    pdt::Result<void> submit(size_t index, uint64_t length, bool) override {
        return m_loop->submit(m_direction, index, length);
    }
    pdt::Result<std::optional<Completion>> poll() override { return m_loop->poll(m_direction); }
    pdt::Result<Completion> wait(std::chrono::milliseconds timeout) override { return m_loop->wait(m_direction, timeout); }
    pdt::Result<void> stop() override { return m_loop->stop(m_direction); }
    bool busy() const override { return m_loop->busy(m_direction); }

private:
    std::shared_ptr<Loop> m_loop;
    Direction m_direction;
    std::string m_name;
};

}  // namespace

pdt::Result<std::shared_ptr<Loop>> make_loop(Card& card, const ChannelConfig& config) {
    const DeviceInfo info = PDT_TRY(card.info(config.device));
    const std::string name = info.name + " channel " + std::to_string(config.channel);
    if (config.buffer_count == 0 || config.buffer_size == 0 || config.buffer_size % 4 != 0 || config.window == 0)
        return pdt::make_error("open ET-SoC-1 channels", name, EINVAL,
                               "needs at least one buffer, of a non-zero multiple of 4 bytes, and a window of one");
    MoverConfig mover;
    mover.device = config.device;
    mover.window = config.window;
    mover.streams_per_direction = config.window;  // one copy per stream: no two collide
    mover.abort_timeout = config.abort_timeout;
    auto moving = PDT_TRY(Mover::open(card, mover));
    const CardAddress ring =
        PDT_TRY(card.allocate(config.device, config.buffer_count * config.buffer_size + kDecoyBytes, 64));
    return std::make_shared<Loop>(card, config, std::move(moving), ring, name);
}

pdt::Result<std::unique_ptr<streams::StreamChannel>> open_h2c(std::shared_ptr<Loop> loop) {
    return std::unique_ptr<streams::StreamChannel>(std::make_unique<Channel>(std::move(loop), Direction::H2C));
}

pdt::Result<std::unique_ptr<streams::StreamChannel>> open_c2h(std::shared_ptr<Loop> loop) {
    return std::unique_ptr<streams::StreamChannel>(std::make_unique<Channel>(std::move(loop), Direction::C2H));
}

}  // namespace etsoc1
