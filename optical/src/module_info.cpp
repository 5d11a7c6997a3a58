// The fields SFF-8472 and SFF-8636 share: ASCII fields, check codes and the raw hex dump.
#include "optical/module_info.hpp"

#include "base/format.hpp"

namespace optical {

std::string ascii_field(const uint8_t* bytes, size_t length) {
    while (length > 0 && bytes[length - 1] == ' ')
        --length;
    std::string text;
    for (size_t i = 0; i < length; ++i)
        text += (bytes[i] >= 32 && bytes[i] <= 126) ? static_cast<char>(bytes[i]) : '_';
    return text;
}

uint8_t check_code(const uint8_t* bytes, size_t length) {
    unsigned sum = 0;
    for (size_t i = 0; i < length; ++i)
        sum += bytes[i];
    return static_cast<uint8_t>(sum & 0xFF);
}

std::string hex_dump(const uint8_t* bytes, size_t length, unsigned base) {
    std::string text = "Offset\t\tValues\n------\t\t------";
    for (size_t i = 0; i < length; ++i) {
        if (i % 16 == 0)
            text += pdt::format("\n0x%04x:\t\t", static_cast<unsigned>(base + i));
        text += pdt::format("%02x ", bytes[i]);
    }
    return text + "\n";
}

}  // namespace optical
