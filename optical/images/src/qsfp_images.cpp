// The SFF-8636 image of a QSFP28 100GBASE-SR4 module.
#include <algorithm>

#include "image_bytes.hpp"
#include "optical_images/module_images.hpp"

namespace optical::images {

namespace {

using bytes::Limits;

// SFF-8636 lower page, upper page 00h and upper page 03h: the addresses this image writes.
constexpr size_t kRevisionCompliance = 1, kTempFlags = 6, kVccFlags = 7, kRxPowerFlags = 9, kTxBiasFlags = 11;
constexpr size_t kTxPowerFlags = 13, kTemperature = 22, kSupplyVoltage = 26, kRx1Power = 34, kTx1Bias = 42;
constexpr size_t kTx1Power = 50;
constexpr size_t kVendorName = 148, kVendorOui = 165, kVendorPn = 168, kVendorRev = 184, kWavelength = 186;
constexpr size_t kWavelengthTolerance = 188, kCcBase = 191, kOptions = 192, kVendorSn = 196, kDateCode = 212;
constexpr size_t kDiagnosticType = 220, kBrNominalExtended = 222, kCcExt = 223;
// Page 03h thresholds, as offsets into its 128 bytes (addresses 128, 144, 176, 184, 192).
constexpr size_t kTempThresholds = 0, kVccThresholds = 16, kRxPowerThresholds = 48, kTxBiasThresholds = 56;
constexpr size_t kTxPowerThresholds = 64;

constexpr Limits kQsfpTemperatureLimits{75.0, -5.0, 70.0, 0.0};
constexpr Limits kQsfpVccLimits{3.63, 2.97, 3.465, 3.135};
constexpr Limits kQsfpRxPowerLimits{3.1623, 0.0447, 1.5849, 0.0891};
constexpr Limits kQsfpBiasLimits{13.0, 3.0, 12.0, 4.0};
constexpr Limits kQsfpTxPowerLimits{3.1623, 0.1413, 1.5849, 0.2818};

void put_qsfp_limits(std::span<uint8_t> page03, size_t at, const Limits& l, uint16_t (*word)(double)) {
    const double limits[] = {l.high_alarm, l.low_alarm, l.high_warning, l.low_warning};
    for (size_t k = 0; k < 4; ++k)
        bytes::put16(page03, at + 2 * k, word(limits[k]));
}

void put_qsfp_serial_id(std::span<uint8_t> p) {
    p[0] = 0x11;                    // QSFP28
    p[kRevisionCompliance] = 0x07;  // SFF-8636 Rev 2.5-2.7
    const uint8_t head[] = {0x11, 0x8C, 0x0C,                 // QSFP28; power class 3, CDR in TX and RX; MPO
                            0x80, 0, 0, 0, 0, 0, 0, 0,        // extended compliance (byte 192)
                            0x05, 0xFF, 0x00,                 // 64B/66B, BR see byte 222, rate select
                            0, 35, 0, 0, 50, 0x00};           // SMF 0, OM3 70 m, OM2, OM1 0, OM4 100 m; 850 nm VCSEL
    std::copy(std::begin(head), std::end(head), p.begin() + 128);
    bytes::put_ascii(p, kVendorName, 16, "PDT OPTICS");
    p[kVendorOui] = 0x00, p[kVendorOui + 1] = 0x17, p[kVendorOui + 2] = 0x6A;
    bytes::put_ascii(p, kVendorPn, 16, "PDT-QSFP28-SR4");
    bytes::put_ascii(p, kVendorRev, 2, "A0");
    bytes::put16(p, kWavelength, 850 * 20);      // units of 0.05 nm
    bytes::put16(p, kWavelengthTolerance, 200);  // as the module's vendor writes it
    // Options: 100GBASE-SR4 (SFF-8024 02h); Tx and Rx CDR LOL; TX_DISABLE, TX_FAULT, squelch, TX LOS.
    const uint8_t options[] = {0x02, 0x00, 0x30, 0x1E};
    std::copy(std::begin(options), std::end(options), p.begin() + kOptions);
    bytes::put_ascii(p, kVendorSn, 16, "PDT26120700003");
    bytes::put_ascii(p, kDateCode, 8, "261207");
    p[kDiagnosticType] = 0x0C;     // average RX power, TX power measured
    p[kBrNominalExtended] = 103;   // 25.75 Gbps a lane, in 250 Mbps
}

}  // namespace

QsfpImage qsfp28_100gbase_sr4(const Conditions& c) {
    QsfpImage image;
    std::span<uint8_t> p = image.page00;
    put_qsfp_serial_id(p);
    bytes::put16(p, kTemperature, bytes::temperature_word(c.temperature_c));
    bytes::put16(p, kSupplyVoltage, bytes::vcc_word(c.vcc_v));
    p[kTempFlags] = static_cast<uint8_t>(bytes::flag_bits(c.temperature_c, kQsfpTemperatureLimits) << 4);
    p[kVccFlags] = static_cast<uint8_t>(bytes::flag_bits(c.vcc_v, kQsfpVccLimits) << 4);
    for (unsigned lane = 0; lane < 4; ++lane) {
        bytes::put16(p, kRx1Power + 2 * lane, bytes::power_word(rx_power_mw(c, lane)));
        bytes::put16(p, kTx1Bias + 2 * lane, bytes::bias_word(tx_bias_ma(c, lane)));
        bytes::put16(p, kTx1Power + 2 * lane, bytes::power_word(tx_power_mw(c, lane)));
        // Lanes 1 and 3 in the high nibble of their byte, 2 and 4 in the low.
        const unsigned shift = lane % 2 == 0 ? 4 : 0;
        p[kRxPowerFlags + lane / 2] |= static_cast<uint8_t>(bytes::flag_bits(rx_power_mw(c, lane), kQsfpRxPowerLimits) << shift);
        p[kTxBiasFlags + lane / 2] |= static_cast<uint8_t>(bytes::flag_bits(tx_bias_ma(c, lane), kQsfpBiasLimits) << shift);
        p[kTxPowerFlags + lane / 2] |= static_cast<uint8_t>(bytes::flag_bits(tx_power_mw(c, lane), kQsfpTxPowerLimits) << shift);
    }
    put_qsfp_limits(image.page03, kTempThresholds, kQsfpTemperatureLimits, bytes::temperature_word);
    put_qsfp_limits(image.page03, kVccThresholds, kQsfpVccLimits, bytes::vcc_word);
    put_qsfp_limits(image.page03, kRxPowerThresholds, kQsfpRxPowerLimits, bytes::power_word);
    put_qsfp_limits(image.page03, kTxBiasThresholds, kQsfpBiasLimits, bytes::bias_word);
    put_qsfp_limits(image.page03, kTxPowerThresholds, kQsfpTxPowerLimits, bytes::power_word);
    fix_sff8636_checksums(image.page00);
    return image;
}

void fix_sff8636_checksums(std::span<uint8_t> page00) {
    if (page00.size() <= kCcExt)
        return;
    bytes::put_check_code(page00, 128, kCcBase - 1, kCcBase);
    bytes::put_check_code(page00, kOptions, kCcExt - 1, kCcExt);
}

}  // namespace optical::images
