// SFF-8472 (Management Interface for SFP+): the serial ID of 2-wire address A0h (its first 128
// bytes, SFF-8472 table 4-1 with SFF-8024's codes) and the digital diagnostics of A2h,
// internally or externally calibrated. Decoding checks CC_BASE and CC_EXT
// of A0h and, when diagnostics are read, CC_DMI of A2h; a checksum that fails, an identifier
// that is not an SFP's, or bytes too few are an error, never a decode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "base/result.hpp"
#include "optical/diagnostics.hpp"
#include "optical/module_info.hpp"

namespace optical {

// The bytes decode_sff8472 needs of each address: A0h 0-127, A2h 0-127 (the user EEPROM of
// A2h, bytes 128-247, is never needed).
inline constexpr size_t kSff8472A0Bytes = 128;
inline constexpr size_t kSff8472A2Bytes = 128;

enum class Calibration { internal, external };

struct Sff8472Diagnostics {
    Calibration calibration = Calibration::internal;
    RxPowerType rx_power_type = RxPowerType::oma;
    // Enhanced Options (A0h byte 93) bit 7: alarm and warning flags and thresholds implemented.
    bool alarm_warning_flags_implemented = false;
    Monitor<Temperature> temperature;
    Monitor<SupplyVoltage> vcc;
    Monitor<BiasCurrent> tx_bias;
    Monitor<OpticalPower> tx_power;
    Monitor<OpticalPower> rx_power;
    // Status/Control (A2h byte 110) as the module reports it.
    uint8_t status_control = 0;
    // The calibration constants of A2h bytes 56-91 (identity when internally calibrated).
    RxPowerCalibration rx_power_cal;
    LinearCalibration tx_i_cal, tx_pwr_cal, t_cal, v_cal;
};

struct Sff8472Module {
    uint8_t identifier = 0;           // A0h byte 0 (SFF-8024 table 4-1)
    uint8_t ext_identifier = 0;       // A0h byte 1
    uint8_t connector = 0;            // A0h byte 2 (SFF-8024 table 4-3)
    Compliance transceiver;           // A0h bytes 3-10 and 36 (Extended Specification Compliance)
    uint8_t encoding = 0;             // A0h byte 11 (SFF-8024 table 4-2)
    uint8_t br_nominal = 0;           // A0h byte 12, units of 100 MBd (FFh: see byte 66)
    uint8_t rate_identifier = 0;      // A0h byte 13
    uint8_t length_smf_km = 0;        // A0h byte 14, km
    uint8_t length_om2 = 0;           // A0h byte 16, units of 10 m
    uint8_t length_om1 = 0;           // A0h byte 17, units of 10 m
    uint8_t length_copper = 0;        // A0h byte 18 (OM4 or copper cable), units of 1 m
    uint8_t length_om3 = 0;           // A0h byte 19, units of 10 m
    uint16_t wavelength = 0;          // A0h bytes 60-61: nm, or the cable compliance (byte 60)
    std::array<uint8_t, 2> options{}; // A0h bytes 64-65
    uint8_t br_max = 0;               // A0h byte 66
    uint8_t br_min = 0;               // A0h byte 67
    uint8_t diagnostic_monitoring_type = 0;  // A0h byte 92
    uint8_t enhanced_options = 0;             // A0h byte 93
    uint8_t sff8472_compliance = 0;           // A0h byte 94
    VendorInfo vendor;
    // Nominal signalling rate in MBd (byte 12 x 100, or byte 66 x 250 when byte 12 is FFh); 0
    // where the module does not specify it.
    unsigned br_nominal_mbd() const;
    bool passive_cable() const { return transceiver_byte(8) & 0x04; }  // byte 8 bit 2
    bool active_cable() const { return transceiver_byte(8) & 0x08; }   // byte 8 bit 3
    // A0h byte 3..10 of the transceiver codes (0 when the module holds none).
    uint8_t transceiver_byte(size_t byte) const {
        return byte >= 3 && byte <= 10 && byte - 3 < transceiver.codes.size() ? transceiver.codes[byte - 3] : 0;
    }
    // Absent when A0h byte 92 bit 6 (Digital diagnostic monitoring implemented) is clear.
    std::optional<Sff8472Diagnostics> diagnostics;
};

// Decodes A0h (at least kSff8472A0Bytes) and A2h (at least kSff8472A2Bytes; may be empty only
// when A0h says no diagnostics are implemented). Errors: EINVAL for bytes too few,
// EPROTONOSUPPORT for an identifier that is not an SFP's (02h, 03h), EBADMSG for a failed
// checksum; the error names the address and byte.
pdt::Result<Sff8472Module> decode_sff8472(std::span<const uint8_t> a0, std::span<const uint8_t> a2);

}  // namespace optical
