// Plausible EEPROM contents of three optical modules, for the decoders' tests, the fuzz seeds
// and sim's module models: an SFP+ 10GBASE-SR internally calibrated, the same module externally
// calibrated, and a QSFP28 100GBASE-SR4. Written from SFF-8472, SFF-8636 and SFF-8024 with
// offsets of their own (nothing of optical's decoders), checksums computed, and diagnostics
// that follow the conditions given: the bias current rises and the output power falls with
// the temperature, and every alarm and warning flag is set where its reading crosses its
// threshold.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace optical::images {

struct Conditions {
    double temperature_c = 35.0;  // the module's case temperature
    double vcc_v = 3.3;           // its supply
    double rx_power_mw = 0.45;    // light arriving (lane 1; lanes 2-4 read 0.02 mW less each)
};

// The physical readings a module reports under `conditions` (lane 0 for an SFP).
double tx_bias_ma(const Conditions& conditions, unsigned lane);
double tx_power_mw(const Conditions& conditions, unsigned lane);
double rx_power_mw(const Conditions& conditions, unsigned lane);

// SFF-8472: 256 bytes at 2-wire address A0h and 256 at A2h.
struct SfpImage {
    std::array<uint8_t, 256> a0{};
    std::array<uint8_t, 256> a2{};
};

// SFF-8636: the lower page with upper page 00h (256 bytes), and upper page 03h (128 bytes,
// the page's addresses 128-255).
struct QsfpImage {
    std::array<uint8_t, 256> page00{};
    std::array<uint8_t, 128> page03{};
};

// SFP+ 10GBASE-SR, 850 nm, LC, 10.3 GBd, 300 m on OM3; digital diagnostics internally
// calibrated, alarm and warning flags implemented.
SfpImage sfp_10gbase_sr(const Conditions& conditions = {});
// The same module externally calibrated (SFF-8472's external calibration): A/D words and thresholds stored raw,
// with slopes, offsets and Rx_PWR coefficients that map them back to the same readings, to
// the calibration's resolution (bias in 4 uA steps).
SfpImage sfp_10gbase_sr_external_calibration(const Conditions& conditions = {});
// QSFP28 100GBASE-SR4, 850 nm, MPO, paged memory with page 03h's thresholds.
QsfpImage qsfp28_100gbase_sr4(const Conditions& conditions = {});

// Recomputes the check codes after an edit: CC_BASE and CC_EXT of A0h, CC_DMI of A2h (when
// the span holds it); CC_BASE and CC_EXT of SFF-8636 page 00h.
void fix_sff8472_checksums(std::span<uint8_t> a0, std::span<uint8_t> a2);
void fix_sff8636_checksums(std::span<uint8_t> page00);

}  // namespace optical::images
