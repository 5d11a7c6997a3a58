// The staged path (F20): a copy between a pageable user buffer and the card through bounce slots
// of a registered buffer, pipelined so that the host's memcpy of one chunk overlaps the DMA of
// the others; and the chunk and depth chosen from the direct path's measured curve.
#pragma once

#include "measure/parallel_memcpy.hpp"
#include "measure/subcommands.hpp"

namespace measure {

struct StagedPipeline {
    uint64_t chunk_bytes = 0;  // C: each chunk one copy (at most info().max_copy_bytes)
    unsigned depth = 1;        // D bounce slots, copies in flight (at most info().max_in_flight)
    ParallelMemcpy* copier = nullptr;  // the host copies' threads; null: memcpy on the calling thread
};

// --staged_threads 0: the host copies' threads, 4 where the host has 16 cores or more, else a
// quarter of its cores (at least 1).
unsigned default_staged_threads();

// H2C: user[0, bytes) to card[card_offset..]; C2H: the card's bytes to user. Chunk i goes through
// slot i % D at bounce[bounce_offset + (i % D) C], on queue 0: H2C copies chunk i into its slot
// (after the copy of chunk i - D from it completed) and issues it; C2H issues D chunks, then
// waits chunk i, copies it out and issues chunk i + D in its slot. The slots lie within
// bounce[bounce_offset, bounce_offset + bytes). Returns when every chunk completed.
pdt::Result<void> staged_copy(CopyEndpoint& endpoint, Direction direction, const StagedPipeline& pipeline,
                              uint8_t* user, HostBuffer& bounce, uint64_t bounce_offset, uint64_t card_offset,
                              uint64_t bytes, std::chrono::milliseconds timeout);

// The chunk and depth of a sweep's staged path: --staged_chunk / --staged_depth when given, else
// from a short calibration of direct copies of 64 KiB to 4 MiB (doubling, kCalibrationCopies
// each, both directions, every copy keyed and checked through `source` and `check`): the
// smallest size whose rate reaches 90% of the best size's in both directions, clamped to the
// card window, the largest copy and the host buffers; depth 4 within info().max_in_flight.
inline constexpr unsigned kCalibrationCopies = 3;
pdt::Result<StagedPlan> plan_staged(CopyEndpoint& endpoint, const SweepSettings& settings, HostBuffer& source,
                                    HostBuffer& check, const CommonSettings& common, uint64_t& key,
                                    uint64_t& bytes_verified);
// The smallest size of `curve` (one direction, ascending sizes) whose rate reaches `fraction`
// of its best; 0 for an empty curve.
uint64_t knee_bytes(const std::vector<CalibrationPoint>& curve, double fraction);

}  // namespace measure
