// The ddr_reset_gpio and m2_led_gpio peripherals of a design file (AXI GPIO, PG144) and the
// simulated MIG a DDR reset GPIO is given: every field, the defaults and each error.
#include <gtest/gtest.h>

#include <string>

#include "design_text.hpp"
#include "designs/registry.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace gpio_fields_test {

namespace {

using design_text::error_of;
using design_text::parse;

std::string gpio_design(const std::string& peripheral) {
    return design_text::design(R"(, "peripherals": [)" + peripheral + "]");
}

TEST(GpioFields, ADdrResetGpioTakesItsSimulatedMig) {
    auto d = parse(gpio_design(R"({"type": "ddr_reset_gpio", "bar": 0, "offset": "0x6000", "simulated_mig":
                                  {"locked_after_us": 7, "calibrated_after_ms": 9, "calibrates": false,
                                   "follows_reset": false}})"));
    ASSERT_TRUE(d.ok()) << d.error().message();
    const designs::Peripheral& p = d->peripherals.at(0);
    EXPECT_EQ(p.type, designs::PeripheralType::DdrResetGpio);
    EXPECT_EQ(p.frame_size(), 0x200u) << "PG144 up to IP IER 0x128";
    EXPECT_EQ(p.simulated_mig, (designs::MigSimulation{7, 9, false, false}));
}

TEST(GpioFields, TheDefaultsAreAMigThatCalibrates) {
    auto d = parse(gpio_design(R"({"type": "ddr_reset_gpio", "bar": 0, "offset": "0x3000"},
                                  {"type": "m2_led_gpio", "bar": 0, "offset": "0x2000"})"));
    ASSERT_TRUE(d.ok()) << d.error().message();
    EXPECT_EQ(d->peripherals.at(0).simulated_mig, designs::MigSimulation{});
    EXPECT_TRUE(d->peripherals.at(0).simulated_mig.calibrates);
    EXPECT_EQ(d->peripherals.at(1).type, designs::PeripheralType::M2LedGpio);
    EXPECT_STREQ(designs::json_name(designs::PeripheralType::M2LedGpio), "m2_led_gpio");
    EXPECT_STREQ(designs::display_name(designs::PeripheralType::DdrResetGpio), "DDR reset GPIO");
}

TEST(GpioFields, EachBadFieldIsNamed) {
    struct Case {
        const char* peripheral;
        const char* part;
    };
    for (const Case& c : {
             Case{R"({"type": "ddr_reset_gpio", "bar": 0, "offset": "0x0", "simulated_mig": {"calibrate": true}})",
                  "simulated_mig.calibrate"},
             Case{R"({"type": "ddr_reset_gpio", "bar": 0, "offset": "0x0", "simulated_mig": {"calibrates": 1}})",
                  "simulated_mig.calibrates"},
             Case{R"({"type": "ddr_reset_gpio", "bar": 0, "offset": "0x0", "simulated_mig": {"calibrated_after_ms": 70000}})",
                  "simulated_mig.calibrated_after_ms"},
             Case{R"({"type": "ddr_reset_gpio", "bar": 0, "offset": "0x0", "simulated_mig": 5})", "simulated_mig"},
             Case{R"({"type": "m2_led_gpio", "bar": 0, "offset": "0x0", "simulated_mig": {}})", "simulated_mig"},
         })
        EXPECT_NE(error_of(gpio_design(c.peripheral)).find(c.part), std::string::npos)
            << c.peripheral << ": " << error_of(gpio_design(c.peripheral));
}

}  // namespace

}  // namespace gpio_fields_test
