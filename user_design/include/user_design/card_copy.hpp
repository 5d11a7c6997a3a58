// A user's data moved between a file and a card's memory through the copy-endpoint seam
// (streams/copy_endpoint.hpp), one chunk at a time through one host buffer of the endpoint's, and
// the check that the card holds what was written (dma_to_device, dma_from_device).
//
// Data not moved must never verify: the destination of every copy holds something other than what
// is expected before the copy. Before a checked write the card's range gets the complement of the
// file's bytes (write_decoy), and each read lands in a host buffer filled with the complement of
// what it should bring (or, with nothing expected, with kReadFill), so that a copy that moved
// nothing shows as the first differing byte.
//
//   const CardRange range{card_offset, data.size()};
//   PDT_CHECK(user_design::write_decoy(endpoint, data, range, timeout));
//   const CopyTimes times = PDT_TRY(user_design::copy_to_card(endpoint, data, range, count, timeout));
//   if (auto differs = PDT_TRY(user_design::compare_card(endpoint, data, range, timeout))) ...
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "streams/copy_endpoint.hpp"
#include "user_design/file_data.hpp"

namespace user_design {

// Bytes [offset, offset + bytes) of the endpoint's card window (EndpointInfo::card_memory_bytes).
struct CardRange {
    uint64_t offset = 0;
    uint64_t bytes = 0;
};

// The largest host buffer a copy goes through: a chunk, or less where the endpoint copies less.
inline constexpr uint64_t kChunkBytes = 8ull << 20;
// What a read's host buffer holds before a read with nothing to compare (dma_from_device).
inline constexpr uint8_t kReadFill = 0xa5;

// The card window's `address` (an address of the card's bus, as the design's memory_base counts
// it) to `bytes` as a range of the endpoint's window starting at `window_base`. ERANGE naming the
// window when any byte lies outside it; EINVAL for no byte.
pdt::Result<CardRange> card_range(const streams::EndpointInfo& info, uint64_t window_base, uint64_t address,
                                  uint64_t bytes);

// The time each whole repetition of a copy spent in the endpoint's copies (issue to completion
// of each chunk; reading and writing the file not counted).
struct CopyTimes {
    uint64_t bytes = 0;  // of one repetition
    std::vector<std::chrono::nanoseconds> repetitions;
    std::chrono::nanoseconds total() const;
    // bytes * repetitions / total time, in bytes per second (0 when no time passed).
    double bytes_per_second() const;
};

// The file's bytes to the card's range, `count` times.
pdt::Result<CopyTimes> copy_to_card(streams::CopyEndpoint& endpoint, const FileData& data, const CardRange& range,
                                    unsigned count, std::chrono::milliseconds timeout);

// The first byte where the card differs from what it should hold.
struct Difference {
    uint64_t offset = 0;  // from the start of the range (and of the file's region)
    uint8_t expected = 0, found = 0;
    uint64_t differing_bytes = 0;  // in the range, from this one on
};

// The card's range to `sink`, `count` times (each repetition's bytes appended). With `unmoved`,
// each chunk is read a second time into a buffer holding the complement of what the first read
// brought (not timed): a byte that differs was not moved by one of the reads. The first such
// byte stops the copy before its chunk reaches `sink` and is left in *unmoved; the repetitions
// finished before it are timed.
pdt::Result<CopyTimes> copy_from_card(streams::CopyEndpoint& endpoint, FileSink& sink, const CardRange& range,
                                      unsigned count, std::chrono::milliseconds timeout,
                                      std::optional<Difference>* unmoved = nullptr);
// The complement of the file's bytes to the card's range, read back: what a check after a copy
// that moved nothing finds there. The first byte where the card does not hold it (a device that
// does not move what it is given: nothing can then be checked); nullopt when it took every byte.
pdt::Result<std::optional<Difference>> write_decoy(streams::CopyEndpoint& endpoint, const FileData& data,
                                                   const CardRange& range, std::chrono::milliseconds timeout);

// The card's range read back and compared with the file's bytes; nullopt when every byte matches.
pdt::Result<std::optional<Difference>> compare_card(streams::CopyEndpoint& endpoint, const FileData& data,
                                                    const CardRange& range, std::chrono::milliseconds timeout);

// The first differing byte of `found` against `expected` (`bytes` each), its offset counted from
// `base`; nullopt when they are equal.
std::optional<Difference> first_difference(const uint8_t* expected, const uint8_t* found, uint64_t bytes,
                                           uint64_t base);

}  // namespace user_design
