// SFF-8472 images of an SFP+ 10GBASE-SR module, internally and externally calibrated.
#include <algorithm>

#include "image_bytes.hpp"
#include "optical_images/module_images.hpp"

namespace optical::images {

namespace {

using bytes::Limits;

// SFF-8472 A0h (table 4-1) and A2h (the diagnostics): the addresses this image writes.
constexpr size_t kA0VendorName = 20, kA0VendorOui = 37, kA0VendorPn = 40, kA0VendorRev = 56;
constexpr size_t kA0Wavelength = 60, kA0CcBase = 63, kA0Options = 64, kA0VendorSn = 68, kA0DateCode = 84;
constexpr size_t kA0DiagnosticType = 92, kA0EnhancedOptions = 93, kA0Compliance = 94, kA0CcExt = 95;
constexpr size_t kA2Thresholds = 0, kA2RxPwr4 = 56, kA2TxISlope = 76, kA2CcDmi = 95, kA2Readings = 96;
constexpr size_t kA2AlarmFlags = 112, kA2WarningFlags = 116;

// The limits of the five monitors, in their physical units: C, V, mA, mW, mW.
constexpr Limits kSfpTemperatureLimits{75.0, -5.0, 70.0, 0.0};
constexpr Limits kSfpVccLimits{3.63, 2.97, 3.465, 3.135};
constexpr Limits kSfpBiasLimits{11.0, 2.0, 10.0, 3.0};
constexpr Limits kSfpTxPowerLimits{1.0, 0.1, 0.7943, 0.1259};
constexpr Limits kSfpRxPowerLimits{1.2589, 0.01, 1.0, 0.02};

// A monitor's reading and limits, and how the module stores them: internally calibrated, the
// document's units; externally calibrated, the A/D word that calibrates back to the value.
struct SfpMonitor {
    double value;
    Limits limits;
    uint16_t (*word)(double);
};

void put_serial_id(std::span<uint8_t> a0, uint8_t diagnostic_type, const char* serial) {
    const uint8_t head[] = {0x03, 0x04, 0x07,                          // SFP, 2-wire ID, LC
                            0x10, 0, 0, 0, 0, 0, 0, 0,                 // 10GBASE-SR
                            0x06, 103, 0x00,                           // 64B/66B, 10.3 GBd, rate unspecified
                            0, 0, 8, 3, 0, 30};                        // SMF 0, OM2 80 m, OM1 30 m, OM3 300 m
    std::copy(std::begin(head), std::end(head), a0.begin());
    bytes::put_ascii(a0, kA0VendorName, 16, "PDT OPTICS");
    a0[kA0VendorOui] = 0x00, a0[kA0VendorOui + 1] = 0x17, a0[kA0VendorOui + 2] = 0x6A;
    bytes::put_ascii(a0, kA0VendorPn, 16, "PDT-SFP-10G-SR");
    bytes::put_ascii(a0, kA0VendorRev, 4, "A");
    bytes::put16(a0, kA0Wavelength, 850);
    a0[kA0Options] = 0x00, a0[kA0Options + 1] = 0x1A;  // RX_LOS, TX_FAULT, TX_DISABLE implemented
    bytes::put_ascii(a0, kA0VendorSn, 16, serial);
    bytes::put_ascii(a0, kA0DateCode, 8, "261207");
    a0[kA0DiagnosticType] = diagnostic_type;
    a0[kA0EnhancedOptions] = 0xF0;  // alarm/warning flags, soft TX_DISABLE, TX_FAULT, RX_LOS
    a0[kA0Compliance] = 0x08;       // SFF-8472 Rev 12.3
}

// Thresholds (A2h 0-39), readings (96-105) and flags (112-113, 116-117) of the five monitors.
void put_diagnostics(std::span<uint8_t> a2, const SfpMonitor (&monitors)[5]) {
    // The flag bit pairs: temperature 7-6, Vcc 5-4, bias 3-2, TX power 1-0 (byte 112/116),
    // RX power 7-6 of byte 113/117.
    static constexpr struct {
        size_t byte;
        unsigned shift;
    } kFlagBits[] = {{0, 6}, {0, 4}, {0, 2}, {0, 0}, {1, 6}};
    for (size_t i = 0; i < 5; ++i) {
        const SfpMonitor& m = monitors[i];
        const double limits[] = {m.limits.high_alarm, m.limits.low_alarm, m.limits.high_warning, m.limits.low_warning};
        for (size_t k = 0; k < 4; ++k)
            bytes::put16(a2, kA2Thresholds + 8 * i + 2 * k, m.word(limits[k]));
        bytes::put16(a2, kA2Readings + 2 * i, m.word(m.value));
        const unsigned flags = bytes::flag_bits(m.value, m.limits);
        a2[kA2AlarmFlags + kFlagBits[i].byte] |= static_cast<uint8_t>((flags >> 2) << kFlagBits[i].shift);
        a2[kA2WarningFlags + kFlagBits[i].byte] |= static_cast<uint8_t>((flags & 3) << kFlagBits[i].shift);
    }
}

// External calibration (SFF-8472's diagnostics section) of this module: temperature offset +1 C, Vcc offset
// -0.1 V, bias slope 2, TX power slope 1/2 and offset +10 uW, RX power 0.5 uW + reading / 2.
// Each function is the inverse: the A/D word that calibrates to the reading given.
uint16_t external_temperature(double celsius) {
    return static_cast<uint16_t>(static_cast<int16_t>(bytes::temperature_word(celsius) - 256));
}
uint16_t external_vcc(double volts) { return static_cast<uint16_t>(std::min(bytes::vcc_word(volts) + 1000, 0xFFFF)); }
uint16_t external_bias(double milliamps) { return static_cast<uint16_t>(bytes::bias_word(milliamps) / 2); }
uint16_t external_tx_power(double milliwatts) {
    return static_cast<uint16_t>(std::clamp(2 * (bytes::power_word(milliwatts) - 100), 0, 0xFFFF));
}
uint16_t external_rx_power(double milliwatts) {
    return static_cast<uint16_t>(std::clamp(2 * (bytes::power_word(milliwatts) - 5), 0, 0xFFFF));
}

void put_external_constants(std::span<uint8_t> a2) {
    const float rx_pwr[] = {0.0f, 0.0f, 0.0f, 0.5f, 5.0f};  // Rx_PWR(4) .. Rx_PWR(0)
    for (size_t i = 0; i < 5; ++i)
        bytes::put_float(a2, kA2RxPwr4 + 4 * i, rx_pwr[i]);
    // Slope (unsigned 8.8) and offset (signed) of Tx_I, Tx_PWR, T, V.
    const uint8_t linear[] = {0x02, 0x00, 0x00, 0x00,   // Tx_I: 2, 0
                              0x00, 0x80, 0x00, 0x64,   // Tx_PWR: 0.5, +100
                              0x01, 0x00, 0x01, 0x00,   // T: 1, +256
                              0x01, 0x00, 0xFC, 0x18};  // V: 1, -1000
    std::copy(std::begin(linear), std::end(linear), a2.begin() + kA2TxISlope);
}

SfpImage sfp_image(const Conditions& c, bool external) {
    SfpImage image;
    // DDM implemented (bit 6), internally (bit 5) or externally (bit 4) calibrated, average RX power (bit 3).
    put_serial_id(image.a0, external ? 0x58 : 0x68, external ? "PDT26120700002" : "PDT26120700001");
    const SfpMonitor monitors[] = {
        {c.temperature_c, kSfpTemperatureLimits, external ? external_temperature : bytes::temperature_word},
        {c.vcc_v, kSfpVccLimits, external ? external_vcc : bytes::vcc_word},
        {tx_bias_ma(c, 0), kSfpBiasLimits, external ? external_bias : bytes::bias_word},
        {tx_power_mw(c, 0), kSfpTxPowerLimits, external ? external_tx_power : bytes::power_word},
        {rx_power_mw(c, 0), kSfpRxPowerLimits, external ? external_rx_power : bytes::power_word},
    };
    put_diagnostics(image.a2, monitors);
    if (external)
        put_external_constants(image.a2);
    fix_sff8472_checksums(image.a0, image.a2);
    return image;
}

}  // namespace

double tx_bias_ma(const Conditions& c, unsigned lane) {
    return 6.0 + 0.1 * lane + 0.04 * (c.temperature_c - 25.0);
}

double tx_power_mw(const Conditions& c, unsigned lane) {
    return 0.60 - 0.01 * lane - 0.004 * (c.temperature_c - 25.0);
}

double rx_power_mw(const Conditions& c, unsigned lane) {
    return c.rx_power_mw - 0.02 * lane;
}

SfpImage sfp_10gbase_sr(const Conditions& conditions) {
    return sfp_image(conditions, false);
}

SfpImage sfp_10gbase_sr_external_calibration(const Conditions& conditions) {
    return sfp_image(conditions, true);
}

void fix_sff8472_checksums(std::span<uint8_t> a0, std::span<uint8_t> a2) {
    if (a0.size() > kA0CcExt) {
        bytes::put_check_code(a0, 0, kA0CcBase - 1, kA0CcBase);
        bytes::put_check_code(a0, kA0Options, kA0CcExt - 1, kA0CcExt);
    }
    if (a2.size() > kA2CcDmi)
        bytes::put_check_code(a2, 0, kA2CcDmi - 1, kA2CcDmi);
}

}  // namespace optical::images
