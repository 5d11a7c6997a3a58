// What every subcommand does with an endpoint: whole copies split at the endpoint's limits, the
// keyed pattern written and checked, host buffers of the three kinds, and timing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "measure/endpoint.hpp"

namespace measure {

using Clock = std::chrono::steady_clock;
using Rng = std::mt19937_64;

double seconds_since(Clock::time_point start);

// Settings every subcommand shares.
struct CommonSettings {
    std::chrono::milliseconds timeout{10000};  // per wait
    uint64_t seed = 1;
};

// Why copies stop before their run ends: request_stop(why) from a signal handler (async-signal-
// safe; `why` a string literal), or a flag set elsewhere, watched through stop_when (the board's
// health tripping). From then on copy() starts no piece: it waits for those in flight and fails
// naming why, so the step ends as a failure and the endpoint closes with its engines stopped.
void request_stop(const char* why);
void stop_when(const std::atomic<bool>* flag, const char* why);
const char* stop_reason();  // nullptr while copies may go on

// One copy of `bytes`, split at info().max_copy_bytes, with up to info().max_in_flight pieces
// in flight on `queue`; returns when every piece completed.
pdt::Result<void> copy(CopyEndpoint& endpoint, Direction direction, unsigned queue, HostBuffer& host,
                       uint64_t host_offset, uint64_t card_offset, uint64_t bytes,
                       std::chrono::milliseconds timeout);

// The pattern: 64-bit words key ^ (index * golden ratio), so that every word of every check
// differs from its neighbours and from the last check's (a copy that moved nothing, or moved
// the wrong range, fails). A tail shorter than a word takes the low bytes of the next word.
void fill_pattern(uint8_t* data, uint64_t bytes, uint64_t key);
// The offset of the first byte that differs from the pattern, or nullopt.
std::optional<uint64_t> find_mismatch(const uint8_t* data, uint64_t bytes, uint64_t key);
// Poison (docs/verification.md rule 2): the bitwise complement of the pattern of `key`, so that
// every byte of a destination that a copy did not fill differs from what the copy should bring.
void fill_poison(uint8_t* data, uint64_t bytes, uint64_t key);

// Which copy a check was for (rule 6): "sim model 0 sweep direct 4 KiB run 1", copy 17 of 50.
struct CopyName {
    std::string what;
    uint64_t number = 0;  // from 1
    uint64_t count = 0;   // 0: not said
};
// "... copy 17 of 50: failed at byte 32 of 4096 (host buffer offset 69664, card offset
// 0x11020)": the offset within the copy, within the host buffer and on the card.
pdt::Error check_failure(Direction direction, uint64_t at, uint64_t bytes, const CopyName& name,
                         uint64_t host_offset, uint64_t card_offset);

// Writes the pattern to card[card_offset..+bytes] through `scratch` (untimed), for C2H checks:
// in two copies, the last piece first (rule 3), so that a path that hands back a reused bounce
// buffer's bytes gives them at the wrong places.
pdt::Result<void> preload_card(CopyEndpoint& endpoint, HostBuffer& scratch, uint64_t card_offset, uint64_t bytes,
                               uint64_t key, std::chrono::milliseconds timeout);
// One copy in two pieces, the last piece first (rule 3), on `queue`. A card-to-host read-back
// too small to cut (split_point 0) through a driver's reused bounce buffer (driver_stages) is
// read twice instead, around a decoy of the destination's poison (stage_decoy); bytes the two
// reads disagree on get their poison back, so the check fails on them.
pdt::Result<void> copy_last_piece_first(CopyEndpoint& endpoint, Direction direction, HostBuffer& host,
                                        uint64_t host_offset, uint64_t card_offset, uint64_t bytes,
                                        std::chrono::milliseconds timeout, unsigned queue = 0);
// Rule 3 where the driver stages every copy through one reused bounce buffer (info().driver_stages,
// the ET-SoC-1 runtime): host[host_offset..+bytes), which holds what the next card-to-host copies
// must not bring (poison), copied to the card's decoy region (info().decoy_card_bytes, at most that
// much), so that the bounce buffer holds it; a card-to-host copy that moves nothing then hands back
// these bytes, not the pattern a preload or the copy under test staged. Nothing to do elsewhere.
// Used after the preloads of card-to-host copies, at every size from 1 byte, and by small read-backs.
pdt::Result<void> stage_decoy(CopyEndpoint& endpoint, HostBuffer& host, uint64_t host_offset, uint64_t bytes,
                              std::chrono::milliseconds timeout, unsigned queue = 0);
// Where a copy of `bytes` is cut for rule 3: half, rounded down to 64 bytes; 0 (one piece)
// below 128 bytes.
uint64_t split_point(uint64_t bytes);

// A batch of timed copies of one size, each with its own key (rule 1) and its own host and card
// slot, so that copies back to back stay back to back and are all checked after the batch.
struct KeyedSlot {
    uint64_t host_offset = 0, card_offset = 0, key = 0;
};
// `count` slots of `bytes`, 64-byte aligned, from host offset 0 and card offset `card_base`;
// keys key+1, key+2, ... (key is advanced past them).
std::vector<KeyedSlot> keyed_slots(uint64_t count, uint64_t bytes, uint64_t card_base, uint64_t& key);
// How many slots of `bytes` fit both a host buffer of `host_bytes` and the card's
// [card_base, card_bytes), at most `wanted` and at least 1.
uint64_t slots_that_fit(uint64_t wanted, uint64_t bytes, uint64_t host_bytes, uint64_t card_base, uint64_t card_bytes);
// Before the batch: H2C, each slot of `data` (the copies' source) holds its key's pattern; C2H,
// each card slot holds it (through `scratch`, by preload_card) and each slot of `data` (the
// copies' destination) holds poison.
// The preloads and read-backs run on `queue`.
pdt::Result<void> prepare_batch(CopyEndpoint& endpoint, Direction direction, HostBuffer& data, HostBuffer& scratch,
                                const std::vector<KeyedSlot>& slots, uint64_t bytes, std::chrono::milliseconds timeout,
                                unsigned queue = 0);
// After it: H2C, each card slot read back through `scratch`, poisoned first and read in two copies the last piece first (rules 2 and 3); C2H, each slot of
// `data` compared with its key's pattern. Slot i is copy `name.number + i`.
pdt::Result<void> check_batch(CopyEndpoint& endpoint, Direction direction, HostBuffer& data, HostBuffer& scratch,
                              const std::vector<KeyedSlot>& slots, uint64_t bytes, std::chrono::milliseconds timeout,
                              const CopyName& name, unsigned queue = 0);

std::string format_bytes(uint64_t bytes);  // "4 KiB", "256 MiB", "65 B"

}  // namespace measure
