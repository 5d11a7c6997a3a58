// SFF-8636 memory map (private to optical): byte addresses of the lower page, upper page 00h
// and upper page 03h, named as the document's tables name them. Upper page addresses are 128-255, as the document gives them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace optical::sff8636_lower {

constexpr size_t Identifier = 0;
constexpr size_t Revision_Compliance = 1;
constexpr size_t Status = 2;              // bit 2 Flat_mem, bit 1 IntL, bit 0 Data_Not_Ready
constexpr uint8_t Flat_mem = 1 << 2;
constexpr size_t LOS_Flags = 3;           // Tx4..Tx1 LOS bits 7-4, Rx4..Rx1 LOS bits 3-0
constexpr size_t Fault_Flags = 4;         // Tx adaptive EQ fault bits 7-4, Tx fault bits 3-0
constexpr size_t LOL_Flags = 5;           // Tx CDR LOL bits 7-4, Rx CDR LOL bits 3-0
constexpr size_t Temp_Flags = 6;          // bits 7-4: high alarm, low alarm, high warning, low warning
constexpr size_t Vcc_Flags = 7;
constexpr size_t Rx_Power_Flags = 9;      // bytes 9-10: lanes 1,2 then 3,4, a nibble each
constexpr size_t Tx_Bias_Flags = 11;      // bytes 11-12
constexpr size_t Tx_Power_Flags = 13;     // bytes 13-14
constexpr size_t Temperature = 22;
constexpr size_t Supply_Voltage = 26;
constexpr size_t Rx1_Power = 34;          // Rx1..Rx4 Power at 34, 36, 38, 40
constexpr size_t Tx1_Bias = 42;           // 42..48
constexpr size_t Tx1_Power = 50;          // 50..56
constexpr size_t Tx_Disable = 86;
constexpr size_t Power_Control = 93;      // bit 2 High_Power_Class_Enable, bit 1 Power_set, bit 0 Power_override

}  // namespace optical::sff8636_lower

namespace optical::sff8636_page00 {

constexpr size_t Ext_Identifier = 129;
constexpr size_t Connector = 130;
constexpr size_t Specification_Compliance = 131;  // 131-138
constexpr uint8_t Extended_compliance = 1 << 7;    // byte 131: see byte 192
constexpr size_t Encoding = 139;
constexpr size_t BR_nominal = 140;
constexpr size_t Extended_Rate_Select = 141;
constexpr size_t Length_SMF = 142;
constexpr size_t Length_OM3 = 143;
constexpr size_t Length_OM2 = 144;
constexpr size_t Length_OM1 = 145;
constexpr size_t Length_copper = 146;
constexpr size_t Device_technology = 147;
constexpr size_t Vendor_name = 148;       // 148-163
constexpr size_t Vendor_OUI = 165;        // 165-167
constexpr size_t Vendor_PN = 168;         // 168-183
constexpr size_t Vendor_rev = 184;        // 184-185
constexpr size_t Wavelength = 186;        // 186-187
constexpr size_t Wavelength_tolerance = 188;
constexpr size_t CC_BASE = 191;           // sum of bytes 128-190
constexpr size_t Link_codes = 192;        // Extended Specification Compliance Codes (SFF-8024 4-4)
constexpr size_t Options = 192;           // 192-195
constexpr size_t Vendor_SN = 196;         // 196-211
constexpr size_t Date_Code = 212;         // 212-219
constexpr size_t Diagnostic_Monitoring_Type = 220;
constexpr uint8_t Rx_power_average = 1 << 3;
constexpr uint8_t Tx_power_supported = 1 << 2;
constexpr size_t Enhanced_Options = 221;
constexpr size_t BR_nominal_extended = 222;
constexpr size_t CC_EXT = 223;            // sum of bytes 192-222

}  // namespace optical::sff8636_page00

namespace optical::sff8636_page03 {

// Thresholds: high alarm, low alarm, high warning, low warning, 2 bytes each.
constexpr size_t Temp_High_Alarm = 128;
constexpr size_t Vcc_High_Alarm = 144;
constexpr size_t Rx_Power_High_Alarm = 176;
constexpr size_t Tx_Bias_High_Alarm = 184;
constexpr size_t Tx_Power_High_Alarm = 192;

}  // namespace optical::sff8636_page03
