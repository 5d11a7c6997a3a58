// What SFF-8472 and SFF-8636 both say of a module: the vendor's fields and the codes of
// SFF-8024, each kept as its code beside its description.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace optical {

struct VendorInfo {
    std::string name;          // Vendor name, ASCII, trailing spaces removed
    std::array<uint8_t, 3> oui{};  // Vendor OUI
    std::string part_number;   // Vendor PN
    std::string revision;      // Vendor rev
    std::string serial_number; // Vendor SN
    std::string date_code;     // Date code: YYMMDD and the vendor's lot code
};

// A field of ASCII bytes (vendor name, PN, SN, date code): trailing spaces removed and any
// byte outside 32..126 shown as '_' (as ethtool shows it).
std::string ascii_field(const uint8_t* bytes, size_t length);

// The checksum of SFF-8472 and SFF-8636: the low 8 bits of the sum of the bytes it covers.
uint8_t check_code(const uint8_t* bytes, size_t length);

// The lines of a hex dump as `ethtool -m ... hex on` prints them ("Offset\t\tValues", then
// 16 bytes a line after "0x%04x:\t\t"), addresses starting at `base`.
std::string hex_dump(const uint8_t* bytes, size_t length, unsigned base);

// The transceiver compliance of a module: the raw code bytes as the document lists them and
// a description of each code set, in the order ethtool tests them (ethtool 6.x prints only the
// last as "Transceiver type").
struct Compliance {
    std::vector<uint8_t> codes;
    std::vector<std::string> descriptions;
};

}  // namespace optical
