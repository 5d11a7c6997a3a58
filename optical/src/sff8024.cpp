// SFF-8024's code tables (Rev 4.x), worded as ethtool -m words them.
#include "optical/sff8024.hpp"

#include <algorithm>
#include <initializer_list>
#include <span>

namespace optical {

namespace {

struct Sff8024Entry {
    uint8_t code;
    const char* text;
};

// The text of `code` in the first of `tables` that holds it; nullptr where none does.
const char* sff8024_text(std::initializer_list<std::span<const Sff8024Entry>> tables, uint8_t code) {
    for (std::span<const Sff8024Entry> table : tables) {
        const auto entry = std::ranges::find(table, code, &Sff8024Entry::code);
        if (entry != table.end())
            return entry->text;
    }
    return nullptr;
}

std::string sff8024_name(std::span<const Sff8024Entry> table, uint8_t code) {
    const char* text = sff8024_text({table}, code);
    return text ? text : "reserved or unknown";
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

// Table 4-4, the codes whose description ethtool words alike for both documents.
constexpr Sff8024Entry kSff8024ExtendedCompliance[] = {
    {0x1A, "100GE-DWDM2 (DWDM transceiver using 2 wavelengths on a 1550 nm DWDM grid with a reach up to 80 km)"},
    {0x1B, "100G 1550nm WDM (4 wavelengths)"},
    {0x1D, "5GBASE-T"},
    {0x1E, "2.5GBASE-T"},
    {0x1F, "40G SWDM4"},
    {0x20, "100G SWDM4"},
    {0x21, "100G PAM4 BiDi"},
    {0x22, "4WDM-10 MSA (10km version of 100G CWDM4 with same RS(528,514) FEC in host system)"},
    {0x23, "4WDM-20 MSA (20km version of 100GBASE-LR4 with RS(528,514) FEC in host system)"},
    {0x24, "4WDM-40 MSA (40km reach with APD receiver and RS(528,514) FEC in host system)"},
    {0x25, "100GBASE-DR (clause 140), CAUI-4 (no FEC)"},
    {0x26, "100G-FR or 100GBASE-FR1 (clause 140), CAUI-4 (no FEC)"},
    {0x27, "100G-LR or 100GBASE-LR1 (clause 140), CAUI-4 (no FEC)"},
    {0x30, "Active Copper Cable with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M. Providing a worst BER of 10-6 or below"},
    {0x31, "Active Optical Cable with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M. Providing a worst BER of 10-6 or below"},
    {0x32, "Active Copper Cable with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M. Providing a worst BER of 2.6x10-4 for ACC, 10-5 for AUI, or below"},
    {0x33, "Active Optical Cable with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M. Providing a worst BER of 2.6x10-4 for ACC, 10-5 for AUI, or below"},
    {0x40, "50GBASE-CR, 100GBASE-CR2, or 200GBASE-CR4"},
    {0x41, "50GBASE-SR, 100GBASE-SR2, or 200GBASE-SR4"},
    {0x42, "50GBASE-FR or 200GBASE-DR4"},
    {0x43, "200GBASE-FR4"},
    {0x44, "200G 1550 nm PSM4"},
    {0x45, "50GBASE-LR"},
    {0x46, "200GBASE-LR4"},
    {0x50, "64GFC EA"},
    {0x51, "64GFC SW"},
    {0x52, "64GFC LW"},
    {0x53, "128GFC EA"},
    {0x54, "128GFC SW"},
    {0x55, "128GFC LW"},
};

// Table 4-4, the codes ethtool words apart: as its SFP list (sfpid.c) words them, after
// "Extended: " (the codes it does not hold are absent)...
constexpr Sff8024Entry kSff8472ExtendedCompliance[] = {
    {0x01, "100G AOC or 25GAUI C2M AOC with worst BER of 5x10^(-5)"},
    {0x02, "100G Base-SR4 or 25GBase-SR"},
    {0x03, "100G Base-LR4 or 25GBase-LR"},
    {0x04, "100G Base-ER4 or 25GBase-ER"},
    {0x08, "100G ACC or 25GAUI C2M ACC with worst BER of 5x10^(-5)"},
    {0x0B, "100G Base-CR4 or 25G Base-CR CA-L"},
    {0x0C, "25G Base-CR CA-S"},
    {0x0D, "25G Base-CR CA-N"},
    {0x16, "10Gbase-T with SFI electrical interface"},
    {0x18, "100G AOC or 25GAUI C2M AOC with worst BER of 10^(-12)"},
    {0x19, "100G ACC or 25GAUI C2M ACC with worst BER of 10^(-12)"},
    {0x1C, "10Gbase-T Short Reach"},
};

// ...and as its QSFP list (qsfp.c) words them.
constexpr Sff8024Entry kSff8636ExtendedCompliance[] = {
    {0x01, "100G Ethernet: 100G AOC or 25GAUI C2M AOC with worst BER of 5x10^(-5)"},
    {0x02, "100G Ethernet: 100G Base-SR4 or 25GBase-SR"},
    {0x03, "100G Ethernet: 100G Base-LR4"},
    {0x04, "100G Ethernet: 100G Base-ER4"},
    {0x05, "100G Ethernet: 100G Base-SR10"},
    {0x06, "100G Ethernet: 100G CWDM4 MSA with FEC"},
    {0x07, "100G Ethernet: 100G PSM4 Parallel SMF"},
    {0x08, "100G Ethernet: 100G ACC or 25GAUI C2M ACC with worst BER of 5x10^(-5)"},
    {0x09, "100G Ethernet: 100G CWDM4 MSA without FEC"},
    {0x0B, "100G Ethernet: 100G Base-CR4 or 25G Base-CR CA-L"},
    {0x0C, "25G Ethernet: 25G Base-CR CA-S"},
    {0x0D, "25G Ethernet: 25G Base-CR CA-N"},
    {0x10, "40G Ethernet: 40G Base-ER4"},
    {0x11, "4x10G Ethernet: 10G Base-SR"},
    {0x12, "40G Ethernet: 40G PSM4 Parallel SMF"},
    {0x13, "Ethernet: G959.1 profile P1I1-2D1 (10709 MBd, 2km, 1310nm SM)"},
    {0x14, "Ethernet: G959.1 profile P1S1-2D2 (10709 MBd, 40km, 1550nm SM)"},
    {0x15, "Ethernet: G959.1 profile P1L1-2D2 (10709 MBd, 80km, 1550nm SM)"},
    {0x16, "10G Ethernet: 10G Base-T with SFI electrical interface"},
    {0x17, "100G Ethernet: 100G CLR4"},
    {0x18, "100G Ethernet: 100G AOC or 25GAUI C2M AOC with worst BER of 10^(-12)"},
    {0x19, "100G Ethernet: 100G ACC or 25GAUI C2M ACC with worst BER of 10^(-12)"},
    {0x1C, "10GBASE-T Short Reach (30 meters)"},
};

}  // namespace

std::string identifier_name(uint8_t code) {
    return sff8024_name(kSff8024Identifiers, code);
}

std::string connector_name(uint8_t code) {
    return sff8024_name(kSff8024Connectors, code);
}

std::string encoding_name(uint8_t code, EncodingTable table) {
    // 04h..06h: SFF-8472 reads Manchester, SONET Scrambled, 64B/66B; SFF-8636 reads SONET
    // Scrambled, 64B/66B, Manchester.
    static const char* const kSff8472Middle[] = {"Manchester", "SONET Scrambled", "64B/66B"};
    static const char* const kSff8636Middle[] = {"SONET Scrambled", "64B/66B", "Manchester"};
    if (code >= 0x04 && code <= 0x06)
        return (table == EncodingTable::sff8472 ? kSff8472Middle : kSff8636Middle)[code - 0x04];
    return sff8024_name(kSff8024Encodings, code);
}

std::string extended_compliance_sff8472(uint8_t code) {
    const char* text = sff8024_text({kSff8472ExtendedCompliance, kSff8024ExtendedCompliance}, code);
    return text ? text : "";
}

std::string extended_compliance_sff8636(uint8_t code) {
    const char* text = sff8024_text({kSff8636ExtendedCompliance, kSff8024ExtendedCompliance}, code);
    return text ? text : "(reserved or unknown)";
}

}  // namespace optical
