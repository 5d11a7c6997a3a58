// The simulated die: its temperature curve (PDT_SIM_TEMPERATURE's syntax) and the rise with
// the DMA load, on a clock the test steps.
#include "sim/die_thermal.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

TEST(TemperatureCurve, ConstantAndPiecewiseLinear) {
    const auto constant = sim::TemperatureCurve::parse("55");
    ASSERT_TRUE(constant.ok());
    EXPECT_DOUBLE_EQ(constant->at(0), 55);
    EXPECT_DOUBLE_EQ(constant->at(1000), 55);
    const auto ramp = sim::TemperatureCurve::parse("40,100@30s,70@60");
    ASSERT_TRUE(ramp.ok());
    EXPECT_DOUBLE_EQ(ramp->at(0), 40);
    EXPECT_DOUBLE_EQ(ramp->at(15), 70);
    EXPECT_DOUBLE_EQ(ramp->at(30), 100);
    EXPECT_DOUBLE_EQ(ramp->at(45), 85);
    EXPECT_DOUBLE_EQ(ramp->at(600), 70);  // the last point held
    EXPECT_DOUBLE_EQ(sim::TemperatureCurve{}.at(5), 38);
}

TEST(TemperatureCurve, BadTextIsRefusedNamingThePart) {
    const std::pair<const char*, const char*> cases[] = {
        {"", "'' is not a temperature in C in -60..200"},
        {"hot", "'hot' is not a temperature in C in -60..200"},
        {"40,90", "'90' has no time: every point after the first is T@seconds"},
        {"40,90@10,80@5", "'80@5': times must increase"},
        {"40,250@10", "'250' is not a temperature in C in -60..200"},
        {"40,90@-1", "'-1' is not a time in seconds in 0..1e+09"},
        {"40,90@soon", "'soon' is not a time in seconds"},
        {"40,", "'' is not a temperature"},
    };
    for (const auto& [text, hint] : cases) {
        const auto curve = sim::TemperatureCurve::parse(text);
        ASSERT_FALSE(curve.ok()) << text;
        EXPECT_EQ(curve.error().code, EINVAL);
        EXPECT_NE(curve.error().message().find(hint), std::string::npos) << text << ": " << curve.error().message();
    }
}

TEST(DieThermal, TheDieWarmsWithTheLoadWithALagAndCoolsAgain) {
    double now = 0;
    auto bytes = std::make_shared<std::atomic<uint64_t>>(0);
    sim::DieThermal die(*sim::TemperatureCurve::parse("40"), bytes, [&now] { return now; });
    EXPECT_DOUBLE_EQ(die.temperature_c(), 40);
    // Full load (4 GB/s) for one time constant: 1 - 1/e of the full rise.
    for (int i = 0; i < 50; ++i) {
        now += 0.1;
        *bytes += static_cast<uint64_t>(sim::DieThermal::kFullLoadBytesPerSecond * 0.1);
        die.temperature_c();
    }
    EXPECT_NEAR(die.temperature_c(), 40 + sim::DieThermal::kFullLoadRiseC * (1 - std::exp(-1.0)), 0.05);
    EXPECT_NEAR(die.load(), 1 - std::exp(-1.0), 0.01);
    // Idle for ten time constants: back to the curve.
    now += 10 * sim::DieThermal::kRiseTimeConstantS;
    EXPECT_NEAR(die.temperature_c(), 40, 0.01);
}

TEST(DieThermal, WithoutActivityItFollowsTheCurve) {
    double now = 0;
    sim::DieThermal die(*sim::TemperatureCurve::parse("40,100@10"), nullptr, [&now] { return now; });
    now = 5;
    EXPECT_DOUBLE_EQ(die.temperature_c(), 70);
    EXPECT_DOUBLE_EQ(die.load(), 0);
}

}  // namespace
