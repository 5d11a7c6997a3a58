// PCI address dddd:bb:dd.f, parsed strictly (no trailing junk, fields in range).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace vfio {

struct PciAddress {
    uint16_t domain = 0;
    uint8_t bus = 0;
    uint8_t device = 0;    // 0..0x1f
    uint8_t function = 0;  // 0..7

    // Accepts exactly "dddd:bb:dd.f" (hex, either case). Errors name the text and the field.
    static pdt::Result<PciAddress> parse(std::string_view text);
    std::string to_string() const;  // lower-case "0000:15:00.0"

    auto operator<=>(const PciAddress&) const = default;
};

}  // namespace vfio
