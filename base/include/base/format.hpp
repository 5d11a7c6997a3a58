// Small text helpers shared by every module's messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace pdt {

// printf into a string, of any length (the messages and report lines of every module).
template <typename... Args>
std::string format(const char* fmt, Args... args) {
    const int length = std::snprintf(nullptr, 0, fmt, args...);
    if (length <= 0)
        return {};
    std::string text(static_cast<size_t>(length), '\0');
    std::snprintf(text.data(), text.size() + 1, fmt, args...);
    return text;
}

// "0x1f": the form addresses, sizes and register values take in error messages.
inline std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

// "0x0000001f": a 32-bit register value, all eight digits (wider values print in full).
inline std::string hex32(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%08llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace pdt
