#include "measure/copying.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <vector>

namespace measure {

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

namespace {
std::atomic<const char*> g_requested{nullptr};
std::atomic<const std::atomic<bool>*> g_watched{nullptr};
std::atomic<const char*> g_watched_why{nullptr};
static_assert(std::atomic<const char*>::is_always_lock_free, "request_stop() is called from a signal handler");
}  // namespace

void request_stop(const char* why) { g_requested.store(why); }

void stop_when(const std::atomic<bool>* flag, const char* why) {
    g_watched_why.store(why);
    g_watched.store(flag);
}

const char* stop_reason() {
    if (const char* why = g_requested.load())
        return why;
    const std::atomic<bool>* flag = g_watched.load();
    return flag && flag->load() ? g_watched_why.load() : nullptr;
}

pdt::Result<void> copy(CopyEndpoint& endpoint, Direction direction, unsigned queue, HostBuffer& host,
                       uint64_t host_offset, uint64_t card_offset, uint64_t bytes,
                       std::chrono::milliseconds timeout) {
    const EndpointInfo& info = endpoint.info();
    const uint64_t piece = info.max_copy_bytes ? info.max_copy_bytes : bytes;
    const unsigned window = std::max(1u, info.max_in_flight);
    std::deque<Ticket> in_flight;
    for (uint64_t done = 0; done < bytes;) {
        if (const char* why = stop_reason()) {
            if (!in_flight.empty())
                PDT_CHECK(endpoint.wait(in_flight.back(), timeout));
            return pdt::make_error("copy", info.name, EINTR,
                                   std::string("stopped by ") + why +
                                       ": no copy was started after it, and those in flight completed");
        }
        if (in_flight.size() >= window) {
            PDT_CHECK(endpoint.wait(in_flight.front(), timeout));
            in_flight.pop_front();
        }
        const uint64_t n = std::min(piece, bytes - done);
        in_flight.push_back(PDT_TRY(endpoint.issue(direction, queue, host, host_offset + done, card_offset + done, n)));
        done += n;
    }
    if (!in_flight.empty())
        PDT_CHECK(endpoint.wait(in_flight.back(), timeout));  // a queue completes in order
    return {};
}

namespace {
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
}

void fill_pattern(uint8_t* data, uint64_t bytes, uint64_t key) {
    const uint64_t words = bytes / 8;
    uint64_t* w = reinterpret_cast<uint64_t*>(data);
    if (reinterpret_cast<uintptr_t>(data) % 8 == 0) {
        for (uint64_t i = 0; i < words; ++i)
            w[i] = key ^ (i * kGolden);
    } else {
        for (uint64_t i = 0; i < words; ++i) {
            const uint64_t v = key ^ (i * kGolden);
            std::memcpy(data + 8 * i, &v, 8);
        }
    }
    const uint64_t tail = key ^ (words * kGolden);
    std::memcpy(data + 8 * words, &tail, bytes - 8 * words);
}

std::optional<uint64_t> find_mismatch(const uint8_t* data, uint64_t bytes, uint64_t key) {
    const uint64_t words = bytes / 8;
    for (uint64_t i = 0; i < words; ++i) {
        uint64_t v;
        std::memcpy(&v, data + 8 * i, 8);
        if (v != (key ^ (i * kGolden))) {
            const uint64_t expected = key ^ (i * kGolden);
            for (unsigned b = 0; b < 8; ++b)
                if (data[8 * i + b] != reinterpret_cast<const uint8_t*>(&expected)[b])
                    return 8 * i + b;
        }
    }
    const uint64_t tail = key ^ (words * kGolden);
    for (uint64_t b = 0; b < bytes - 8 * words; ++b)
        if (data[8 * words + b] != reinterpret_cast<const uint8_t*>(&tail)[b])
            return 8 * words + b;
    return std::nullopt;
}

void fill_poison(uint8_t* data, uint64_t bytes, uint64_t key) {
    fill_pattern(data, bytes, key);
    for (uint64_t i = 0; i < bytes; ++i)
        data[i] = static_cast<uint8_t>(~data[i]);
}

pdt::Error check_failure(Direction direction, uint64_t at, uint64_t bytes, const CopyName& name,
                         uint64_t host_offset, uint64_t card_offset) {
    std::string where = name.what;
    if (name.number)
        where += " copy " + std::to_string(name.number) + (name.count ? " of " + std::to_string(name.count) : "");
    char offsets[96];
    std::snprintf(offsets, sizeof offsets, " (host buffer offset %llu, card offset 0x%llx)",
                  static_cast<unsigned long long>(host_offset + at), static_cast<unsigned long long>(card_offset + at));
    return pdt::make_error(std::string(to_string(direction)) + " data check", where, EIO,
                           "failed at byte " + std::to_string(at) + " of " + std::to_string(bytes) + offsets +
                               ": the bytes read back differ from the pattern written");
}

uint64_t split_point(uint64_t bytes) { return bytes < 128 ? 0 : bytes / 2 / 64 * 64; }

pdt::Result<void> stage_decoy(CopyEndpoint& endpoint, HostBuffer& host, uint64_t host_offset, uint64_t bytes,
                              std::chrono::milliseconds timeout, unsigned queue) {
    const EndpointInfo& info = endpoint.info();
    const uint64_t n = std::min(bytes, info.decoy_card_bytes);
    if (!info.driver_stages || n == 0)
        return {};
    return copy(endpoint, Direction::H2C, queue, host, host_offset, info.card_memory_bytes, n, timeout);
}

namespace {

// A read-back too small to cut (below 128 bytes) where the driver stages through a reused bounce
// buffer: read at once (a copy that completed early is caught: nothing else ran before it), then,
// after a decoy of the destination's poison, again (a copy that moved nothing is caught: it hands
// back the decoy, not the bytes the last host-to-card copy staged). Where the two reads differ the
// destination gets its poison back (rule 2: it differs from what is expected at every byte), so
// the caller's check fails there; where they agree it holds what both read.
pdt::Result<void> read_twice_around_a_decoy(CopyEndpoint& endpoint, HostBuffer& host, uint64_t host_offset,
                                            uint64_t card_offset, uint64_t bytes, std::chrono::milliseconds timeout,
                                            unsigned queue) {
    uint8_t* at = host.data() + host_offset;
    const std::vector<uint8_t> poison(at, at + bytes);
    PDT_CHECK(copy(endpoint, Direction::C2H, queue, host, host_offset, card_offset, bytes, timeout));
    const std::vector<uint8_t> first(at, at + bytes);
    std::memcpy(at, poison.data(), bytes);
    PDT_CHECK(stage_decoy(endpoint, host, host_offset, bytes, timeout, queue));
    PDT_CHECK(copy(endpoint, Direction::C2H, queue, host, host_offset, card_offset, bytes, timeout));
    for (uint64_t i = 0; i < bytes; ++i)
        if (at[i] != first[i])
            at[i] = poison[i];
    return {};
}

}  // namespace

pdt::Result<void> copy_last_piece_first(CopyEndpoint& endpoint, Direction direction, HostBuffer& host,
                                        uint64_t host_offset, uint64_t card_offset, uint64_t bytes,
                                        std::chrono::milliseconds timeout, unsigned queue) {
    const uint64_t cut = split_point(bytes);
    if (direction == Direction::C2H && cut == 0 && endpoint.info().driver_stages)
        return read_twice_around_a_decoy(endpoint, host, host_offset, card_offset, bytes, timeout, queue);
    PDT_CHECK(copy(endpoint, direction, queue, host, host_offset + cut, card_offset + cut, bytes - cut, timeout));
    if (cut == 0)
        return {};
    return copy(endpoint, direction, queue, host, host_offset, card_offset, cut, timeout);
}

pdt::Result<void> preload_card(CopyEndpoint& endpoint, HostBuffer& scratch, uint64_t card_offset, uint64_t bytes,
                               uint64_t key, std::chrono::milliseconds timeout) {
    fill_pattern(scratch.data(), bytes, key);
    return copy_last_piece_first(endpoint, Direction::H2C, scratch, 0, card_offset, bytes, timeout);
}

namespace {

// The card's bytes at card_offset, read back through poisoned `scratch` in two pieces.
pdt::Result<std::optional<uint64_t>> read_back(CopyEndpoint& endpoint, HostBuffer& scratch, uint64_t card_offset,
                                               uint64_t bytes, uint64_t key, std::chrono::milliseconds timeout,
                                               unsigned queue = 0) {
    fill_poison(scratch.data(), bytes, key);
    PDT_CHECK(copy_last_piece_first(endpoint, Direction::C2H, scratch, 0, card_offset, bytes, timeout, queue));
    return find_mismatch(scratch.data(), bytes, key);
}

}  // namespace

std::vector<KeyedSlot> keyed_slots(uint64_t count, uint64_t bytes, uint64_t card_base, uint64_t& key) {
    const uint64_t stride = (bytes + 63) / 64 * 64;
    std::vector<KeyedSlot> slots(count);
    for (uint64_t i = 0; i < count; ++i)
        slots[i] = KeyedSlot{i * stride, card_base + i * stride, ++key};
    return slots;
}

uint64_t slots_that_fit(uint64_t wanted, uint64_t bytes, uint64_t host_bytes, uint64_t card_base, uint64_t card_bytes) {
    const uint64_t stride = (bytes + 63) / 64 * 64;
    const auto fit = [&](uint64_t room) { return room < bytes ? 0 : 1 + (room - bytes) / stride; };
    const uint64_t card_room = card_bytes > card_base ? card_bytes - card_base : 0;
    return std::max<uint64_t>(1, std::min({wanted, fit(host_bytes), fit(card_room)}));
}

pdt::Result<void> prepare_batch(CopyEndpoint& endpoint, Direction direction, HostBuffer& data, HostBuffer& scratch,
                                const std::vector<KeyedSlot>& slots, uint64_t bytes, std::chrono::milliseconds timeout,
                                unsigned queue) {
    for (const KeyedSlot& slot : slots) {
        if (direction == Direction::H2C) {
            fill_pattern(data.data() + slot.host_offset, bytes, slot.key);
        } else {
            fill_pattern(scratch.data(), bytes, slot.key);
            PDT_CHECK(copy_last_piece_first(endpoint, Direction::H2C, scratch, 0, slot.card_offset, bytes, timeout, queue));
            fill_poison(data.data() + slot.host_offset, bytes, slot.key);
        }
    }
    if (direction == Direction::C2H && !slots.empty())  // the preloads' pattern out of the bounce buffer
        PDT_CHECK(stage_decoy(endpoint, data, 0, slots.back().host_offset + bytes, timeout, queue));
    return {};
}

pdt::Result<void> check_batch(CopyEndpoint& endpoint, Direction direction, HostBuffer& data, HostBuffer& scratch,
                              const std::vector<KeyedSlot>& slots, uint64_t bytes, std::chrono::milliseconds timeout,
                              const CopyName& name, unsigned queue) {
    for (size_t i = 0; i < slots.size(); ++i) {
        const CopyName copy_name{name.what, name.number + i, name.count};
        const KeyedSlot& slot = slots[i];
        if (direction == Direction::H2C) {
            if (auto at = PDT_TRY(read_back(endpoint, scratch, slot.card_offset, bytes, slot.key, timeout, queue)))
                return check_failure(direction, *at, bytes, copy_name, slot.host_offset, slot.card_offset);
        } else if (auto at = find_mismatch(data.data() + slot.host_offset, bytes, slot.key)) {
            return check_failure(direction, *at, bytes, copy_name, slot.host_offset, slot.card_offset);
        }
    }
    return {};
}

std::string format_bytes(uint64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    uint64_t v = bytes;
    while (u < 4 && v >= 1024 && v % 1024 == 0)
        v /= 1024, ++u;
    return std::to_string(v) + " " + units[u];
}

}  // namespace measure
