// SFF-8636 (Management Interface for 4-lane Modules and Cables, QSFP+/QSFP28): the lower page
// (bytes 0-127: status, interrupt flags, monitors, controls), upper page 00h (bytes 128-255:
// the serial ID, SFF-8024's codes) and upper page 03h (the module and lane thresholds).
// Decoding checks CC_BASE (byte 191) and CC_EXT (byte 223); a checksum that fails, an
// identifier that is not a QSFP's, or bytes too few are an error, never a decode.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "base/result.hpp"
#include "optical/diagnostics.hpp"
#include "optical/module_info.hpp"

namespace optical {

inline constexpr size_t kSff8636Page00Bytes = 256;  // lower page and upper page 00h
inline constexpr size_t kSff8636Page03Bytes = 128;  // upper page 03h (its bytes 128-255)
inline constexpr unsigned kSff8636Lanes = 4;

// A lane's monitors (lower page bytes 34-57) and their flags (bytes 9-14); thresholds are the
// module's, one set for every lane (page 03h bytes 176-199).
struct Sff8636Lane {
    Monitor<OpticalPower> rx_power;
    Monitor<BiasCurrent> tx_bias;
    Monitor<OpticalPower> tx_power;
};

struct Sff8636Diagnostics {
    RxPowerType rx_power_type = RxPowerType::oma;  // byte 220 bit 3
    // Page 03h read (the memory is paged, byte 2 bit 2 clear): thresholds and flags.
    bool alarm_warning_flags_implemented = false;
    Monitor<Temperature> temperature;
    Monitor<SupplyVoltage> vcc;
    std::array<Sff8636Lane, kSff8636Lanes> lanes;
    // The lane thresholds of page 03h (absent without it).
    std::optional<Thresholds<OpticalPower>> rx_power_thresholds;
    std::optional<Thresholds<BiasCurrent>> tx_bias_thresholds;
    std::optional<Thresholds<OpticalPower>> tx_power_thresholds;
};

struct Sff8636Module {
    uint8_t identifier = 0;          // byte 0 (SFF-8024 table 4-1)
    uint8_t revision_compliance = 0; // byte 1
    uint8_t status = 0;              // byte 2: Flat_mem (bit 2), IntL (bit 1), Data_Not_Ready (bit 0)
    std::array<uint8_t, 3> los_fault_lol{};  // bytes 3-5: LOS, TX fault/adaptive EQ fault, LOL flags
    uint8_t tx_disable = 0;          // byte 86
    uint8_t power_control = 0;       // byte 93: High_Power_Class_Enable, LPMode (Power_set), Power_override
    uint8_t ext_identifier = 0;      // byte 129
    uint8_t connector = 0;           // byte 130 (SFF-8024 table 4-3)
    Compliance transceiver;          // bytes 131-138, and byte 192 when byte 131 bit 7 is set
    uint8_t encoding = 0;            // byte 139 (SFF-8024 table 4-2)
    uint8_t br_nominal = 0;          // byte 140, units of 100 Mbps (FFh: see byte 222)
    uint8_t br_nominal_extended = 0; // byte 222, units of 250 Mbps
    uint8_t extended_rate_select = 0;// byte 141
    uint8_t length_smf_km = 0;       // byte 142, km
    uint8_t length_om3 = 0;          // byte 143, units of 2 m
    uint8_t length_om2 = 0;          // byte 144, m
    uint8_t length_om1 = 0;          // byte 145, m
    uint8_t length_copper = 0;       // byte 146 (or OM4 in 2 m units), m
    uint8_t device_technology = 0;   // byte 147
    uint16_t wavelength = 0;         // bytes 186-187, units of 0.05 nm (attenuation for copper)
    uint16_t wavelength_tolerance = 0;  // bytes 188-189, units of 0.005 nm
    std::array<uint8_t, 4> options{};   // bytes 192-195
    uint8_t diagnostic_monitoring_type = 0;  // byte 220
    uint8_t enhanced_options = 0;            // byte 221
    VendorInfo vendor;
    // Nominal bit rate in Mbps (byte 140 x 100, or byte 222 x 250 when byte 140 is FFh).
    unsigned br_nominal_mbps() const;
    // Absent when the module's Temperature monitor reads 0 or FFFFh (SFF-8636 gives no bit
    // that says monitors are implemented; ethtool's test, kept here).
    std::optional<Sff8636Diagnostics> diagnostics;
};

// Decodes the lower page with upper page 00h (at least kSff8636Page00Bytes) and upper page 03h
// (kSff8636Page03Bytes, or empty when the module is flat memory or the page was not read).
// Errors as decode_sff8472's: EINVAL for bytes too few, EPROTONOSUPPORT for an identifier that
// is not a QSFP's (0Ch, 0Dh, 11h), EBADMSG for a failed checksum.
pdt::Result<Sff8636Module> decode_sff8636(std::span<const uint8_t> page00, std::span<const uint8_t> page03);

}  // namespace optical
