// Small helpers the register models share (internal to sim/).
#pragma once

#include <chrono>
#include <cstdint>

namespace sim::model_support {

// The bits an access of `width` bytes (1, 2, 4 or 8) covers.
inline uint64_t width_mask(unsigned width) { return width >= 8 ? ~0ull : (1ull << (width * 8)) - 1; }

// The steady clock in seconds: the models' time base for sensors that move with time.
inline double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace sim::model_support
