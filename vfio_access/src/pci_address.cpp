#include "vfio_access/pci_address.hpp"

#include <cstdio>

namespace vfio {
namespace {

// Parses exactly `digits` hex digits from text at pos; returns -1 when they are not all hex.
long parse_hex_field(std::string_view text, size_t pos, size_t digits) {
    long value = 0;
    for (size_t i = 0; i < digits; ++i) {
        const char c = text[pos + i];
        int nibble;
        if (c >= '0' && c <= '9')
            nibble = c - '0';
        else if (c >= 'a' && c <= 'f')
            nibble = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            nibble = c - 'A' + 10;
        else
            return -1;
        value = value * 16 + nibble;
    }
    return value;
}

pdt::Error bad_address(std::string_view text, const char* why) {
    return pdt::usage_error("parse PCI address", "\"" + std::string(text) + "\"",
                      std::string(why) + "; expected dddd:bb:dd.f, e.g. 0000:15:00.0");
}

}  // namespace

pdt::Result<PciAddress> PciAddress::parse(std::string_view text) {
    // Layout: dddd:bb:dd.f -> 12 characters with separators at 4, 7 and 10.
    if (text.size() != 12)
        return bad_address(text, "wrong length");
    if (text[4] != ':' || text[7] != ':' || text[10] != '.')
        return bad_address(text, "misplaced separator");
    const long domain = parse_hex_field(text, 0, 4);
    const long bus = parse_hex_field(text, 5, 2);
    const long device = parse_hex_field(text, 8, 2);
    const long function = parse_hex_field(text, 11, 1);
    if (domain < 0 || bus < 0 || device < 0 || function < 0)
        return bad_address(text, "non-hex digit");
    if (device > 0x1f)
        return bad_address(text, "device number above 0x1f");
    if (function > 7)
        return bad_address(text, "function number above 7");
    return PciAddress{static_cast<uint16_t>(domain), static_cast<uint8_t>(bus),
                      static_cast<uint8_t>(device), static_cast<uint8_t>(function)};
}

std::string PciAddress::to_string() const {
    char text[16];
    std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", domain, bus, device, function);
    return text;
}

}  // namespace vfio
