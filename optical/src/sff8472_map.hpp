// SFF-8472 memory map (private to optical): byte addresses named as the document's tables of
// A0h (table 4-1, the serial ID) and of A2h (the diagnostics) name them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace optical::sff8472_a0 {

constexpr size_t Identifier = 0;
constexpr size_t Ext_Identifier = 1;
constexpr size_t Connector = 2;
constexpr size_t Transceiver = 3;       // bytes 3-10
constexpr size_t Encoding = 11;
constexpr size_t BR_Nominal = 12;
constexpr size_t Rate_Identifier = 13;
constexpr size_t Length_SMF_km = 14;
constexpr size_t Length_OM2 = 16;       // 50 um, units of 10 m
constexpr size_t Length_OM1 = 17;       // 62.5 um, units of 10 m
constexpr size_t Length_OM4_or_copper = 18;
constexpr size_t Length_OM3 = 19;
constexpr size_t Vendor_name = 20;      // 20-35
constexpr size_t Transceiver_ext = 36;  // Extended Specification Compliance Codes
constexpr size_t Vendor_OUI = 37;       // 37-39
constexpr size_t Vendor_PN = 40;        // 40-55
constexpr size_t Vendor_rev = 56;       // 56-59
constexpr size_t Wavelength = 60;       // 60-61
constexpr size_t CC_BASE = 63;          // sum of bytes 0-62
constexpr size_t Options = 64;          // 64-65
constexpr size_t BR_max = 66;
constexpr size_t BR_min = 67;
constexpr size_t Vendor_SN = 68;        // 68-83
constexpr size_t Date_code = 84;        // 84-91
constexpr size_t Diagnostic_Monitoring_Type = 92;
constexpr size_t Enhanced_Options = 93;
constexpr size_t SFF_8472_Compliance = 94;
constexpr size_t CC_EXT = 95;           // sum of bytes 64-94

// Diagnostic Monitoring Type (byte 92).
constexpr uint8_t DDM_implemented = 1 << 6;
constexpr uint8_t Internally_calibrated = 1 << 5;
constexpr uint8_t Externally_calibrated = 1 << 4;
constexpr uint8_t Rx_power_average = 1 << 3;  // 0: OMA
// Enhanced Options (byte 93).
constexpr uint8_t Alarm_warning_flags_implemented = 1 << 7;

}  // namespace optical::sff8472_a0

namespace optical::sff8472_a2 {

// Alarm and warning thresholds: high alarm, low alarm, high warning, low warning.
constexpr size_t Temp_High_Alarm = 0;
constexpr size_t Voltage_High_Alarm = 8;
constexpr size_t Bias_High_Alarm = 16;
constexpr size_t TX_Power_High_Alarm = 24;
constexpr size_t RX_Power_High_Alarm = 32;
// External calibration constants.
constexpr size_t Rx_PWR_4 = 56;  // Rx_PWR(4) .. Rx_PWR(0) at 56, 60, 64, 68, 72
constexpr size_t Tx_I_Slope = 76;
constexpr size_t Tx_I_Offset = 78;
constexpr size_t Tx_PWR_Slope = 80;
constexpr size_t Tx_PWR_Offset = 82;
constexpr size_t T_Slope = 84;
constexpr size_t T_Offset = 86;
constexpr size_t V_Slope = 88;
constexpr size_t V_Offset = 90;
constexpr size_t CC_DMI = 95;    // sum of bytes 0-94
// A/D values.
constexpr size_t Temperature = 96;
constexpr size_t Vcc = 98;
constexpr size_t TX_Bias = 100;
constexpr size_t TX_Power = 102;
constexpr size_t RX_Power = 104;
constexpr size_t Status_Control = 110;
// Alarm and warning flags: byte 112/116 bits 7..0 temperature high/low, Vcc
// high/low, TX bias high/low, TX power high/low; byte 113/117 bits 7, 6 RX power high/low.
constexpr size_t Alarm_Flags = 112;
constexpr size_t Warning_Flags = 116;

}  // namespace optical::sff8472_a2
