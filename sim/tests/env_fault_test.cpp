// PDT_SIM_FAULT (test-only): every XDMA model fault by name, the default and explicit channel,
// each malformed value rejected naming why, and make_design_bus refusing a malformed value.
#include <gtest/gtest.h>

#include <cstdlib>

#include "sim/design_sim.hpp"
#include "sim/env_fault.hpp"

namespace {

using sim::XdmaDirection;
using sim::XdmaFault;

class ScopedFaultEnv {
public:
    explicit ScopedFaultEnv(const char* value) { ::setenv(sim::kFaultEnvironmentVariable, value, 1); }
    ~ScopedFaultEnv() { ::unsetenv(sim::kFaultEnvironmentVariable); }
    ScopedFaultEnv(const ScopedFaultEnv&) = delete;
    ScopedFaultEnv& operator=(const ScopedFaultEnv&) = delete;
};

TEST(EnvFault, EveryFaultByItsEnumeratorName) {
    const XdmaFault all[] = {XdmaFault::EngineStall,     XdmaFault::EngineHang,      XdmaFault::DescriptorReadError,
                             XdmaFault::BadMagic,        XdmaFault::DataBitFlip,     XdmaFault::DropPacket,
                             XdmaFault::DuplicatePacket, XdmaFault::ReorderPacket,   XdmaFault::ShortC2hLength};
    for (XdmaFault fault : all) {
        auto parsed = sim::parse_env_fault(sim::fault_name(fault));
        ASSERT_TRUE(parsed.ok()) << sim::fault_name(fault) << ": " << parsed.error().message();
        EXPECT_EQ(parsed->fault, fault);
        EXPECT_EQ(parsed->channel, 0u);
        EXPECT_EQ(parsed->direction, fault == XdmaFault::ShortC2hLength ? XdmaDirection::C2H : XdmaDirection::H2C);
    }
}

TEST(EnvFault, ExplicitDirectionAndChannel) {
    auto parsed = sim::parse_env_fault("DataBitFlip:c2h:1");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    EXPECT_EQ(parsed->fault, XdmaFault::DataBitFlip);
    EXPECT_EQ(parsed->direction, XdmaDirection::C2H);
    EXPECT_EQ(parsed->channel, 1u);
    parsed = sim::parse_env_fault("EngineStall:h2c:3");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    EXPECT_EQ(parsed->direction, XdmaDirection::H2C);
    EXPECT_EQ(parsed->channel, 3u);
}

TEST(EnvFault, MalformedValuesAreRejectedNamingWhy) {
    const std::pair<const char*, const char*> cases[] = {
        {"BitFlip", "unknown fault 'BitFlip'"},
        {"databitflip", "unknown fault 'databitflip'"},
        {"DataBitFlip:up:0", "direction 'up' is neither h2c nor c2h"},
        {"DataBitFlip:h2c", "channel '' is not 0..3"},
        {"DataBitFlip:h2c:4", "channel '4' is not 0..3"},
        {"DataBitFlip:c2h:01", "channel '01' is not 0..3"},
    };
    for (const auto& [text, why] : cases) {
        auto parsed = sim::parse_env_fault(text);
        ASSERT_FALSE(parsed.ok()) << text;
        EXPECT_EQ(parsed.error().code, EINVAL);
        const std::string message = parsed.error().message();
        EXPECT_NE(message.find(std::string("parse PDT_SIM_FAULT ") + text), std::string::npos) << message;
        EXPECT_NE(message.find(why), std::string::npos) << message;
        EXPECT_NE(message.find("DataBitFlip, DropPacket"), std::string::npos) << "lists the faults: " << message;
    }
}

TEST(EnvFault, UnsetOrEmptySelectsNoFault) {
    ::unsetenv(sim::kFaultEnvironmentVariable);
    auto none = sim::env_fault();
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
    ScopedFaultEnv empty("");
    none = sim::env_fault();
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
}

TEST(EnvFault, DesignBusRefusesAMalformedValueAndAcceptsAGoodOne) {
    const designs::Registry registry = designs::Registry::builtin().value();
    {
        ScopedFaultEnv bad("Gremlins");
        auto bus = sim::make_design_bus({"NiteFury_dma_stream_loopback"}, registry);
        ASSERT_FALSE(bus.ok());
        EXPECT_EQ(bus.error().code, EINVAL);
        EXPECT_NE(bus.error().message().find("unknown fault 'Gremlins'"), std::string::npos) << bus.error().message();
    }
    ScopedFaultEnv good("DropPacket");
    auto bus = sim::make_design_bus({"NiteFury_dma_stream_loopback"}, registry);
    EXPECT_TRUE(bus.ok()) << bus.error().message();
}

}  // namespace
