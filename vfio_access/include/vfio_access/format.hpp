// Small text helpers shared by every module's messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace vfio {

// "0x1f": the form addresses, sizes and register values take in error messages.
inline std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace vfio
