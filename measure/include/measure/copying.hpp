// What every subcommand does with an endpoint: whole copies split at the endpoint's limits, the
// keyed pattern written and checked, host buffers of the three kinds, and timing.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>

#include "measure/copy_endpoint.hpp"

namespace measure {

using Clock = std::chrono::steady_clock;
using Rng = std::mt19937_64;

double seconds_since(Clock::time_point start);

// Settings every subcommand shares.
struct CommonSettings {
    std::chrono::milliseconds timeout{10000};  // per wait
    uint64_t seed = 1;
};

// One copy of `bytes`, split at info().max_copy_bytes, with up to info().max_in_flight pieces
// in flight on `queue`; returns when every piece completed.
vfio::Result<void> copy(CopyEndpoint& endpoint, Direction direction, unsigned queue, HostBuffer& host,
                        uint64_t host_offset, uint64_t card_offset, uint64_t bytes,
                        std::chrono::milliseconds timeout);

// The pattern: 64-bit words key ^ (index * golden ratio), so that every word of every check
// differs from its neighbours and from the last check's (a copy that moved nothing, or moved
// the wrong range, fails). A tail shorter than a word takes the low bytes of the next word.
void fill_pattern(uint8_t* data, uint64_t bytes, uint64_t key);
// The offset of the first byte that differs from the pattern, or nullopt.
std::optional<uint64_t> find_mismatch(const uint8_t* data, uint64_t bytes, uint64_t key);

// "H2C data check failed at byte 123 of 4096 (card offset 0)": the failure of a run whose
// rate must not be reported.
vfio::Error check_failure(Direction direction, uint64_t at, uint64_t bytes, const std::string& where);

// Writes the pattern to card[card_offset..+bytes] through `scratch` (untimed), for C2H checks.
vfio::Result<void> preload_card(CopyEndpoint& endpoint, HostBuffer& scratch, uint64_t card_offset, uint64_t bytes,
                                uint64_t key, std::chrono::milliseconds timeout);
// Reads card[card_offset..+bytes] back through `scratch` and checks it against the pattern.
vfio::Result<void> verify_card(CopyEndpoint& endpoint, HostBuffer& scratch, uint64_t card_offset, uint64_t bytes,
                               uint64_t key, std::chrono::milliseconds timeout);

std::string format_bytes(uint64_t bytes);  // "4 KiB", "256 MiB", "65 B"

}  // namespace measure
