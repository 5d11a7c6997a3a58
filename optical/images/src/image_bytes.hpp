// Writing an EEPROM image (private to optical_images): big-endian words, space-padded ASCII,
// check codes, the readings' words and the flags a reading raises against its thresholds.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace optical::images::bytes {

inline void put16(std::span<uint8_t> image, size_t at, uint16_t word) {
    image[at] = static_cast<uint8_t>(word >> 8);
    image[at + 1] = static_cast<uint8_t>(word);
}

inline void put_float(std::span<uint8_t> image, size_t at, float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    put16(image, at, static_cast<uint16_t>(bits >> 16));
    put16(image, at + 2, static_cast<uint16_t>(bits));
}

// An ASCII field of `length` bytes, padded with spaces, as SFF-8472 and SFF-8636 store them.
inline void put_ascii(std::span<uint8_t> image, size_t at, size_t length, std::string_view text) {
    for (size_t i = 0; i < length; ++i)
        image[at + i] = i < text.size() ? static_cast<uint8_t>(text[i]) : ' ';
}

// The low 8 bits of the sum of bytes first..last, stored at `at`.
inline void put_check_code(std::span<uint8_t> image, size_t first, size_t last, size_t at) {
    unsigned sum = 0;
    for (size_t i = first; i <= last; ++i)
        sum += image[i];
    image[at] = static_cast<uint8_t>(sum);
}

// The words of the documents' units: 1/256 C, 100 uV, 2 uA, 0.1 uW.
inline uint16_t temperature_word(double celsius) {
    return static_cast<uint16_t>(static_cast<int16_t>(std::lround(celsius * 256.0)));
}
inline uint16_t vcc_word(double volts) { return static_cast<uint16_t>(std::lround(volts * 10000.0)); }
inline uint16_t bias_word(double milliamps) { return static_cast<uint16_t>(std::lround(milliamps * 500.0)); }
inline uint16_t power_word(double milliwatts) {
    return static_cast<uint16_t>(std::lround(std::fmax(milliwatts, 0.0) * 10000.0));
}

// Limits in the order the documents store them: high alarm, low alarm, high warning, low warning.
struct Limits {
    double high_alarm, low_alarm, high_warning, low_warning;
};

// The 4 flag bits of a reading against its limits: bit 3 high alarm, 2 low alarm, 1 high
// warning, 0 low warning (a flag is set beyond its threshold).
inline unsigned flag_bits(double value, const Limits& l) {
    return (value > l.high_alarm ? 8u : 0u) | (value < l.low_alarm ? 4u : 0u) |
           (value > l.high_warning ? 2u : 0u) | (value < l.low_warning ? 1u : 0u);
}

}  // namespace optical::images::bytes
