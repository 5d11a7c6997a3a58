// Little-endian integers in byte buffers: what PCI config space, SFDP tables (JESD216) and the
// VFIO manager's wire messages hold, stored and loaded a byte at a time, so a buffer's alignment
// and the host's byte order do not matter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace pdt {

// The low `to.size()` bytes of `value` into `to`, least significant first (at most 8).
inline void store_le(std::span<uint8_t> to, uint64_t value) {
    for (size_t i = 0; i < to.size() && i < 8; ++i)
        to[i] = static_cast<uint8_t>(value >> (8 * i));
}

// The value of the (at most 8) bytes of `from`, least significant first.
inline uint64_t load_le(std::span<const uint8_t> from) {
    uint64_t value = 0;
    for (size_t i = 0; i < from.size() && i < 8; ++i)
        value |= static_cast<uint64_t>(from[i]) << (8 * i);
    return value;
}

}  // namespace pdt
