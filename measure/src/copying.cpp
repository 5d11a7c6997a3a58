#include "measure/copying.hpp"

#include <algorithm>
#include <cstring>
#include <deque>

namespace measure {

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

vfio::Result<void> copy(CopyEndpoint& endpoint, Direction direction, unsigned queue, HostBuffer& host,
                        uint64_t host_offset, uint64_t card_offset, uint64_t bytes,
                        std::chrono::milliseconds timeout) {
    const EndpointInfo& info = endpoint.info();
    const uint64_t piece = info.max_copy_bytes ? info.max_copy_bytes : bytes;
    const unsigned window = std::max(1u, info.max_in_flight);
    std::deque<Ticket> in_flight;
    for (uint64_t done = 0; done < bytes;) {
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

vfio::Error check_failure(Direction direction, uint64_t at, uint64_t bytes, const std::string& where) {
    return vfio::make_error(std::string(to_string(direction)) + " data check", where, EIO,
                            "failed at byte " + std::to_string(at) + " of " + std::to_string(bytes) +
                                ": the bytes read back differ from the pattern written");
}

vfio::Result<void> preload_card(CopyEndpoint& endpoint, HostBuffer& scratch, uint64_t card_offset, uint64_t bytes,
                                uint64_t key, std::chrono::milliseconds timeout) {
    fill_pattern(scratch.data(), bytes, key);
    return copy(endpoint, Direction::H2C, 0, scratch, 0, card_offset, bytes, timeout);
}

vfio::Result<void> verify_card(CopyEndpoint& endpoint, HostBuffer& scratch, uint64_t card_offset, uint64_t bytes,
                               uint64_t key, std::chrono::milliseconds timeout) {
    std::memset(scratch.data(), 0, bytes);
    PDT_CHECK(copy(endpoint, Direction::C2H, 0, scratch, 0, card_offset, bytes, timeout));
    if (auto at = find_mismatch(scratch.data(), bytes, key))
        return check_failure(Direction::H2C, *at, bytes, endpoint.info().name + " card offset " +
                                                             std::to_string(card_offset));
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
