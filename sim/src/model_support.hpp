// Small helpers the register models share (internal to sim/).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace sim::model_support {

// The bits an access of `width` bytes (1, 2, 4 or 8) covers.
inline uint64_t width_mask(unsigned width) { return width >= 8 ? ~0ull : (1ull << (width * 8)) - 1; }

// The steady clock in seconds: the models' time base for sensors that move with time.
inline double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// An access of `width` bytes at `offset` to a block of 32-bit registers, assembled little-endian
// from the registers it covers (it may straddle two): read32(offset & ~3) reads one.
template <class Read32>
uint64_t read_by_registers(uint64_t offset, unsigned width, Read32&& read32) {
    uint64_t value = 0;
    for (uint64_t byte = 0; byte < width; byte += 4 - ((offset + byte) & 3)) {
        const uint64_t at = offset + byte;
        value |= (static_cast<uint64_t>(read32(at & ~3ull)) >> ((at & 3) * 8)) << (byte * 8);
    }
    return value & width_mask(width);
}

// Removes the first `fault` armed in `armed`: true where there was one (a fault fires once).
template <class Fault>
bool take_armed_fault(std::vector<Fault>& armed, Fault fault) {
    auto it = std::find(armed.begin(), armed.end(), fault);
    if (it == armed.end())
        return false;
    armed.erase(it);
    return true;
}

// The comma-separated items of a fault list, empty ones included ("" is one empty item).
inline std::vector<std::string> comma_items(const std::string& text) {
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = text.find(',', start);
        items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return items;
}

}  // namespace sim::model_support
