#include "pattern/crc64.hpp"

#include <array>
#include <cstring>

namespace pattern {
namespace {

constexpr uint64_t kPolynomial = 0xC96C5795D7870F42ull;

// tables[k][b]: the CRC of byte b followed by k zero bytes (slice-by-8).
using Tables = std::array<std::array<uint64_t, 256>, 8>;

Tables make_tables() {
    Tables t{};
    for (unsigned b = 0; b < 256; ++b) {
        uint64_t crc = b;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 1) ? (crc >> 1) ^ kPolynomial : crc >> 1;
        t[0][b] = crc;
    }
    for (unsigned b = 0; b < 256; ++b)
        for (size_t k = 1; k < 8; ++k)
            t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
    return t;
}

const Tables& tables() {
    static const Tables t = make_tables();
    return t;
}

}  // namespace

uint64_t crc64_update(uint64_t crc, const void* data, size_t bytes) {
    const Tables& t = tables();
    const auto* p = static_cast<const uint8_t*>(data);
    while (bytes >= 8) {
        uint64_t word;
        std::memcpy(&word, p, 8);  // little-endian host (x86-64, AArch64 LE)
        crc ^= word;
        crc = t[7][crc & 0xFF] ^ t[6][(crc >> 8) & 0xFF] ^ t[5][(crc >> 16) & 0xFF] ^ t[4][(crc >> 24) & 0xFF] ^
              t[3][(crc >> 32) & 0xFF] ^ t[2][(crc >> 40) & 0xFF] ^ t[1][(crc >> 48) & 0xFF] ^ t[0][crc >> 56];
        p += 8;
        bytes -= 8;
    }
    while (bytes-- > 0)
        crc = t[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

}  // namespace pattern
