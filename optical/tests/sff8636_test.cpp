// SFF-8636 decoded and printed: the QSFP28 100GBASE-SR4 image of optical_images, its whole
// text compared with what ethtool -m prints for the same bytes, per lane.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "module_text.hpp"
#include "optical/ethtool_text.hpp"
#include "optical/sff8636.hpp"
#include "optical_images/module_images.hpp"

namespace sff8636_test {

using namespace optical;
using namespace optical_test;

// ethtool -m's text for images::qsfp28_100gbase_sr4() at 35 C, written from ethtool 6.x's
// formats: qsfp.c (sff8636_show_page_zero and sff8636_show_dom: the fields, their order, the
// extended identifier's three description lines, "Laser wavelength" "%.04f" + "nm", lane lines
// "(Channel N)", lane flags "(Chan N)" each flag lanes 1-4, then the module flags),
// module-common.c (lane status "None") and sff-common.h (units, thresholds). Two values are
// ethtool's reading, not SFF-8636's: BR Nominal 25500Mbps (byte 140 is FFh, the rate is in
// byte 222: 25750 Mbps) and the wavelength tolerance in 0.05 nm (the document's unit is
// 0.005 nm); the decoded module keeps the document's.
const std::string kQsfp28Sr4Text =
        "\tIdentifier                                : 0x11 (QSFP28)\n"
        "\tExtended identifier                       : 0x8c\n"
        "\tExtended identifier description           : 2.5W max. Power consumption\n"
        "\tExtended identifier description           : CDR present in TX, CDR present in RX\n"
        "\tExtended identifier description           :  High Power Class (> 3.5 W) not enabled\n"
        "\tPower set                                 : Off\n"
        "\tPower override                            : Off\n"
        "\tConnector                                 : 0x0c (MPO Parallel Optic)\n"
        "\tTransceiver codes                         : 0x80 0x00 0x00 0x00 0x00 0x00 0x00 0x00\n"
        "\tTransceiver type                          : 100G Ethernet: 100G Base-SR4 or 25GBase-SR\n"
        "\tEncoding                                  : 0x05 (64B/66B)\n"
        "\tBR Nominal                                : 25500Mbps\n"
        "\tRate identifier                           : 0x00\n"
        "\tLength (SMF)                              : 0km\n"
        "\tLength (OM3)                              : 70m\n"
        "\tLength (OM2)                              : 0m\n"
        "\tLength (OM1)                              : 0m\n"
        "\tLength (Copper or Active cable)           : 50m\n"
        "\tTransmitter technology                    : 0x00 (850 nm VCSEL)\n"
        "\tLaser wavelength                          : 850.0000nm\n"
        "\tLaser wavelength tolerance                : 10.0000nm\n"
        "\tVendor name                               : PDT OPTICS\n"
        "\tVendor OUI                                : 00:17:6a\n"
        "\tVendor PN                                 : PDT-QSFP28-SR4\n"
        "\tVendor rev                                : A0\n"
        "\tVendor SN                                 : PDT26120700003\n"
        "\tDate code                                 : 261207\n"
        "\tRevision Compliance                       : SFF-8636 Rev 2.5/2.6/2.7\n"
        "\tRx loss of signal                         : None\n"
        "\tTx loss of signal                         : None\n"
        "\tRx loss of lock                           : None\n"
        "\tTx loss of lock                           : None\n"
        "\tTx fault                                  : None\n"
        "\tModule temperature                        : 35.00 degrees C / 95.00 degrees F\n"
        "\tModule voltage                            : 3.3000 V\n"
        "\tAlarm/warning flags implemented           : Yes\n"
        "\tLaser tx bias current (Channel 1)         : 6.400 mA\n"
        "\tLaser tx bias current (Channel 2)         : 6.500 mA\n"
        "\tLaser tx bias current (Channel 3)         : 6.600 mA\n"
        "\tLaser tx bias current (Channel 4)         : 6.700 mA\n"
        "\tTransmit avg optical power (Channel 1)    : 0.5600 mW / -2.52 dBm\n"
        "\tTransmit avg optical power (Channel 2)    : 0.5500 mW / -2.60 dBm\n"
        "\tTransmit avg optical power (Channel 3)    : 0.5400 mW / -2.68 dBm\n"
        "\tTransmit avg optical power (Channel 4)    : 0.5300 mW / -2.76 dBm\n"
        "\tRcvr signal avg optical power (Channel 1) : 0.4500 mW / -3.47 dBm\n"
        "\tRcvr signal avg optical power (Channel 2) : 0.4300 mW / -3.67 dBm\n"
        "\tRcvr signal avg optical power (Channel 3) : 0.4100 mW / -3.87 dBm\n"
        "\tRcvr signal avg optical power (Channel 4) : 0.3900 mW / -4.09 dBm\n"
        "\tLaser bias current high alarm (Chan 1)    : Off\n"
        "\tLaser bias current high alarm (Chan 2)    : Off\n"
        "\tLaser bias current high alarm (Chan 3)    : Off\n"
        "\tLaser bias current high alarm (Chan 4)    : Off\n"
        "\tLaser bias current low alarm (Chan 1)     : Off\n"
        "\tLaser bias current low alarm (Chan 2)     : Off\n"
        "\tLaser bias current low alarm (Chan 3)     : Off\n"
        "\tLaser bias current low alarm (Chan 4)     : Off\n"
        "\tLaser bias current high warning (Chan 1)  : Off\n"
        "\tLaser bias current high warning (Chan 2)  : Off\n"
        "\tLaser bias current high warning (Chan 3)  : Off\n"
        "\tLaser bias current high warning (Chan 4)  : Off\n"
        "\tLaser bias current low warning (Chan 1)   : Off\n"
        "\tLaser bias current low warning (Chan 2)   : Off\n"
        "\tLaser bias current low warning (Chan 3)   : Off\n"
        "\tLaser bias current low warning (Chan 4)   : Off\n"
        "\tLaser tx power high alarm (Chan 1)        : Off\n"
        "\tLaser tx power high alarm (Chan 2)        : Off\n"
        "\tLaser tx power high alarm (Chan 3)        : Off\n"
        "\tLaser tx power high alarm (Chan 4)        : Off\n"
        "\tLaser tx power low alarm (Chan 1)         : Off\n"
        "\tLaser tx power low alarm (Chan 2)         : Off\n"
        "\tLaser tx power low alarm (Chan 3)         : Off\n"
        "\tLaser tx power low alarm (Chan 4)         : Off\n"
        "\tLaser tx power high warning (Chan 1)      : Off\n"
        "\tLaser tx power high warning (Chan 2)      : Off\n"
        "\tLaser tx power high warning (Chan 3)      : Off\n"
        "\tLaser tx power high warning (Chan 4)      : Off\n"
        "\tLaser tx power low warning (Chan 1)       : Off\n"
        "\tLaser tx power low warning (Chan 2)       : Off\n"
        "\tLaser tx power low warning (Chan 3)       : Off\n"
        "\tLaser tx power low warning (Chan 4)       : Off\n"
        "\tLaser rx power high alarm (Chan 1)        : Off\n"
        "\tLaser rx power high alarm (Chan 2)        : Off\n"
        "\tLaser rx power high alarm (Chan 3)        : Off\n"
        "\tLaser rx power high alarm (Chan 4)        : Off\n"
        "\tLaser rx power low alarm (Chan 1)         : Off\n"
        "\tLaser rx power low alarm (Chan 2)         : Off\n"
        "\tLaser rx power low alarm (Chan 3)         : Off\n"
        "\tLaser rx power low alarm (Chan 4)         : Off\n"
        "\tLaser rx power high warning (Chan 1)      : Off\n"
        "\tLaser rx power high warning (Chan 2)      : Off\n"
        "\tLaser rx power high warning (Chan 3)      : Off\n"
        "\tLaser rx power high warning (Chan 4)      : Off\n"
        "\tLaser rx power low warning (Chan 1)       : Off\n"
        "\tLaser rx power low warning (Chan 2)       : Off\n"
        "\tLaser rx power low warning (Chan 3)       : Off\n"
        "\tLaser rx power low warning (Chan 4)       : Off\n"
        + kModuleFlagsOff +
        "\tLaser bias current high alarm threshold   : 13.000 mA\n"
        "\tLaser bias current low alarm threshold    : 3.000 mA\n"
        "\tLaser bias current high warning threshold : 12.000 mA\n"
        "\tLaser bias current low warning threshold  : 4.000 mA\n"
        "\tLaser output power high alarm threshold   : 3.1623 mW / 5.00 dBm\n"
        "\tLaser output power low alarm threshold    : 0.1413 mW / -8.50 dBm\n"
        "\tLaser output power high warning threshold : 1.5849 mW / 2.00 dBm\n"
        "\tLaser output power low warning threshold  : 0.2818 mW / -5.50 dBm\n"
        + kModuleThresholds +
        "\tLaser rx power high alarm threshold       : 3.1623 mW / 5.00 dBm\n"
        "\tLaser rx power low alarm threshold        : 0.0447 mW / -13.50 dBm\n"
        "\tLaser rx power high warning threshold     : 1.5849 mW / 2.00 dBm\n"
        "\tLaser rx power low warning threshold      : 0.0891 mW / -10.50 dBm\n"
    ;

TEST(Sff8636, Qsfp28ModulePrintsAsEthtool) {
    EXPECT_EQ(text_of(images::qsfp28_100gbase_sr4()), kQsfp28Sr4Text);
}

TEST(Sff8636, DecodesTheSerialIdFields) {
    const auto module = decoded(images::qsfp28_100gbase_sr4());
    ASSERT_TRUE(module.ok()) << module.error().message();
    EXPECT_EQ(module->identifier, 0x11);
    EXPECT_EQ(module->connector, 0x0C);
    EXPECT_EQ(module->br_nominal_mbps(), 25750u);  // byte 140 FFh: byte 222 x 250 Mbps
    EXPECT_EQ(module->wavelength, 17000);          // 0.05 nm: 850 nm
    EXPECT_EQ(module->vendor.part_number, "PDT-QSFP28-SR4");
    EXPECT_EQ(module->vendor.revision, "A0");
    ASSERT_EQ(module->transceiver.descriptions.size(), 1u);
    EXPECT_EQ(module->transceiver.descriptions[0], "100G Ethernet: 100G Base-SR4 or 25GBase-SR");
}

TEST(Sff8636, LaneDiagnosticsInTheDocumentsUnits) {
    const auto module = decoded(images::qsfp28_100gbase_sr4());
    ASSERT_TRUE(module.ok());
    const Sff8636Diagnostics& d = *module->diagnostics;
    expect_module_monitors(d);
    const uint16_t bias[] = {3200, 3250, 3300, 3350}, tx[] = {5600, 5500, 5400, 5300}, rx[] = {4500, 4300, 4100, 3900};
    for (unsigned lane = 0; lane < kSff8636Lanes; ++lane) {
        EXPECT_EQ(d.lanes[lane].tx_bias.value->raw, bias[lane]) << lane;
        EXPECT_EQ(d.lanes[lane].tx_power.value->raw, tx[lane]) << lane;
        EXPECT_EQ(d.lanes[lane].rx_power.value->raw, rx[lane]) << lane;
    }
    EXPECT_EQ(d.tx_bias_thresholds->high_alarm.raw, 6500);
    EXPECT_EQ(d.rx_power_thresholds->low_alarm.raw, 447);
}

TEST(Sff8636, LaneFlagsFollowTheLight) {
    // 0.05 mW on lane 1 is under the low warning (0.0891 mW); lanes 2-4 are under the low
    // alarm (0.0447 mW), lane 4 dark.
    expect_lines(text_of(images::qsfp28_100gbase_sr4({.rx_power_mw = 0.05})),
                 {"\tLaser rx power low warning (Chan 1)       : On",
                  "\tLaser rx power low alarm (Chan 1)         : Off",
                  "\tLaser rx power low alarm (Chan 2)         : On",
                  "\tRcvr signal avg optical power (Channel 4) : 0.0000 mW / -inf dBm",
                  "\tLaser bias current low alarm (Chan 2)     : Off"});
}

TEST(Sff8636, ModuleFlagsFollowTheTemperature) {
    expect_lines(text_of(images::qsfp28_100gbase_sr4({.temperature_c = 76.0})),
                 {"\tModule temperature                        : 76.00 degrees C / 168.80 degrees F",
                  "\tModule temperature high alarm             : On",
                  "\tModule temperature high warning           : On",
                  "\tLaser tx bias current (Channel 1)         : 8.040 mA"});
}

TEST(Sff8636, TxPowerNotMeasuredIsNotSupportedNotZero) {
    images::QsfpImage image = images::qsfp28_100gbase_sr4();
    image.page00[220] &= ~0x04;  // Diagnostic Monitoring Type: transmitter power not measured
    images::fix_sff8636_checksums(image.page00);
    const std::string text = text_of(image);
    expect_lines(text, {"\tTransmit avg optical power (Channel 3)    : Not supported",
                        "\tLaser tx power high alarm (Chan 1)        : Not supported",
                        "\tLaser output power high alarm threshold   : Not supported"});
    EXPECT_EQ(text.find("0.0000 mW"), std::string::npos) << text;
}

TEST(Sff8636, WithoutPage03NoThresholdsOrFlags) {
    const images::QsfpImage image = images::qsfp28_100gbase_sr4();
    images::QsfpImage flat = image;
    flat.page00[2] |= 0x04;  // Flat_mem: upper page 00h only, page 03h ignored even when given
    for (const std::string& text : {sff8636_text(image.page00, {}), sff8636_text(flat.page00, flat.page03)}) {
        EXPECT_EQ(line_of(text, "Alarm/warning flags implemented"), "\tAlarm/warning flags implemented           : No");
        EXPECT_EQ(text.find("threshold"), std::string::npos) << text;
        EXPECT_TRUE(text.ends_with("\tRcvr signal avg optical power (Channel 4) : 0.3900 mW / -4.09 dBm\n")) << text;
    }
}

TEST(Sff8636, TemperatureOfZeroMeansNoMonitors) {
    images::QsfpImage image = images::qsfp28_100gbase_sr4();
    image.page00[22] = image.page00[23] = 0;
    const auto module = decoded(image);
    ASSERT_TRUE(module.ok());
    EXPECT_FALSE(module->diagnostics.has_value());
    EXPECT_TRUE(ethtool_text(*module).ends_with("\tModule temperature                        : Not supported\n"
                                                "\tModule voltage                            : Not supported\n"));
}

TEST(Sff8636, ComplianceInEthtoolsOrderTheLastPrinted) {
    images::QsfpImage image = images::qsfp28_100gbase_sr4();
    image.page00[131] |= 0x04;  // 40G Base-SR4 besides the extended code
    image.page00[134] = 0x01;   // 1000BASE-SX
    images::fix_sff8636_checksums(image.page00);
    const auto module = decoded(image);
    ASSERT_TRUE(module.ok());
    EXPECT_EQ(module->transceiver.descriptions,
              (std::vector<std::string>{"40G Ethernet: 40G Base-SR4", "100G Ethernet: 100G Base-SR4 or 25GBase-SR",
                                        "Ethernet: 1000BASE-SX"}));
    EXPECT_EQ(line_of(ethtool_text(*module), "Transceiver type"),
              "\tTransceiver type                          : Ethernet: 1000BASE-SX");
    // No code set: ethtool prints the line with nothing after it.
    image.page00[131] = image.page00[134] = 0;
    images::fix_sff8636_checksums(image.page00);
    EXPECT_EQ(line_of(text_of(image), "Transceiver type"), "\tTransceiver type                          : ");
}

}  // namespace sff8636_test
