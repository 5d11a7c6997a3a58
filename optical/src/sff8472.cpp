// SFF-8472 decoding: A0h serial ID and A2h diagnostics.
#include "optical/sff8472.hpp"

#include "eeprom_bytes.hpp"
#include "optical/sff8024.hpp"
#include "sff8472_map.hpp"

namespace optical {

namespace {

namespace a0 = sff8472_a0;
namespace a2 = sff8472_a2;
constexpr const char* kSff8472 = "SFF-8472";
// The identifiers (SFF-8024 table 4-1) of the modules SFF-8472 describes: 02h module soldered
// to motherboard, 03h SFP.
constexpr uint8_t kSff8472Identifiers[] = {0x02, 0x03};

// Table 5-3, Transceiver Compliance Codes: the byte (3-10), the bit and its description.
constexpr eeprom::CodeBit kSff8472ComplianceBits[] = {
    {3, 7, "10G Ethernet: 10G Base-LRM [SFF-8472 rev10.4 onwards]"},
    {3, 6, "10G Ethernet: 10G Base-LRM"}, {3, 5, "10G Ethernet: 10G Base-LR"},
    {3, 4, "10G Ethernet: 10G Base-SR"}, {3, 3, "Infiniband: 1X SX"}, {3, 2, "Infiniband: 1X LX"},
    {3, 1, "Infiniband: 1X Copper Active"}, {3, 0, "Infiniband: 1X Copper Passive"},
    {4, 7, "ESCON: ESCON MMF, 1310nm LED"}, {4, 6, "ESCON: ESCON SMF, 1310nm Laser"},
    {4, 5, "SONET: OC-192, short reach"}, {4, 4, "SONET: SONET reach specifier bit 1"},
    {4, 3, "SONET: SONET reach specifier bit 2"}, {4, 2, "SONET: OC-48, long reach"},
    {4, 1, "SONET: OC-48, intermediate reach"}, {4, 0, "SONET: OC-48, short reach"},
    {5, 6, "SONET: OC-12, single mode, long reach"}, {5, 5, "SONET: OC-12, single mode, inter. reach"},
    {5, 4, "SONET: OC-12, short reach"}, {5, 2, "SONET: OC-3, single mode, long reach"},
    {5, 1, "SONET: OC-3, single mode, inter. reach"}, {5, 0, "SONET: OC-3, short reach"},
    {6, 7, "Ethernet: BASE-PX"}, {6, 6, "Ethernet: BASE-BX10"}, {6, 5, "Ethernet: 100BASE-FX"},
    {6, 4, "Ethernet: 100BASE-LX/LX10"}, {6, 3, "Ethernet: 1000BASE-T"}, {6, 2, "Ethernet: 1000BASE-CX"},
    {6, 1, "Ethernet: 1000BASE-LX"}, {6, 0, "Ethernet: 1000BASE-SX"},
    {7, 7, "FC: very long distance (V)"}, {7, 6, "FC: short distance (S)"},
    {7, 5, "FC: intermediate distance (I)"}, {7, 4, "FC: long distance (L)"},
    {7, 3, "FC: medium distance (M)"}, {7, 2, "FC: Shortwave laser, linear Rx (SA)"},
    {7, 1, "FC: Longwave laser (LC)"}, {7, 0, "FC: Electrical inter-enclosure (EL)"},
    {8, 7, "FC: Electrical intra-enclosure (EL)"}, {8, 6, "FC: Shortwave laser w/o OFC (SN)"},
    {8, 5, "FC: Shortwave laser with OFC (SL)"}, {8, 4, "FC: Longwave laser (LL)"},
    {8, 3, "Active Cable"}, {8, 2, "Passive Cable"}, {8, 1, "FC: Copper FC-BaseT"},
    {9, 7, "FC: Twin Axial Pair (TW)"}, {9, 6, "FC: Twisted Pair (TP)"}, {9, 5, "FC: Miniature Coax (MI)"},
    {9, 4, "FC: Video Coax (TV)"}, {9, 3, "FC: Multimode, 62.5um (M6)"}, {9, 2, "FC: Multimode, 50um (M5)"},
    {9, 0, "FC: Single Mode (SM)"},
    {10, 7, "FC: 1200 MBytes/sec"}, {10, 6, "FC: 800 MBytes/sec"}, {10, 4, "FC: 400 MBytes/sec"},
    {10, 2, "FC: 200 MBytes/sec"}, {10, 0, "FC: 100 MBytes/sec"},
};

Compliance sff8472_compliance(std::span<const uint8_t> id) {
    Compliance compliance;
    for (size_t at = a0::Transceiver; at < a0::Transceiver + 8; ++at)
        compliance.codes.push_back(id[at]);
    compliance.codes.push_back(id[a0::Transceiver_ext]);
    for (const eeprom::CodeBit& code : kSff8472ComplianceBits)
        if (id[code.byte] & (1u << code.bit))
            compliance.descriptions.push_back(code.text);
    const std::string extended = extended_compliance_sff8472(id[a0::Transceiver_ext]);
    if (!extended.empty())
        compliance.descriptions.push_back("Extended: " + extended);
    return compliance;
}

constexpr eeprom::VendorFields kSff8472Vendor = {a0::Vendor_name, a0::Vendor_OUI, a0::Vendor_PN, a0::Vendor_rev, 4,
                                                  a0::Vendor_SN, a0::Date_code};

Sff8472Module sff8472_serial_id(std::span<const uint8_t> id) {
    Sff8472Module m;
    m.identifier = id[a0::Identifier];
    m.ext_identifier = id[a0::Ext_Identifier];
    m.connector = id[a0::Connector];
    m.transceiver = sff8472_compliance(id);
    m.encoding = id[a0::Encoding];
    m.br_nominal = id[a0::BR_Nominal];
    m.rate_identifier = id[a0::Rate_Identifier];
    m.length_smf_km = id[a0::Length_SMF_km];
    m.length_om2 = id[a0::Length_OM2];
    m.length_om1 = id[a0::Length_OM1];
    m.length_copper = id[a0::Length_OM4_or_copper];
    m.length_om3 = id[a0::Length_OM3];
    m.wavelength = eeprom::be16(id, a0::Wavelength);
    m.options = {id[a0::Options], id[a0::Options + 1]};
    m.br_max = id[a0::BR_max];
    m.br_min = id[a0::BR_min];
    m.diagnostic_monitoring_type = id[a0::Diagnostic_Monitoring_Type];
    m.enhanced_options = id[a0::Enhanced_Options];
    m.sff8472_compliance = id[a0::SFF_8472_Compliance];
    m.vendor = eeprom::vendor(id, kSff8472Vendor);
    return m;
}

LinearCalibration sff8472_linear(std::span<const uint8_t> a2_bytes, size_t slope, size_t offset) {
    return {a2_bytes[slope] + a2_bytes[slope + 1] / 256.0, static_cast<int16_t>(eeprom::be16(a2_bytes, offset))};
}

template <typename T, typename Word>
Monitor<T> sff8472_monitor(std::span<const uint8_t> d, size_t reading, size_t thresholds, bool with_limits,
                           size_t flag_byte, unsigned high_bit, const auto& cal) {
    const auto word = [&](size_t at) { return T{calibrate(cal, static_cast<Word>(eeprom::be16(d, at)))}; };
    Monitor<T> m;
    m.value = word(reading);
    if (!with_limits)
        return m;
    m.thresholds = Thresholds<T>{word(thresholds), word(thresholds + 2), word(thresholds + 4), word(thresholds + 6)};
    const auto bit = [&](size_t at, unsigned b) { return (d[at] >> b & 1) != 0; };
    const size_t alarms = a2::Alarm_Flags + flag_byte, warnings = a2::Warning_Flags + flag_byte;
    m.flags = Flags{bit(alarms, high_bit), bit(alarms, high_bit - 1), bit(warnings, high_bit),
                    bit(warnings, high_bit - 1)};
    return m;
}

Sff8472Diagnostics sff8472_diagnostics(const Sff8472Module& m, std::span<const uint8_t> d) {
    Sff8472Diagnostics diag;
    const uint8_t type = m.diagnostic_monitoring_type;
    diag.calibration = (type & a0::Externally_calibrated) ? Calibration::external : Calibration::internal;
    diag.rx_power_type = (type & a0::Rx_power_average) ? RxPowerType::average : RxPowerType::oma;
    diag.alarm_warning_flags_implemented = (m.enhanced_options & a0::Alarm_warning_flags_implemented) != 0;
    if (diag.calibration == Calibration::external) {
        for (int order = 0; order <= 4; ++order)
            diag.rx_power_cal.coefficient[order] = eeprom::be_float(d, a2::Rx_PWR_4 + 4 * (4 - order));
        diag.tx_i_cal = sff8472_linear(d, a2::Tx_I_Slope, a2::Tx_I_Offset);
        diag.tx_pwr_cal = sff8472_linear(d, a2::Tx_PWR_Slope, a2::Tx_PWR_Offset);
        diag.t_cal = sff8472_linear(d, a2::T_Slope, a2::T_Offset);
        diag.v_cal = sff8472_linear(d, a2::V_Slope, a2::V_Offset);
    }
    const bool limits = diag.alarm_warning_flags_implemented;
    diag.temperature = sff8472_monitor<Temperature, int16_t>(d, a2::Temperature, a2::Temp_High_Alarm, limits, 0, 7, diag.t_cal);
    diag.vcc = sff8472_monitor<SupplyVoltage, uint16_t>(d, a2::Vcc, a2::Voltage_High_Alarm, limits, 0, 5, diag.v_cal);
    diag.tx_bias = sff8472_monitor<BiasCurrent, uint16_t>(d, a2::TX_Bias, a2::Bias_High_Alarm, limits, 0, 3, diag.tx_i_cal);
    diag.tx_power = sff8472_monitor<OpticalPower, uint16_t>(d, a2::TX_Power, a2::TX_Power_High_Alarm, limits, 0, 1, diag.tx_pwr_cal);
    diag.rx_power = sff8472_monitor<OpticalPower, uint16_t>(d, a2::RX_Power, a2::RX_Power_High_Alarm, limits, 1, 7, diag.rx_power_cal);
    diag.status_control = d[a2::Status_Control];
    return diag;
}

}  // namespace

unsigned Sff8472Module::br_nominal_mbd() const {
    if (br_nominal == 0xFF)
        return br_max * 250u;
    return br_nominal * 100u;
}

pdt::Result<Sff8472Module> decode_sff8472(std::span<const uint8_t> a0_bytes, std::span<const uint8_t> a2_bytes) {
    if (a0_bytes.size() < kSff8472A0Bytes)
        return eeprom::too_few_bytes(kSff8472, "A0h", a0_bytes.size(), kSff8472A0Bytes);
    PDT_CHECK(eeprom::check_identifier(kSff8472, "A0h", a0_bytes, a0::Identifier, kSff8472Identifiers));
    PDT_CHECK(eeprom::check(kSff8472, "A0h", "CC_BASE", a0_bytes, 0, a0::CC_BASE));
    PDT_CHECK(eeprom::check(kSff8472, "A0h", "CC_EXT", a0_bytes, a0::Options, a0::CC_EXT));
    Sff8472Module module = sff8472_serial_id(a0_bytes);
    if (!(module.diagnostic_monitoring_type & a0::DDM_implemented))
        return module;
    if (a2_bytes.size() < kSff8472A2Bytes)
        return eeprom::too_few_bytes(kSff8472, "A2h (A0h byte 92: diagnostics implemented)", a2_bytes.size(),
                                     kSff8472A2Bytes);
    PDT_CHECK(eeprom::check(kSff8472, "A2h", "CC_DMI", a2_bytes, 0, a2::CC_DMI));
    module.diagnostics = sff8472_diagnostics(module, a2_bytes);
    return module;
}

}  // namespace optical
