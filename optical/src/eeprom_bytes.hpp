// Reading the words of a module's EEPROM (private to optical): big-endian words, as both
// SFF-8472 and SFF-8636 store them, the vendor's fields both hold, and the errors every
// decoder gives.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "base/format.hpp"
#include "base/result.hpp"
#include "optical/module_info.hpp"
#include "optical/sff8024.hpp"

namespace optical::eeprom {

inline uint16_t be16(std::span<const uint8_t> bytes, size_t at) {
    return static_cast<uint16_t>(bytes[at] << 8 | bytes[at + 1]);
}

inline float be_float(std::span<const uint8_t> bytes, size_t at) {
    const uint32_t bits = uint32_t{bytes[at]} << 24 | uint32_t{bytes[at + 1]} << 16 |
                          uint32_t{bytes[at + 2]} << 8 | bytes[at + 3];
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

inline std::string ascii(std::span<const uint8_t> bytes, size_t first, size_t last) {
    return ascii_field(bytes.data() + first, last - first + 1);
}

// A code bit of a compliance table: the byte, the bit and its description as ethtool -m
// prints it after "Transceiver type".
struct CodeBit {
    uint8_t byte;
    uint8_t bit;
    const char* text;
};

// Where a document keeps the vendor's fields: the first byte of each. Name, PN and SN are 16
// bytes and the date code 8 in both documents; the revision is 4 bytes in SFF-8472, 2 in SFF-8636.
struct VendorFields {
    size_t name, oui, part_number, revision, revision_bytes, serial_number, date_code;
};

inline VendorInfo vendor(std::span<const uint8_t> id, const VendorFields& at) {
    VendorInfo vendor;
    vendor.name = ascii(id, at.name, at.name + 15);
    vendor.oui = {id[at.oui], id[at.oui + 1], id[at.oui + 2]};
    vendor.part_number = ascii(id, at.part_number, at.part_number + 15);
    vendor.revision = ascii(id, at.revision, at.revision + at.revision_bytes - 1);
    vendor.serial_number = ascii(id, at.serial_number, at.serial_number + 15);
    vendor.date_code = ascii(id, at.date_code, at.date_code + 7);
    return vendor;
}

// "decode <document> EEPROM <page>: <strerror>: <what>" with EINVAL: too few bytes.
inline pdt::Error too_few_bytes(const char* document, const char* page, size_t have, size_t need) {
    return pdt::make_error(pdt::format("decode %s EEPROM", document), page, EINVAL,
                           pdt::format("%zu bytes read, %zu needed", have, need));
}

// The check code at `at` covering bytes first..at-1: an EBADMSG error naming it, or none.
inline pdt::Result<void> check(const char* document, const char* page, const char* name,
                               std::span<const uint8_t> bytes, size_t first, size_t at) {
    const uint8_t expected = check_code(bytes.data() + first, at - first);
    if (bytes[at] == expected)
        return {};
    return pdt::make_error(pdt::format("decode %s EEPROM", document),
                           pdt::format("%s byte %zu (%s)", page, at, name), EBADMSG,
                           pdt::format("checksum of bytes %zu-%zu is 0x%02x, the module holds 0x%02x: "
                                       "a corrupt EEPROM or a bad read", first, at - 1, expected, bytes[at]));
}

// The identifier at `at`: EPROTONOSUPPORT unless it is one of `accepted` (the SFF-8024 table
// 4-1 codes the document describes), the error naming the byte and each accepted code with its
// table name ("02h module soldered to motherboard, 03h SFP").
inline pdt::Result<void> check_identifier(const char* document, const char* page, std::span<const uint8_t> bytes,
                                          size_t at, std::span<const uint8_t> accepted) {
    const uint8_t code = bytes[at];
    if (std::ranges::find(accepted, code) != accepted.end())
        return {};
    std::string known;
    for (uint8_t each : accepted)
        known += pdt::format(known.empty() ? "%02Xh %s" : ", %02Xh %s", each, identifier_name(each).c_str());
    return pdt::make_error(pdt::format("decode %s EEPROM", document),
                           pdt::format("%s byte %zu (Identifier)", page, at), EPROTONOSUPPORT,
                           pdt::format("identifier 0x%02x (%s) is not one %s describes (%s)", code,
                                       identifier_name(code).c_str(), document, known.c_str()));
}

}  // namespace optical::eeprom
