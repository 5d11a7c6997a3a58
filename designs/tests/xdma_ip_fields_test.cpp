// The XDMA IP option fields of the design format (dma_bridge.xdma_ip, simulation.xdma_ip,
// simulation.busy_after_stop_us, dma_bridge.memory_present) and "any" subsystem IDs: parsed
// strictly, errors naming the file and the field.
#include <gtest/gtest.h>

#include "design_text.hpp"
#include "designs/registry.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace xdma_ip_fields_test {

namespace {

using design_text::design;
using design_text::error_of;

designs::Design parsed(const std::string& text) {
    auto registry = design_text::registry_of(text);
    EXPECT_TRUE(registry.ok()) << registry.error().message();
    return registry->designs().at(0);
}

}  // namespace

TEST(XdmaIpFields, StatedOptionsAreParsedAndAbsentOnesStayUnstated) {
    const designs::Design d = parsed(design(R"(, "dma_bridge": {"bar": 0, "mode": "stream",
        "xdma_ip": {"descriptor_credits": false, "interrupts": true}})"));
    EXPECT_EQ(d.dma_bridge->xdma_ip.descriptor_credits, false);
    EXPECT_EQ(d.dma_bridge->xdma_ip.interrupts, true);
    EXPECT_FALSE(d.dma_bridge->xdma_ip.poll_mode_writeback.has_value());
    EXPECT_EQ(d.simulation.xdma_ip, designs::XdmaIpOptions{});
    EXPECT_EQ(d.simulation.busy_after_stop_us, 0u);
    EXPECT_TRUE(d.dma_bridge->memory_present);
}

TEST(XdmaIpFields, SimulationOptionsAndBusyTime) {
    const designs::Design d = parsed(design(R"(, "dma_bridge": {"bar": 0, "mode": "memory_mapped", "memory_size": 4096,
        "memory_present": false},
        "simulation": {"xdma_ip": {"poll_mode_writeback": false}, "busy_after_stop_us": 1500,
                       "subsystem_vendor_id": "0x1234", "subsystem_device_id": 9})"));
    EXPECT_EQ(d.simulation.xdma_ip.poll_mode_writeback, false);
    EXPECT_EQ(d.simulation.busy_after_stop_us, 1500u);
    EXPECT_EQ(d.simulation.subsystem_vendor_id, 0x1234);
    EXPECT_EQ(d.simulation.subsystem_device_id, 9);
    EXPECT_FALSE(d.dma_bridge->memory_present);
}

TEST(XdmaIpFields, BadValuesNameFileAndField) {
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 0, "mode": "stream", "xdma_ip": {"descriptor_credits": "no"}})")),
              "parse design file my.json field dma_bridge.xdma_ip.descriptor_credits: Invalid argument (expected true "
              "or false (got \"no\"))");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 0, "mode": "stream", "xdma_ip": {"credits": false}})")),
              "parse design file my.json field dma_bridge.xdma_ip.credits: Invalid argument (unknown field; expected "
              "one of: descriptor_credits, poll_mode_writeback, interrupts)");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 0, "mode": "stream", "xdma_ip": true})")),
              "parse design file my.json field dma_bridge.xdma_ip: Invalid argument (expected an object {...} (got true))");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"xdma_ip": {"interrupts": 1}})")),
              "parse design file my.json field simulation.xdma_ip.interrupts: Invalid argument (expected true or false "
              "(got 1))");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"busy_after_stop_us": 20000000})")),
              "parse design file my.json field simulation.busy_after_stop_us: Invalid argument (value 20000000 is above "
              "the maximum 0x989680)");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"busy_after_stop_us": "soon"})")),
              "parse design file my.json field simulation.busy_after_stop_us: Invalid argument (expected a number such "
              "as 0x2000 or 8192 (got \"soon\"))");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 0, "mode": "stream", "memory_present": false})")),
              "parse design file my.json field dma_bridge.memory_present: Invalid argument (only a memory_mapped DMA "
              "bridge has card memory)");
    EXPECT_EQ(error_of(design(R"(, "dma_bridge": {"bar": 0, "mode": "memory_mapped", "memory_size": 1, "memory_present": 0})")),
              "parse design file my.json field dma_bridge.memory_present: Invalid argument (expected true or false (got 0))");
}

TEST(XdmaIpFields, AlignmentsArePowersOfTwoUpTo128) {
    const designs::Design d = parsed(design(R"(, "simulation": {"address_alignment": 64, "length_granularity": "0x8"})"));
    EXPECT_EQ(d.simulation.address_alignment, 64u);
    EXPECT_EQ(d.simulation.length_granularity, 8u);
    EXPECT_EQ(error_of(design(R"(, "simulation": {"address_alignment": 48})")),
              "parse design file my.json field simulation.address_alignment: Invalid argument (a power of two from 1 "
              "to 128 bytes (got 48))");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"length_granularity": 0})")),
              "parse design file my.json field simulation.length_granularity: Invalid argument (a power of two from 1 "
              "to 128 bytes (got 0))");
    EXPECT_EQ(error_of(design(R"(, "simulation": {"length_granularity": 256})")),
              "parse design file my.json field simulation.length_granularity: Invalid argument (value 256 is above the "
              "maximum 0x80)");
}

TEST(XdmaIpFields, AnySubsystemIdIsAWildcard) {
    const designs::Design d = parsed(R"({"name": "w", "match": {"device_id": "0x9038", "subsystem_vendor_id": "any",
        "subsystem_device_id": "0x0007"}})");
    EXPECT_FALSE(d.match.subsystem_vendor_id.has_value());
    EXPECT_EQ(d.match.subsystem_device_id, 0x0007);
    vfio::DeviceIdentity id;
    id.vendor_id = 0x10ee;
    id.device_id = 0x9038;
    id.subsystem_vendor_id = 0x4321;
    id.subsystem_device_id = 0x0007;
    EXPECT_TRUE(d.match.matches(id));
    id.subsystem_device_id = 0x0008;
    EXPECT_FALSE(d.match.matches(id)) << "only the wildcard field matches any value";
    EXPECT_EQ(error_of(R"({"name": "w", "match": {"subsystem_vendor_id": "ANY", "subsystem_device_id": 1}})"),
              "parse design file my.json field match.subsystem_vendor_id: Invalid argument (expected a number such as "
              "0x2000 or 8192 (got \"ANY\"))");
}

}  // namespace xdma_ip_fields_test
