// The link check of a tool that has opened a device: config through the device seam (here a
// simulated device), ports through another bus.
#include <gtest/gtest.h>

#include "pcie_tools/backends.hpp"
#include "pcie_tools/capabilities.hpp"
#include "sim/config_topology.hpp"
#include "sim/sim_device.hpp"
#include "sim_device_at.hpp"

namespace pcie {
namespace {

using namespace ::sim;
using sim_test::device_at;

TEST(OpenDeviceLinkWarning, ReadsTheDeviceThroughItsConfigRegionAndThePortFromTheBus) {
    auto ports = make_demo_topology();
    // The device as the tool opened it: its config comes only from the device seam.
    auto* in_bus = ports->find(PciAddress{0, 1, 0, 0});
    auto device = device_at(PciAddress{0, 1, 0, 0}, in_bus->bytes());
    auto lines = open_device_link_warning(*ports, *device);
    ASSERT_TRUE(lines.ok()) << lines.error().message();
    ASSERT_GE(lines->size(), 3u);
    EXPECT_EQ((*lines)[0], "Warning: Device device 0000:01:00.0 (10ee:7024) has reduced bandwidth");
    EXPECT_EQ((*lines)[1], "Max width x4 speed 5 GT/s. Negotiated width x4 speed 2.5 GT/s");
    EXPECT_NE((*lines)[2].find("0000:00:01.0 (Root Port)"), std::string::npos);
}

TEST(OpenDeviceLinkWarning, HealthyLinkGivesNoWarning) {
    auto ports = make_demo_topology();
    auto device = device_at(PciAddress{0, 3, 0, 0}, ports->find(PciAddress{0, 3, 0, 0})->bytes());
    auto lines = open_device_link_warning(*ports, *device);
    ASSERT_TRUE(lines.ok());
    EXPECT_TRUE(lines->empty());
}

TEST(OpenDeviceLinkWarning, UnreadablePortIsANoteNotAWarning) {
    ConfigTopology ports;  // knows nothing about the port above 0000:01:00.0
    auto demo = make_demo_topology();
    auto device = device_at(PciAddress{0, 1, 0, 0}, demo->find(PciAddress{0, 1, 0, 0})->bytes());
    auto lines = open_device_link_warning(ports, *device);
    ASSERT_TRUE(lines.ok());
    ASSERT_FALSE(lines->empty());
    // Alone, the device's LnkCap vs LnkSta still shows its 2.5 of 5 GT/s, and says no port was read.
    EXPECT_EQ(lines->front(), "Warning: Device device 0000:01:00.0 (10ee:7024) has reduced bandwidth");
    EXPECT_NE(lines->back().find("Note: link check: no port found above 0000:01:00.0"), std::string::npos);
}

}  // namespace
}  // namespace pcie

namespace pcie {
namespace {

using namespace ::sim;

TEST(VfioConfigSpace, ConventionalRegionIs256Bytes) {
    ConfigBuilder b(0x1234, 0x11e8, 0x00ff00);
    b.add_msi(0x0080);
    std::vector<uint8_t> bytes(b.bytes().begin(), b.bytes().begin() + 256);
    bytes.resize(4096, 0);
    auto device = device_at(PciAddress{0, 1, 0, 0}, bytes);
    VfioConfigSpace space(*device);
    // sim::SimDevice serves 4 KiB; the size follows what the region lets us read.
    EXPECT_EQ(space.size(), 4096u);
    auto caps = walk_capabilities(space);
    EXPECT_TRUE(caps.problems.empty());
    EXPECT_EQ(caps.standard.size(), 1u);
}

// pcie_set_speed_vfio opens the bus writable, but only the port above (libpci) is written: the
// VFIO-bound function's config region stays read-only.
TEST(VfioConfigSpace, RegionIsReadOnlyEvenOnAWritableBus) {
    auto demo = make_demo_topology();
    auto device = device_at(PciAddress{0, 1, 0, 0}, demo->find(PciAddress{0, 1, 0, 0})->bytes());
    VfioConfigSpace space(*device);
    auto written = space.write16(0x04, 0x0006);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().code, EROFS);
    EXPECT_NE(written.error().message().find("read-only"), std::string::npos);
}

}  // namespace
}  // namespace pcie
