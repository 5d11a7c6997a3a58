// What the two module EEPROM targets (fuzz_sff8472, fuzz_sff8636) share: the input split into a
// selector byte and two pages, and the properties of a report, whichever document decodes it.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "fuzz_support.hpp"

namespace pdt_fuzz {

// A selector byte (bit 0: recompute the check codes first), then the first page (up to 256
// bytes), then the second (the rest).
struct SffInput {
    bool fix_checksums = false;
    std::vector<uint8_t> first, second;
};

inline SffInput sff_input(const uint8_t* data, size_t size) {
    const size_t first_size = std::min<size_t>(size - 1, 256);
    return {(data[0] & 1) != 0, std::vector<uint8_t>(data + 1, data + 1 + first_size),
            std::vector<uint8_t>(data + 1 + first_size, data + size)};
}

// An error is EINVAL, EBADMSG or EPROTONOSUPPORT and its report is its message and a hex dump.
inline void check_sff_rejected(const pdt::Error& error, const std::string& text) {
    PDT_FUZZ_CHECK(error.code == EINVAL || error.code == EBADMSG || error.code == EPROTONOSUPPORT);
    PDT_FUZZ_CHECK(text.starts_with(error.message() + "\n"));
    PDT_FUZZ_CHECK(text.find("Offset\t\tValues\n") != std::string::npos);
}

// A decoded module's text is lines of "\t<name, 41 wide> : <value>".
inline void check_ethtool_lines(const std::string& text) {
    size_t at = 0;
    while (at < text.size()) {
        const size_t end = text.find('\n', at);
        PDT_FUZZ_CHECK(end != std::string::npos);
        PDT_FUZZ_CHECK(text[at] == '\t' && end - at >= 45 && text.compare(at + 42, 3, " : ") == 0);
        at = end + 1;
    }
}

}  // namespace pdt_fuzz
