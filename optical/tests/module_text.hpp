// The test helpers of both documents' tests: a module image decoded, its whole text and one of
// its lines, and what both images hold alike.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "optical/ethtool_text.hpp"
#include "optical_images/module_images.hpp"

namespace optical_test {

inline pdt::Result<optical::Sff8472Module> decoded(const optical::images::SfpImage& image) {
    return optical::decode_sff8472(image.a0, image.a2);
}

inline pdt::Result<optical::Sff8636Module> decoded(const optical::images::QsfpImage& image) {
    return optical::decode_sff8636(image.page00, image.page03);
}

inline std::string text_of(const optical::images::SfpImage& image) {
    return optical::sff8472_text(image.a0, image.a2);
}

inline std::string text_of(const optical::images::QsfpImage& image) {
    return optical::sff8636_text(image.page00, image.page03);
}

// The line of `text` that names `field`, or empty.
inline std::string line_of(const std::string& text, const std::string& field) {
    const size_t at = text.find("\t" + field + " ");
    if (at == std::string::npos)
        return {};
    return text.substr(at, text.find('\n', at) - at);
}

// Each of `lines` ("\t<field, 41 wide> : <value>") is the line of `text` that names its field.
inline void expect_lines(const std::string& text, std::initializer_list<std::string> lines) {
    for (const std::string& expected : lines) {
        std::string field = expected.substr(1, expected.find(" : ") - 1);
        field.erase(field.find_last_not_of(' ') + 1);
        EXPECT_EQ(line_of(text, field), expected);
    }
}

// The module temperature and voltage flags of ethtool's text, all Off: both documents print
// them alike (ethtool's sff-common.c).
inline const std::string kModuleFlagsOff =
        "\tModule temperature high alarm             : Off\n"
        "\tModule temperature low alarm              : Off\n"
        "\tModule temperature high warning           : Off\n"
        "\tModule temperature low warning            : Off\n"
        "\tModule voltage high alarm                 : Off\n"
        "\tModule voltage low alarm                  : Off\n"
        "\tModule voltage high warning               : Off\n"
        "\tModule voltage low warning                : Off\n";

// The module temperature and voltage thresholds both images hold (alarms at -5 and 75 C,
// warnings at 0 and 70 C; 3.3 V +-10 % and +-5 %), as ethtool prints them.
inline const std::string kModuleThresholds =
        "\tModule temperature high alarm threshold   : 75.00 degrees C / 167.00 degrees F\n"
        "\tModule temperature low alarm threshold    : -5.00 degrees C / 23.00 degrees F\n"
        "\tModule temperature high warning threshold : 70.00 degrees C / 158.00 degrees F\n"
        "\tModule temperature low warning threshold  : 0.00 degrees C / 32.00 degrees F\n"
        "\tModule voltage high alarm threshold       : 3.6300 V\n"
        "\tModule voltage low alarm threshold        : 2.9700 V\n"
        "\tModule voltage high warning threshold     : 3.4650 V\n"
        "\tModule voltage low warning threshold      : 3.1350 V\n";

// The module monitors of both images at their default conditions (35 C, 3.3 V) in the
// documents' units, and the temperature alarm thresholds.
template <typename Diagnostics>
void expect_module_monitors(const Diagnostics& d) {
    EXPECT_EQ(d.temperature.value->raw, 35 * 256);  // 1/256 degree C
    EXPECT_EQ(d.vcc.value->raw, 33000);             // 100 uV
    EXPECT_EQ(d.temperature.thresholds->high_alarm.raw, 75 * 256);
    EXPECT_EQ(d.temperature.thresholds->low_alarm.raw, -5 * 256);
}

}  // namespace optical_test
