// SFF-8636 decoding: lower page, upper page 00h (serial ID) and upper page 03h (thresholds).
#include "optical/sff8636.hpp"

#include "eeprom_bytes.hpp"
#include "optical/sff8024.hpp"
#include "sff8636_map.hpp"

namespace optical {

namespace {

namespace lower = sff8636_lower;
namespace p00 = sff8636_page00;
namespace p03 = sff8636_page03;
constexpr const char* kSff8636 = "SFF-8636";
// The identifiers (SFF-8024 table 4-1) of the modules SFF-8636 describes: 0Ch QSFP, 0Dh QSFP+,
// 11h QSFP28.
constexpr uint8_t kSff8636Identifiers[] = {0x0C, 0x0D, 0x11};

// Specification Compliance Codes (bytes 131-138) as ethtool -m words them. Byte
// 131 bit 7 (extended, byte 192) is decoded apart.
constexpr eeprom::CodeBit kSff8636ComplianceBits[] = {
    {131, 6, "10G Ethernet: 10G Base-LRM"}, {131, 5, "10G Ethernet: 10G Base-LR"},
    {131, 4, "10G Ethernet: 10G Base-SR"}, {131, 3, "40G Ethernet: 40G Base-CR4"},
    {131, 2, "40G Ethernet: 40G Base-SR4"}, {131, 1, "40G Ethernet: 40G Base-LR4"},
    {131, 0, "40G Ethernet: 40G Active Cable (XLPPI)"},
    {132, 3, "40G OTN (OTU3B/OTU3C)"}, {132, 2, "SONET: OC-48, long reach"},
    {132, 1, "SONET: OC-48, intermediate reach"}, {132, 0, "SONET: OC-48, short reach"},
    {133, 5, "SAS 6.0G"}, {133, 4, "SAS 3.0G"},
    {134, 3, "Ethernet: 1000BASE-T"}, {134, 2, "Ethernet: 1000BASE-CX"},
    {134, 1, "Ethernet: 1000BASE-LX"}, {134, 0, "Ethernet: 1000BASE-SX"},
    {135, 7, "FC: very long distance (V)"}, {135, 6, "FC: short distance (S)"},
    {135, 5, "FC: intermediate distance (I)"}, {135, 4, "FC: long distance (L)"},
    {135, 3, "FC: medium distance (M)"}, {135, 1, "FC: Longwave laser (LC)"},
    {135, 0, "FC: Electrical inter-enclosure (EL)"},
    {136, 7, "FC: Electrical intra-enclosure (EL)"}, {136, 6, "FC: Shortwave laser w/o OFC (SN)"},
    {136, 5, "FC: Shortwave laser with OFC (SL)"}, {136, 4, "FC: Longwave laser (LL)"},
    {137, 7, "FC: Twin Axial Pair (TW)"}, {137, 6, "FC: Twisted Pair (TP)"},
    {137, 5, "FC: Miniature Coax (MI)"}, {137, 4, "FC: Video Coax (TV)"},
    {137, 3, "FC: Multimode, 62.5m (M6)"}, {137, 2, "FC: Multimode, 50m (M5)"},
    {137, 1, "FC: Multimode, 50um (OM3)"}, {137, 0, "FC: Single Mode (SM)"},
    {138, 7, "FC: 1200 MBytes/sec"}, {138, 6, "FC: 800 MBytes/sec"}, {138, 5, "FC: 1600 MBytes/sec"},
    {138, 4, "FC: 400 MBytes/sec"}, {138, 2, "FC: 200 MBytes/sec"}, {138, 0, "FC: 100 MBytes/sec"},
};

Compliance sff8636_compliance(std::span<const uint8_t> id) {
    Compliance compliance;
    for (size_t at = p00::Specification_Compliance; at < p00::Specification_Compliance + 8; ++at)
        compliance.codes.push_back(id[at]);
    // ethtool's order: the 10/40G Ethernet bits of byte 131, the extended code, then the rest.
    const auto add_bits = [&](bool byte131) {
        for (const eeprom::CodeBit& code : kSff8636ComplianceBits)
            if ((code.byte == p00::Specification_Compliance) == byte131 && (id[code.byte] & (1u << code.bit)))
                compliance.descriptions.push_back(code.text);
    };
    add_bits(true);
    if (id[p00::Specification_Compliance] & p00::Extended_compliance)
        compliance.descriptions.push_back(extended_compliance_sff8636(id[p00::Link_codes]));
    add_bits(false);
    return compliance;
}

constexpr eeprom::VendorFields kSff8636Vendor = {p00::Vendor_name, p00::Vendor_OUI, p00::Vendor_PN, p00::Vendor_rev,
                                                  2, p00::Vendor_SN, p00::Date_Code};

Sff8636Module sff8636_serial_id(std::span<const uint8_t> id) {
    Sff8636Module m;
    m.identifier = id[lower::Identifier];
    m.revision_compliance = id[lower::Revision_Compliance];
    m.status = id[lower::Status];
    m.los_fault_lol = {id[lower::LOS_Flags], id[lower::Fault_Flags], id[lower::LOL_Flags]};
    m.tx_disable = id[lower::Tx_Disable];
    m.power_control = id[lower::Power_Control];
    m.ext_identifier = id[p00::Ext_Identifier];
    m.connector = id[p00::Connector];
    m.transceiver = sff8636_compliance(id);
    m.encoding = id[p00::Encoding];
    m.br_nominal = id[p00::BR_nominal];
    m.br_nominal_extended = id[p00::BR_nominal_extended];
    m.extended_rate_select = id[p00::Extended_Rate_Select];
    m.length_smf_km = id[p00::Length_SMF];
    m.length_om3 = id[p00::Length_OM3];
    m.length_om2 = id[p00::Length_OM2];
    m.length_om1 = id[p00::Length_OM1];
    m.length_copper = id[p00::Length_copper];
    m.device_technology = id[p00::Device_technology];
    m.wavelength = eeprom::be16(id, p00::Wavelength);
    m.wavelength_tolerance = eeprom::be16(id, p00::Wavelength_tolerance);
    m.options = {id[p00::Options], id[p00::Options + 1], id[p00::Options + 2], id[p00::Options + 3]};
    m.diagnostic_monitoring_type = id[p00::Diagnostic_Monitoring_Type];
    m.enhanced_options = id[p00::Enhanced_Options];
    m.vendor = eeprom::vendor(id, kSff8636Vendor);
    return m;
}

// The flags of a nibble: bits 3..0 of it are high alarm, low alarm, high warning, low warning.
Flags sff8636_flags(unsigned nibble) {
    return Flags{(nibble & 8) != 0, (nibble & 4) != 0, (nibble & 2) != 0, (nibble & 1) != 0};
}

// A lane's nibble of a two-byte flag field (lanes 1, 2 in the first byte, 3, 4 in the second).
Flags sff8636_lane_flags(std::span<const uint8_t> id, size_t field, unsigned lane) {
    const uint8_t byte = id[field + lane / 2];
    return sff8636_flags(lane % 2 == 0 ? byte >> 4 : byte & 0xF);
}

template <typename T>
Thresholds<T> sff8636_thresholds(std::span<const uint8_t> page03, size_t at) {
    const auto word = [&](size_t address) { return T{static_cast<decltype(T::raw)>(eeprom::be16(page03, address - 128))}; };
    return Thresholds<T>{word(at), word(at + 2), word(at + 4), word(at + 6)};
}

Sff8636Diagnostics sff8636_diagnostics(const Sff8636Module& m, std::span<const uint8_t> id,
                                       std::span<const uint8_t> page03) {
    Sff8636Diagnostics diag;
    diag.rx_power_type = (m.diagnostic_monitoring_type & p00::Rx_power_average) ? RxPowerType::average
                                                                                : RxPowerType::oma;
    diag.alarm_warning_flags_implemented = !page03.empty();
    const bool tx_power = (m.diagnostic_monitoring_type & p00::Tx_power_supported) != 0;
    diag.temperature.value = Temperature{static_cast<int16_t>(eeprom::be16(id, lower::Temperature))};
    diag.vcc.value = SupplyVoltage{eeprom::be16(id, lower::Supply_Voltage)};
    for (unsigned lane = 0; lane < kSff8636Lanes; ++lane) {
        Sff8636Lane& l = diag.lanes[lane];
        l.rx_power.value = OpticalPower{eeprom::be16(id, lower::Rx1_Power + 2 * lane)};
        l.tx_bias.value = BiasCurrent{eeprom::be16(id, lower::Tx1_Bias + 2 * lane)};
        if (tx_power)
            l.tx_power.value = OpticalPower{eeprom::be16(id, lower::Tx1_Power + 2 * lane)};
    }
    if (page03.empty())
        return diag;
    diag.temperature.thresholds = sff8636_thresholds<Temperature>(page03, p03::Temp_High_Alarm);
    diag.temperature.flags = sff8636_flags(id[lower::Temp_Flags] >> 4);
    diag.vcc.thresholds = sff8636_thresholds<SupplyVoltage>(page03, p03::Vcc_High_Alarm);
    diag.vcc.flags = sff8636_flags(id[lower::Vcc_Flags] >> 4);
    diag.rx_power_thresholds = sff8636_thresholds<OpticalPower>(page03, p03::Rx_Power_High_Alarm);
    diag.tx_bias_thresholds = sff8636_thresholds<BiasCurrent>(page03, p03::Tx_Bias_High_Alarm);
    if (tx_power)
        diag.tx_power_thresholds = sff8636_thresholds<OpticalPower>(page03, p03::Tx_Power_High_Alarm);
    for (unsigned lane = 0; lane < kSff8636Lanes; ++lane) {
        Sff8636Lane& l = diag.lanes[lane];
        l.rx_power.flags = sff8636_lane_flags(id, lower::Rx_Power_Flags, lane);
        l.tx_bias.flags = sff8636_lane_flags(id, lower::Tx_Bias_Flags, lane);
        if (tx_power)
            l.tx_power.flags = sff8636_lane_flags(id, lower::Tx_Power_Flags, lane);
    }
    return diag;
}

}  // namespace

unsigned Sff8636Module::br_nominal_mbps() const {
    if (br_nominal == 0xFF)
        return br_nominal_extended * 250u;
    return br_nominal * 100u;
}

pdt::Result<Sff8636Module> decode_sff8636(std::span<const uint8_t> page00, std::span<const uint8_t> page03) {
    if (page00.size() < kSff8636Page00Bytes)
        return eeprom::too_few_bytes(kSff8636, "lower page and page 00h", page00.size(), kSff8636Page00Bytes);
    PDT_CHECK(eeprom::check_identifier(kSff8636, "lower page", page00, lower::Identifier, kSff8636Identifiers));
    PDT_CHECK(eeprom::check(kSff8636, "page 00h", "CC_BASE", page00, 128, p00::CC_BASE));
    PDT_CHECK(eeprom::check(kSff8636, "page 00h", "CC_EXT", page00, p00::Options, p00::CC_EXT));
    const bool flat = (page00[lower::Status] & lower::Flat_mem) != 0;
    if (flat)
        page03 = {};
    else if (!page03.empty() && page03.size() < kSff8636Page03Bytes)
        return eeprom::too_few_bytes(kSff8636, "page 03h", page03.size(), kSff8636Page03Bytes);
    Sff8636Module module = sff8636_serial_id(page00);
    const int16_t temperature = static_cast<int16_t>(eeprom::be16(page00, lower::Temperature));
    if (temperature != 0 && temperature != -1)
        module.diagnostics = sff8636_diagnostics(module, page00, page03);
    return module;
}

}  // namespace optical
