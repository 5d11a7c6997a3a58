// SFF-8472 decoded and printed: the SFP+ 10GBASE-SR images of optical_images, internally and
// externally calibrated, whole texts compared with what ethtool -m prints for the same bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "module_text.hpp"
#include "optical/ethtool_text.hpp"
#include "optical/sff8472.hpp"
#include "optical_images/module_images.hpp"

namespace sff8472_test {

using namespace optical;
using namespace optical_test;

// ethtool -m's text for images::sfp_10gbase_sr() at 35 C, written from ethtool 6.x's formats:
// sfpid.c (sff8079_show_all_common: the serial ID fields, their order and names),
// module-common.c ("\t%-41s : %s", "0x%02x (description)", the OUI, ASCII fields trimmed),
// sfpdiag.c (sff8472_show_all: diagnostics, the 20 flags "On"/"Off") and sff-common.h/.c
// (temperature "%.2f degrees C / %.2f degrees F", voltage "%.4f V", bias "%.3f mA", power
// "%.4f mW / %.2f dBm", the 20 thresholds). Options 0x1a sets three bits; ethtool 6.x prints
// the one it tests last, TX_DISABLE (up to 6.9 it printed a line a bit).
const std::string kSfp10gSrText =
        "\tIdentifier                                : 0x03 (SFP)\n"
        "\tExtended identifier                       : 0x04 (GBIC/SFP defined by 2-wire interface ID)\n"
        "\tConnector                                 : 0x07 (LC)\n"
        "\tTransceiver codes                         : 0x10 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00\n"
        "\tTransceiver type                          : 10G Ethernet: 10G Base-SR\n"
        "\tEncoding                                  : 0x06 (64B/66B)\n"
        "\tBR Nominal                                : 10300MBd\n"
        "\tRate identifier                           : 0x00 (unspecified)\n"
        "\tLength (SMF)                              : 0km\n"
        "\tLength (OM2)                              : 80m\n"
        "\tLength (OM1)                              : 30m\n"
        "\tLength (Copper or Active cable)           : 0m\n"
        "\tLength (OM3)                              : 300m\n"
        "\tLaser wavelength                          : 850nm\n"
        "\tVendor name                               : PDT OPTICS\n"
        "\tVendor OUI                                : 00:17:6a\n"
        "\tVendor PN                                 : PDT-SFP-10G-SR\n"
        "\tVendor rev                                : A\n"
        "\tOption values                             : 0x00 0x1a\n"
        "\tOption                                    : TX_DISABLE implemented\n"
        "\tBR margin max                             : 0%\n"
        "\tBR margin min                             : 0%\n"
        "\tVendor SN                                 : PDT26120700001\n"
        "\tDate code                                 : 261207\n"
        "\tOptical diagnostics support               : Yes\n"
        "\tLaser bias current                        : 6.400 mA\n"
        "\tLaser output power                        : 0.5600 mW / -2.52 dBm\n"
        "\tReceiver signal average optical power     : 0.4500 mW / -3.47 dBm\n"
        "\tModule temperature                        : 35.00 degrees C / 95.00 degrees F\n"
        "\tModule voltage                            : 3.3000 V\n"
        "\tAlarm/warning flags implemented           : Yes\n"
        "\tLaser bias current high alarm             : Off\n"
        "\tLaser bias current low alarm              : Off\n"
        "\tLaser bias current high warning           : Off\n"
        "\tLaser bias current low warning            : Off\n"
        "\tLaser output power high alarm             : Off\n"
        "\tLaser output power low alarm              : Off\n"
        "\tLaser output power high warning           : Off\n"
        "\tLaser output power low warning            : Off\n"
        + kModuleFlagsOff +
        "\tLaser rx power high alarm                 : Off\n"
        "\tLaser rx power low alarm                  : Off\n"
        "\tLaser rx power high warning               : Off\n"
        "\tLaser rx power low warning                : Off\n"
        "\tLaser bias current high alarm threshold   : 11.000 mA\n"
        "\tLaser bias current low alarm threshold    : 2.000 mA\n"
        "\tLaser bias current high warning threshold : 10.000 mA\n"
        "\tLaser bias current low warning threshold  : 3.000 mA\n"
        "\tLaser output power high alarm threshold   : 1.0000 mW / 0.00 dBm\n"
        "\tLaser output power low alarm threshold    : 0.1000 mW / -10.00 dBm\n"
        "\tLaser output power high warning threshold : 0.7943 mW / -1.00 dBm\n"
        "\tLaser output power low warning threshold  : 0.1259 mW / -9.00 dBm\n"
        + kModuleThresholds +
        "\tLaser rx power high alarm threshold       : 1.2589 mW / 1.00 dBm\n"
        "\tLaser rx power low alarm threshold        : 0.0100 mW / -20.00 dBm\n"
        "\tLaser rx power high warning threshold     : 1.0000 mW / 0.00 dBm\n"
        "\tLaser rx power low warning threshold      : 0.0200 mW / -16.99 dBm\n"
    ;

std::string with_serial(std::string text, const std::string& serial) {
    const size_t at = text.find("PDT26120700001");
    return text.replace(at, serial.size(), serial);
}

TEST(Sff8472, InternallyCalibratedModulePrintsAsEthtool) {
    EXPECT_EQ(text_of(images::sfp_10gbase_sr()), kSfp10gSrText);
}

TEST(Sff8472, ExternallyCalibratedModulePrintsTheSameReadings) {
    // Other words in A2h, the same module once calibrated: only its serial number differs.
    const images::SfpImage internal = images::sfp_10gbase_sr(), external = images::sfp_10gbase_sr_external_calibration();
    EXPECT_NE(internal.a2, external.a2);
    EXPECT_EQ(text_of(external), with_serial(kSfp10gSrText, "PDT26120700002"));
}

TEST(Sff8472, DecodesTheSerialIdFields) {
    const auto module = decoded(images::sfp_10gbase_sr());
    ASSERT_TRUE(module.ok()) << module.error().message();
    EXPECT_EQ(module->identifier, 0x03);
    EXPECT_EQ(module->connector, 0x07);
    EXPECT_EQ(module->encoding, 0x06);
    EXPECT_EQ(module->br_nominal_mbd(), 10300u);
    EXPECT_EQ(module->wavelength, 850);
    EXPECT_EQ(module->length_om3, 30);
    EXPECT_EQ(module->vendor.name, "PDT OPTICS");
    EXPECT_EQ(module->vendor.part_number, "PDT-SFP-10G-SR");
    EXPECT_EQ(module->vendor.revision, "A");
    EXPECT_EQ(module->vendor.date_code, "261207");
    EXPECT_EQ(module->vendor.oui, (std::array<uint8_t, 3>{0x00, 0x17, 0x6A}));
    ASSERT_EQ(module->transceiver.descriptions.size(), 1u);
    EXPECT_EQ(module->transceiver.descriptions[0], "10G Ethernet: 10G Base-SR");
    ASSERT_TRUE(module->diagnostics.has_value());
    EXPECT_EQ(module->diagnostics->calibration, Calibration::internal);
    EXPECT_EQ(module->diagnostics->rx_power_type, RxPowerType::average);
}

TEST(Sff8472, DiagnosticsInTheDocumentsUnits) {
    const auto module = decoded(images::sfp_10gbase_sr());
    ASSERT_TRUE(module.ok());
    const Sff8472Diagnostics& d = *module->diagnostics;
    expect_module_monitors(d);
    EXPECT_EQ(d.tx_bias.value->raw, 3200);      // 2 uA: 6.4 mA
    EXPECT_EQ(d.tx_power.value->raw, 5600);     // 0.1 uW: 0.56 mW
    EXPECT_EQ(d.rx_power.value->raw, 4500);
    EXPECT_EQ(d.rx_power.thresholds->low_warning.raw, 200);
    EXPECT_FALSE(d.temperature.flags->high_warning);
}

TEST(Sff8472, ExternalCalibrationConstantsAreApplied) {
    const images::SfpImage image = images::sfp_10gbase_sr_external_calibration();
    const auto module = decoded(image);
    ASSERT_TRUE(module.ok()) << module.error().message();
    const Sff8472Diagnostics& d = *module->diagnostics;
    EXPECT_EQ(d.calibration, Calibration::external);
    EXPECT_DOUBLE_EQ(d.tx_i_cal.slope, 2.0);
    EXPECT_DOUBLE_EQ(d.tx_pwr_cal.slope, 0.5);
    EXPECT_EQ(d.tx_pwr_cal.offset, 100);
    EXPECT_EQ(d.t_cal.offset, 256);
    EXPECT_EQ(d.v_cal.offset, -1000);
    EXPECT_FLOAT_EQ(d.rx_power_cal.coefficient[0], 5.0f);
    EXPECT_FLOAT_EQ(d.rx_power_cal.coefficient[1], 0.5f);
    // The A/D words differ from the readings they calibrate to.
    EXPECT_EQ(image.a2[100] << 8 | image.a2[101], 1600);  // TX bias A/D: 3200 / slope 2
    EXPECT_EQ(d.tx_bias.value->raw, 3200);
    EXPECT_EQ(d.rx_power.value->raw, 4500);
}

TEST(Sff8472, DiagnosticsFollowTheTemperature) {
    expect_lines(text_of(images::sfp_10gbase_sr({.temperature_c = 72.0})),
                 {"\tModule temperature                        : 72.00 degrees C / 161.60 degrees F",
                  "\tLaser bias current                        : 7.880 mA",
                  "\tModule temperature high warning           : On",
                  "\tModule temperature high alarm             : Off"});
    expect_lines(text_of(images::sfp_10gbase_sr_external_calibration({.temperature_c = 80.0})),
                 {"\tModule temperature high alarm             : On",
                  "\tModule temperature                        : 80.00 degrees C / 176.00 degrees F"});
    expect_lines(text_of(images::sfp_10gbase_sr({.rx_power_mw = 0.0})),
                 {"\tReceiver signal average optical power     : 0.0000 mW / -inf dBm",
                  "\tLaser rx power low alarm                  : On"});
}

TEST(Sff8472, ModuleWithoutDiagnosticsNeedsNoA2h) {
    images::SfpImage image = images::sfp_10gbase_sr();
    image.a0[92] = 0x00;  // Diagnostic Monitoring Type: none
    images::fix_sff8472_checksums(image.a0, {});
    const auto module = decode_sff8472(image.a0, {});
    ASSERT_TRUE(module.ok()) << module.error().message();
    EXPECT_FALSE(module->diagnostics.has_value());
    const std::string text = ethtool_text(*module);
    EXPECT_TRUE(text.ends_with("\tOptical diagnostics support               : No\n")) << text;
}

TEST(Sff8472, ModuleWithoutAlarmFlagsHasNoThresholds) {
    images::SfpImage image = images::sfp_10gbase_sr();
    image.a0[93] &= 0x7F;  // Enhanced Options: alarm/warning flags not implemented
    images::fix_sff8472_checksums(image.a0, image.a2);
    const auto module = decoded(image);
    ASSERT_TRUE(module.ok());
    EXPECT_FALSE(module->diagnostics->temperature.thresholds.has_value());
    EXPECT_FALSE(module->diagnostics->rx_power.flags.has_value());
    const std::string text = ethtool_text(*module);
    EXPECT_TRUE(text.ends_with("\tAlarm/warning flags implemented           : No\n")) << text;
}

TEST(Sff8472, EveryComplianceCodeDecodedTheLastPrinted) {
    images::SfpImage image = images::sfp_10gbase_sr();
    image.a0[6] = 0x01;   // 1000BASE-SX besides 10GBASE-SR
    image.a0[36] = 0x02;  // extended: 100G Base-SR4 or 25GBase-SR
    images::fix_sff8472_checksums(image.a0, image.a2);
    const auto module = decoded(image);
    ASSERT_TRUE(module.ok());
    EXPECT_EQ(module->transceiver.descriptions,
              (std::vector<std::string>{"10G Ethernet: 10G Base-SR", "Ethernet: 1000BASE-SX",
                                        "Extended: 100G Base-SR4 or 25GBase-SR"}));
    expect_lines(ethtool_text(*module),
                 {"\tTransceiver type                          : Extended: 100G Base-SR4 or 25GBase-SR",
                  "\tTransceiver codes                         : 0x10 0x00 0x00 0x01 0x00 0x00 0x00 0x00 0x02"});
}

TEST(Sff8472, SerialIdPrintedOnlyWhenDefinedByTheTwoWireId) {
    // Extended identifier other than 04h: ethtool prints the identifier and the diagnostics.
    images::SfpImage image = images::sfp_10gbase_sr();
    image.a0[1] = 0x01;
    images::fix_sff8472_checksums(image.a0, image.a2);
    const std::string text = text_of(image);
    EXPECT_TRUE(text.starts_with("\tIdentifier                                : 0x03 (SFP)\n"
                                 "\tOptical diagnostics support               : Yes\n")) << text;
    EXPECT_EQ(line_of(text, "Vendor name"), "");
}

}  // namespace sff8472_test
