// A decoded module as `ethtool -m` prints it: one "\t<field, 41 wide> : <value>" line a field,
// the same names, units and number formats (taken from ethtool 6.x's sfpid.c, sfpdiag.c,
// qsfp.c and module-common.c), so that a person can set the two side by side. Where ethtool
// would print a monitor the module does not implement as 0, this prints "Not supported".
// An EEPROM that does not decode is reported with the error and a hex dump of its bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"
#include "optical/sff8472.hpp"
#include "optical/sff8636.hpp"

namespace optical {

std::string ethtool_text(const Sff8472Module& module);
std::string ethtool_text(const Sff8636Module& module);

// A page of raw EEPROM bytes and what it is ("A0h", "A2h", "page 00h", "page 03h").
struct RawPage {
    const char* name;
    std::span<const uint8_t> bytes;
    unsigned base = 0;  // the address of its first byte (128 for an upper page)
};

// The report of an EEPROM that did not decode: the error's message on one line ("decode
// SFF-8472 EEPROM A0h byte 63 (CC_BASE): Bad message (...)"), then each page named and dumped
// as `ethtool -m ... hex on` dumps it.
std::string rejected_text(const pdt::Error& error, std::span<const RawPage> pages);

// decode, then ethtool_text or rejected_text: the whole text for a module's bytes.
std::string sff8472_text(std::span<const uint8_t> a0, std::span<const uint8_t> a2);
std::string sff8636_text(std::span<const uint8_t> page00, std::span<const uint8_t> page03);

}  // namespace optical
