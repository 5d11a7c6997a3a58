// SFF-8024's code tables (Rev 4.x), worded as ethtool -m words them.
#include "optical/sff8024.hpp"

#include <utility>

namespace optical {

namespace {

struct Sff8024Entry {
    uint8_t code;
    const char* text;
};

template <size_t N>
std::string sff8024_lookup(const Sff8024Entry (&table)[N], uint8_t code, const char* otherwise) {
    for (const Sff8024Entry& entry : table)
        if (entry.code == code)
            return entry.text;
    return otherwise;
}

// Table 4-1.
constexpr Sff8024Entry kSff8024Identifiers[] = {
    {0x00, "no module present, unknown, or unspecified"},
    {0x01, "GBIC"},
    {0x02, "module soldered to motherboard"},
    {0x03, "SFP"},
    {0x04, "300 pin XBI"},
    {0x05, "XENPAK"},
    {0x06, "XFP"},
    {0x07, "XFF"},
    {0x08, "XFP-E"},
    {0x09, "XPAK"},
    {0x0A, "X2"},
    {0x0B, "DWDM-SFP"},
    {0x0C, "QSFP"},
    {0x0D, "QSFP+"},
    {0x0E, "CXP"},
    {0x0F, "Shielded Mini Multilane HD 4X"},
    {0x10, "Shielded Mini Multilane HD 8X"},
    {0x11, "QSFP28"},
    {0x12, "CXP2/CXP28"},
    {0x13, "CDFP Style 1/Style 2"},
    {0x14, "Shielded Mini Multilane HD 4X Fanout Cable"},
    {0x15, "Shielded Mini Multilane HD 8X Fanout Cable"},
    {0x16, "CDFP Style 3"},
    {0x17, "microQSFP"},
    {0x18, "QSFP-DD Double Density 8X Pluggable Transceiver (INF-8628)"},
    {0x19, "OSFP 8X Pluggable Transceiver"},
    {0x1B, "DSFP Dual Small Form Factor Pluggable Transceiver"},
    {0x1E, "QSFP+ or later with Common Management Interface Specification (CMIS)"},
    {0x1F, "SFP-DD Double Density 2X Pluggable Transceiver with Common Management Interface Specification (CMIS)"},
    {0x20, "SFP+ and later with Common Management Interface Specification (CMIS)"},
};

// Table 4-3.
constexpr Sff8024Entry kSff8024Connectors[] = {
    {0x00, "unknown or unspecified"},
    {0x01, "SC"},
    {0x02, "Fibre Channel Style 1 copper"},
    {0x03, "Fibre Channel Style 2 copper"},
    {0x04, "BNC/TNC"},
    {0x05, "Fibre Channel coaxial headers"},
    {0x06, "FibreJack"},
    {0x07, "LC"},
    {0x08, "MT-RJ"},
    {0x09, "MU"},
    {0x0A, "SG"},
    {0x0B, "Optical pigtail"},
    {0x0C, "MPO Parallel Optic"},
    {0x0D, "MPO Parallel Optic - 2x16"},
    {0x20, "HSSDC II"},
    {0x21, "Copper pigtail"},
    {0x22, "RJ45"},
    {0x23, "No separable connector"},
    {0x24, "MXC 2x16"},
    {0x25, "CS optical connector"},
    {0x26, "Mini CS optical connector"},
    {0x27, "MPO 2x12"},
    {0x28, "MPO 1x16"},
};

// Table 4-2, the values both documents give the same meaning.
constexpr Sff8024Entry kSff8024Encodings[] = {
    {0x00, "unspecified"},
    {0x01, "8B/10B"},
    {0x02, "4B/5B"},
    {0x03, "NRZ"},
    {0x07, "256B/257B (transcoded FEC-enabled data)"},
    {0x08, "PAM4"},
};

struct ExtendedComplianceEntry {
    uint8_t code;
    const char* description;
    const char* family;
};

// Table 4-4 (the codes of 10G to 200G Ethernet modules).
constexpr ExtendedComplianceEntry kSff8024ExtendedCompliance[] = {
    {0x01, "100G AOC or 25GAUI C2M AOC with worst BER of 5x10^(-5)", "100G Ethernet"},
    {0x02, "100G Base-SR4 or 25GBase-SR", "100G Ethernet"},
    {0x03, "100G Base-LR4 or 25GBase-LR", "100G Ethernet"},
    {0x04, "100G Base-ER4 or 25GBase-ER", "100G Ethernet"},
    {0x05, "100G Base-SR10", "100G Ethernet"},
    {0x06, "100G CWDM4 MSA with FEC", "100G Ethernet"},
    {0x07, "100G PSM4 Parallel SMF", "100G Ethernet"},
    {0x08, "100G ACC or 25GAUI C2M ACC with worst BER of 5x10^(-5)", "100G Ethernet"},
    {0x09, "100G CWDM4 MSA without FEC", "100G Ethernet"},
    {0x0B, "100G Base-CR4 or 25G Base-CR CA-L", "100G Ethernet"},
    {0x0C, "25G Base-CR CA-S", "25G Ethernet"},
    {0x0D, "25G Base-CR CA-N", "25G Ethernet"},
    {0x10, "40G Base-ER4", "40G Ethernet"},
    {0x11, "10G Base-SR", "4x10G Ethernet"},
    {0x12, "40G PSM4 Parallel SMF", "40G Ethernet"},
    {0x16, "10G Base-T with SFI electrical interface", "10G Ethernet"},
    {0x17, "100G CLR4", "100G Ethernet"},
    {0x18, "100G AOC or 25GAUI C2M AOC with worst BER of 10^(-12)", "100G Ethernet"},
    {0x19, "100G ACC or 25GAUI C2M ACC with worst BER of 10^(-12)", "100G Ethernet"},
    {0x1F, "40G SWDM4", ""},
    {0x20, "100G SWDM4", ""},
    {0x21, "100G PAM4 BiDi", ""},
    {0x25, "100GBASE-DR (clause 140), CAUI-4 (no FEC)", ""},
    {0x26, "100G-FR or 100GBASE-FR1 (clause 140), CAUI-4 (no FEC)", ""},
    {0x27, "100G-LR or 100GBASE-LR1 (clause 140), CAUI-4 (no FEC)", ""},
    {0x40, "50GBASE-CR, 100GBASE-CR2, or 200GBASE-CR4", ""},
    {0x41, "50GBASE-SR, 100GBASE-SR2, or 200GBASE-SR4", ""},
    {0x42, "50GBASE-FR or 200GBASE-DR4", ""},
    {0x43, "200GBASE-FR4", ""},
};

}  // namespace

std::string identifier_name(uint8_t code) {
    return sff8024_lookup(kSff8024Identifiers, code, "reserved or unknown");
}

std::string connector_name(uint8_t code) {
    return sff8024_lookup(kSff8024Connectors, code, "reserved or unknown");
}

std::string encoding_name(uint8_t code, EncodingTable table) {
    // 04h..06h: SFF-8472 reads Manchester, SONET Scrambled, 64B/66B; SFF-8636 reads SONET
    // Scrambled, 64B/66B, Manchester.
    static const char* const kSff8472Middle[] = {"Manchester", "SONET Scrambled", "64B/66B"};
    static const char* const kSff8636Middle[] = {"SONET Scrambled", "64B/66B", "Manchester"};
    if (code >= 0x04 && code <= 0x06)
        return (table == EncodingTable::sff8472 ? kSff8472Middle : kSff8636Middle)[code - 0x04];
    return sff8024_lookup(kSff8024Encodings, code, "reserved or unknown");
}

ExtendedCompliance extended_compliance(uint8_t code) {
    for (const ExtendedComplianceEntry& entry : kSff8024ExtendedCompliance)
        if (entry.code == code)
            return {entry.description, entry.family};
    return {};
}

}  // namespace optical
