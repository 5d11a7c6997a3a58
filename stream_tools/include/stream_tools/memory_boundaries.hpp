// memory_boundaries: the card-memory test of transfer boundaries and guard bands, as Linux's
// dmatest and Xilinx's unaligned-transfer scripts test them. Sizes are one byte either side of
// each power of two up to 64 KiB and of 4 KiB multiples; card and host offsets are 0, 1, 2,
// 3 and one byte either side of 4 KiB (all rounded up to the channels' Alignments unit).
// Every transfer checks that the bytes just before and after it are unchanged:
//  - card: guard bands of a known card pattern are written around the transfer's card range
//    first (one H2C transfer of range + both guards), then the data (H2C), then the range with
//    its guards and one more unit is read back (C2H): a write past either end changes a guard;
//  - host: every C2H destination sits between guard bands of a host pattern (not the card's),
//    checked after each read; the H2C sources sit between host guards too, so an engine that
//    reads past a source's end writes the host pattern into a card guard.
// The card window is read once first, so even its bytes beyond the guards have known values.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "stream_tools/memory_tests.hpp"

namespace stream_tools {

struct BoundaryCase {
    uint64_t length = 0;
    uint64_t card_offset = 0;  // from the start of the window's data area
    uint64_t host_offset = 0;  // from the start of the host buffers' data area
};

// The sizes and offsets for a channel unit (lcm of Alignments address alignment and length
// granularity, 1 for unaligned engines): each size paired with each offset in turn, sizes
// limited so that every case fits card window bytes.
std::vector<BoundaryCase> boundary_cases(uint64_t unit, uint64_t window_bytes);
// Guard band bytes on each side: 64, or the unit when larger.
uint64_t boundary_guard_bytes(uint64_t unit);
// Card window bytes memory_boundaries uses (at the start of the card memory).
uint64_t boundary_window_bytes(uint64_t unit, uint64_t memory_size);

MemoryTestResult memory_boundaries(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                   std::FILE* out);

}  // namespace stream_tools
