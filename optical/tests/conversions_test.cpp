// The DDM conversions of each standard: SFF-8472's and SFF-8636's units (temperature 1/256 C
// signed, VCC 100 uV, bias 2 uA, power 0.1 uW, mW to dBm) and SFF-8472's external calibration.
#include <gtest/gtest.h>

#include <cmath>

#include "optical/diagnostics.hpp"
#include "optical/sff8472.hpp"
#include "optical/sff8636.hpp"
#include "optical_images/module_images.hpp"

namespace conversions_test {

using namespace optical;

TEST(DdmUnits, TemperatureIsSigned256thsOfADegree) {
    EXPECT_DOUBLE_EQ((Temperature{0x1900}).celsius(), 25.0);
    EXPECT_DOUBLE_EQ((Temperature{0x7DFF}).celsius(), 125.99609375);  // the highest, as SFF-8472's examples give it
    EXPECT_DOUBLE_EQ((Temperature{static_cast<int16_t>(0xFF00)}).celsius(), -1.0);
    EXPECT_DOUBLE_EQ((Temperature{static_cast<int16_t>(0x8000)}).celsius(), -128.0);
    EXPECT_DOUBLE_EQ((Temperature{static_cast<int16_t>(0xF540)}).celsius(), -10.75);
    EXPECT_DOUBLE_EQ((Temperature{0x1900}).fahrenheit(), 77.0);
}

TEST(DdmUnits, VoltageIs100Microvolts) {
    EXPECT_DOUBLE_EQ((SupplyVoltage{33000}).volts(), 3.3);
    EXPECT_DOUBLE_EQ((SupplyVoltage{0xFFFF}).volts(), 6.5535);
}

TEST(DdmUnits, BiasIs2Microamps) {
    EXPECT_DOUBLE_EQ((BiasCurrent{3200}).milliamps(), 6.4);
    EXPECT_DOUBLE_EQ((BiasCurrent{0xFFFF}).milliamps(), 131.07);
}

TEST(DdmUnits, PowerIsTenthsOfAMicrowattAndDbm) {
    EXPECT_DOUBLE_EQ((OpticalPower{10000}).milliwatts(), 1.0);
    EXPECT_DOUBLE_EQ((OpticalPower{10000}).dbm(), 0.0);
    EXPECT_DOUBLE_EQ((OpticalPower{1}).dbm(), -40.0);  // 0.1 uW
    EXPECT_NEAR((OpticalPower{0xFFFF}).dbm(), 8.1648, 1e-4);
    EXPECT_NEAR(milliwatts_to_dbm(0.5), -3.0103, 1e-4);
    EXPECT_TRUE(std::isinf((OpticalPower{0}).dbm()) && (OpticalPower{0}).dbm() < 0);
}

TEST(Sff8472Calibration, LinearSlopeAndOffset) {
    EXPECT_EQ(calibrate(LinearCalibration{1.5, -10}, uint16_t{100}), 140);
    EXPECT_EQ(calibrate(LinearCalibration{0.5, 0}, uint16_t{3}), 1);  // truncated toward zero
    EXPECT_EQ(calibrate(LinearCalibration{2.0, 0}, int16_t{-100}), -200);
    EXPECT_EQ(calibrate(LinearCalibration{1.0, 256}, int16_t{8704}), 35 * 256);
    EXPECT_EQ(calibrate(LinearCalibration{255.99609375, 0}, uint16_t{1000}), 0xFFFF);  // held to the range
    EXPECT_EQ(calibrate(LinearCalibration{1.0, -1000}, uint16_t{500}), 0);
    EXPECT_EQ(calibrate(LinearCalibration{2.0, 0}, int16_t{20000}), 32767);
}

TEST(Sff8472Calibration, RxPowerIsAFourthOrderPolynomial) {
    RxPowerCalibration cal;
    cal.coefficient[0] = 1.0f, cal.coefficient[1] = 2.0f, cal.coefficient[2] = 0.5f;
    EXPECT_EQ(calibrate(cal, uint16_t{10}), 1 + 20 + 50);
    cal.coefficient[3] = 0x1p-10f, cal.coefficient[4] = 0x1p-13f;  // + 0.9765625 + 1.220703125
    EXPECT_EQ(calibrate(cal, uint16_t{10}), 1 + 20 + 50 + 2);
    EXPECT_EQ(calibrate(RxPowerCalibration{}, uint16_t{4500}), 4500);  // the identity
    cal.coefficient[0] = -100.0f;
    EXPECT_EQ(calibrate(cal, uint16_t{0}), 0);  // held to 0
}

TEST(Sff8472Calibration, DecodedReadingsAreCalibrated) {
    // The same module at -10.75 C, internally and externally calibrated, reads the same.
    const images::Conditions cold{.temperature_c = -10.75, .vcc_v = 3.21, .rx_power_mw = 0.1234};
    const images::SfpImage internal = images::sfp_10gbase_sr(cold);
    const images::SfpImage external = images::sfp_10gbase_sr_external_calibration(cold);
    const auto a = decode_sff8472(internal.a0, internal.a2), b = decode_sff8472(external.a0, external.a2);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->diagnostics->temperature.value->raw, static_cast<int16_t>(0xF540));
    EXPECT_EQ(b->diagnostics->temperature.value->raw, static_cast<int16_t>(0xF540));
    EXPECT_EQ(b->diagnostics->vcc.value->raw, 32100);
    EXPECT_EQ(b->diagnostics->rx_power.value->raw, 1234);
    EXPECT_EQ(b->diagnostics->temperature.flags->low_alarm, true);
    EXPECT_EQ(a->diagnostics->tx_power.value->raw, b->diagnostics->tx_power.value->raw);
}

TEST(Sff8636Units, LowerPageWordsAreBigEndian) {
    images::QsfpImage image = images::qsfp28_100gbase_sr4();
    image.page00[22] = 0xF5, image.page00[23] = 0x40;  // Temperature: -10.75 C
    image.page00[26] = 0x80, image.page00[27] = 0xE8;  // Supply Voltage: 33000
    image.page00[36] = 0x01, image.page00[37] = 0x02;  // Rx2 Power: 258
    image.page00[48] = 0xFF, image.page00[49] = 0xFF;  // Tx4 Bias: 131.07 mA
    const auto module = decode_sff8636(image.page00, image.page03);
    ASSERT_TRUE(module.ok()) << module.error().message();
    const Sff8636Diagnostics& d = *module->diagnostics;
    EXPECT_DOUBLE_EQ(d.temperature.value->celsius(), -10.75);
    EXPECT_DOUBLE_EQ(d.vcc.value->volts(), 3.3);
    EXPECT_DOUBLE_EQ(d.lanes[1].rx_power.value->milliwatts(), 0.0258);
    EXPECT_DOUBLE_EQ(d.lanes[3].tx_bias.value->milliamps(), 131.07);
}

}  // namespace conversions_test
