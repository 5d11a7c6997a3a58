// memmapped_persistence's library part (fpga_sio's name): a keyed pattern written into a
// memory-backed region of a BAR, and the region compared against it later (from another
// process, after a VFIO device reset), through the BAR's uncached VFIO mapping.
//
// The pattern: the 64-bit word at byte offset o of the BAR (o a multiple of 8) is
// splitmix64(seed(key) + o / 8), little-endian; an access of `width` bytes at o takes the bytes
// o % 8 .. o % 8 + width - 1 of its word. A region written with one key reads back as that
// key's words only where the memory kept them: zeros, all-ones or another key's words differ
// in almost every byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vfio_access/bar_access.hpp"
#include "vfio_access/device.hpp"

namespace measure {

// The value of the `width`-byte access at byte `offset` of a BAR filled with `key`'s pattern.
uint64_t persistence_value(uint64_t key, uint64_t offset, unsigned width);

// Writes the pattern over the region (checked by vfio::check_bar_region before), then reads
// it back in this process: EIO naming the first access that does not hold what was written
// (the region is not memory: registers, unclaimed space, a read-only window).
pdt::Result<void> write_persistence_pattern(vfio::Bar& bar, const vfio::BarRegion& region, uint64_t key);

struct PersistenceComparison {
    uint64_t bytes_compared = 0;
    uint64_t bytes_differing = 0;
    struct Mismatch {
        uint64_t offset = 0;  // in the BAR
        uint64_t expected = 0, read = 0;
    };
    std::optional<Mismatch> first;
    bool kept() const { return bytes_compared > 0 && bytes_differing == 0; }
    // "0x1000 bytes compared, all kept" or "0x1000 bytes compared, 0xff8 differ; first at BAR
    // offset 0x10000: read 0x0, expected 0x5a1f... (width 4)"
    std::string describe(unsigned width) const;
};
// Reads the region and compares it with `key`'s pattern (no write).
PersistenceComparison compare_persistence_pattern(vfio::Bar& bar, const vfio::BarRegion& region, uint64_t key);

}  // namespace measure
