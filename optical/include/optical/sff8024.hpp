// SFF-8024 (SFF Module Management Reference Code Tables): the codes every management interface
// of a pluggable module shares. Names are the table's, worded as `ethtool -m` prints them.
#pragma once

#include <cstdint>
#include <string>

namespace optical {

// Table 4-1, Identifier Values (byte 0 of SFF-8472 A0h and of SFF-8636's lower page).
enum class Identifier : uint8_t {
    unknown = 0x00,
    gbic = 0x01,
    soldered = 0x02,  // module/connector soldered to motherboard
    sfp = 0x03,       // SFP/SFP+/SFP28
    xbi_300_pin = 0x04,
    xenpak = 0x05,
    xfp = 0x06,
    xff = 0x07,
    xfp_e = 0x08,
    xpak = 0x09,
    x2 = 0x0A,
    dwdm_sfp = 0x0B,
    qsfp = 0x0C,
    qsfp_plus = 0x0D,  // QSFP+ or later with SFF-8636 or SFF-8436
    cxp = 0x0E,
    hd4x = 0x0F,
    hd8x = 0x10,
    qsfp28 = 0x11,  // QSFP28 or later with SFF-8636
    cxp2 = 0x12,
    cdfp = 0x13,
    hd4x_fanout = 0x14,
    hd8x_fanout = 0x15,
    cdfp_style3 = 0x16,
    micro_qsfp = 0x17,
    qsfp_dd = 0x18,
    osfp = 0x19,
    dsfp = 0x1B,
    qsfp_plus_cmis = 0x1E,
    sfp_dd_cmis = 0x1F,
    sfp_plus_cmis = 0x20,
};

// The description of an identifier value ("SFP", "QSFP28"); "reserved or unknown" for others.
std::string identifier_name(uint8_t code);

// Table 4-3, Connector Types.
enum class Connector : uint8_t {
    unknown = 0x00,
    sc = 0x01,
    lc = 0x07,
    mpo_1x12 = 0x0C,
    mpo_2x16 = 0x0D,
    copper_pigtail = 0x21,
    rj45 = 0x22,
    no_separable = 0x23,
};
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
