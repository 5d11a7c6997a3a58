// CRC-64 as fpga_sio's CRC64 stream designs compute it, and the 64-bit LCG its tools feed them.
//
// The card's CRC is CRC-64 with the ECMA-182 polynomial in reflected form (0xC96C5795D7870F42),
// initial value all-ones, 64-bit little-endian input words, and NO final XOR: the 8-byte C2H
// result is the CRC register itself. CRC-64/XZ is the same algorithm with a final XOR of
// all-ones, so crc64_xz("123456789") = 0x995DC9BBDF1939FA checks this implementation.
// Written independently of the simulator's CRC (sim/src/stream_functions.cpp), so that a
// mistake in one is caught by the other.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pattern {

inline constexpr uint64_t kCrc64Initial = ~0ull;

// Continues a CRC over `bytes` bytes (slice-by-8); bytes taken in memory order.
uint64_t crc64_update(uint64_t crc, const void* data, size_t bytes);
// The card's result over one message.
inline uint64_t crc64_card(const void* data, size_t bytes) { return crc64_update(kCrc64Initial, data, bytes); }
// CRC-64/XZ (final XOR all-ones), for the standard check value.
inline uint64_t crc64_xz(const void* data, size_t bytes) { return ~crc64_update(kCrc64Initial, data, bytes); }

// The 64-bit LCG of fpga_sio's CRC64 tests: x <- x * 6364136223846793005 + 1442695040888963407.
inline uint64_t lcg64_next(uint64_t x) { return x * 6364136223846793005ull + 1442695040888963407ull; }

}  // namespace pattern
