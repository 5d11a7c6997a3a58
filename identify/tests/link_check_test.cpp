// The reduced-bandwidth check at device open: a simulated design given the PCI Express
// capability of pcie_tools' demo topology (seed 004's x4 card trained at 2.5 of 5 GT/s below a
// 5 GT/s x16 root port, and a healthy 8 GT/s x8 card), its ports served by that topology.
#include <gtest/gtest.h>

#include <sstream>

#include "identify/identify.hpp"
#include "identify/link_check.hpp"
#include "sim/config_topology.hpp"
#include "sim/design_sim.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace link_check_test {

namespace {

const designs::Registry& registry() {
    static const designs::Registry r = designs::Registry::builtin().value();
    return r;
}

// A simulated TEF1001 stream design at `address` whose capabilities (status, capability
// pointer, everything from 0x40) are those of the demo topology's function there.
std::unique_ptr<vfio::Device> design_with_caps_of(sim::ConfigTopology& topology, const vfio::PciAddress& address) {
    const designs::Design* design = registry().find("TEF1001_dma_stream_loopback");
    EXPECT_NE(design, nullptr);
    auto instance = sim::instantiate_design(*design, sim::simulated_identity(*design, address, 41), true);
    EXPECT_TRUE(instance.ok()) << instance.error().message();
    const std::vector<uint8_t>& caps = topology.find(address)->bytes();
    auto& config = instance->device->config_space();
    config[0x06] = caps[0x06];
    config[0x07] = caps[0x07];
    config[0x34] = caps[0x34];
    std::copy(caps.begin() + 0x40, caps.begin() + 4096, config.begin() + 0x40);
    return std::move(instance->device);
}

TEST(DeviceLinkLines, DowngradedPathWarnsAndNamesThePort) {
    auto topology = sim::make_demo_topology();
    auto device = design_with_caps_of(*topology, vfio::PciAddress{0, 1, 0, 0});
    const auto lines = identify::device_link_lines(*topology, *device);
    ASSERT_GE(lines.size(), 3u);
    EXPECT_EQ(lines[0], "Warning: Device device 0000:01:00.0 (10ee:7024) has reduced bandwidth");
    EXPECT_EQ(lines[1], "Max width x4 speed 5 GT/s. Negotiated width x4 speed 2.5 GT/s");
    std::string rest;
    for (size_t i = 2; i < lines.size(); ++i)
        rest += lines[i] + "\n";
    EXPECT_NE(rest.find("0000:00:01.0 (Root Port)"), std::string::npos) << rest;
}

TEST(DeviceLinkLines, HealthyPathGivesNothing) {
    auto topology = sim::make_demo_topology();
    auto device = design_with_caps_of(*topology, vfio::PciAddress{0, 3, 0, 0});
    EXPECT_TRUE(identify::device_link_lines(*topology, *device).empty());
}

TEST(DeviceLinkLines, DeviceWithoutExpressCapabilityIsANoteNotAWarning) {
    auto topology = sim::make_demo_topology();
    const designs::Design* design = registry().find("TEF1001_dma_stream_loopback");
    ASSERT_NE(design, nullptr);
    auto instance = sim::instantiate_design(*design, sim::simulated_identity(*design, {0, 1, 0, 0}, 41), true);
    ASSERT_TRUE(instance.ok());
    const auto lines = identify::device_link_lines(*topology, *instance->device);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].rfind("Note: link check", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find("0000:01:00.0"), std::string::npos) << lines[0];
}

// identify_designs, which every tool opens devices through, prints the check after "Opening".
std::string identify_progress(pcie::ConfigBackend* ports, const vfio::PciAddress& address) {
    auto topology = sim::make_demo_topology();
    sim::DesignBus bus;
    const designs::Design* design = registry().find("TEF1001_dma_stream_loopback");
    bus.add(sim::simulated_identity(*design, address, 41),
            [&topology, address]() -> pdt::Result<std::unique_ptr<vfio::Device>> {
                return design_with_caps_of(*topology, address);
            });
    std::ostringstream progress;
    identify::IdentifyOptions options;
    options.progress = &progress;
    options.link_ports = ports;
    auto found = identify::identify_designs(bus, registry(), options);
    EXPECT_TRUE(found.ok()) << found.error().message();
    if (found.ok()) {
        EXPECT_EQ(found->designs.size(), 1u);
        EXPECT_TRUE(found->failures.empty());
    }
    return progress.str();
}

TEST(IdentifyDesigns, PrintsTheReducedBandwidthWarningRightAfterOpening) {
    auto ports = sim::make_demo_topology();
    const std::string text = identify_progress(ports.get(), vfio::PciAddress{0, 1, 0, 0});
    EXPECT_EQ(text.rfind("Opening device 0000:01:00.0 (10ee:7024) with IOMMU group 41\n"
                         "Warning: Device device 0000:01:00.0 (10ee:7024) has reduced bandwidth\n"
                         "Max width x4 speed 5 GT/s. Negotiated width x4 speed 2.5 GT/s\n",
                         0),
              0u)
        << text;
    EXPECT_NE(text.find("0000:00:01.0"), std::string::npos) << text;
}

TEST(IdentifyDesigns, HealthyLinkPrintsOnlyTheOpeningLine) {
    auto ports = sim::make_demo_topology();
    EXPECT_EQ(identify_progress(ports.get(), vfio::PciAddress{0, 3, 0, 0}),
              "Opening device 0000:03:00.0 (10ee:7024) with IOMMU group 41\n");
}

TEST(IdentifyDesigns, SimulatedBusWithoutPortsIsNotChecked) {
    // Even a downgraded device: a simulated bus has no ports, so nothing beyond the open line.
    EXPECT_EQ(identify_progress(nullptr, vfio::PciAddress{0, 1, 0, 0}),
              "Opening device 0000:01:00.0 (10ee:7024) with IOMMU group 41\n");
}

}  // namespace

}  // namespace link_check_test
