// SFF-8024 (SFF Module Management Reference Code Tables): the codes every management interface
// of a pluggable module shares. Names are the table's, worded as `ethtool -m` prints them.
#pragma once

#include <cstdint>
#include <string>

namespace optical {

// Table 4-1, Identifier Values (byte 0 of SFF-8472 A0h and of SFF-8636's lower page): the
// description of a value ("SFP", "QSFP28"); "reserved or unknown" for others.
std::string identifier_name(uint8_t code);

// Table 4-3, Connector Types: the description of a value ("LC", "MPO Parallel Optic").
std::string connector_name(uint8_t code);

// Table 4-2, Encoding Values. Values 04h to 06h mean different things to SFF-8472 and to
// SFF-8636 (Manchester, SONET Scrambled and 64B/66B in a different order).
enum class EncodingTable { sff8472, sff8636 };
std::string encoding_name(uint8_t code, EncodingTable table);

// Table 4-4, Extended Specification Compliance Codes, worded as ethtool words each document's:
// for SFF-8472 (A0h byte 36) the description after "Extended: " ("100G Base-SR4 or
// 25GBase-SR"), empty for a code ethtool's SFP list does not hold; for SFF-8636 (byte 192) the
// whole "Transceiver type" ("100G Ethernet: 100G Base-SR4 or 25GBase-SR"), "(reserved or
// unknown)" for a code it does not hold.
std::string extended_compliance_sff8472(uint8_t code);
std::string extended_compliance_sff8636(uint8_t code);

}  // namespace optical
