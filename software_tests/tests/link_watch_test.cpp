// The stream tools' link monitor: a simulated device with the PCI Express capability of
// pcie_tools' demo topology (seed 004's x4 card at 2.5 of 5 GT/s below root port 0000:00:01.0).
#include <gtest/gtest.h>

#include <thread>

#include "sim/config_topology.hpp"
#include "sim/sim_device.hpp"
#include "sim_device_at.hpp"
#include "stream_tools/link_watch.hpp"

namespace {

using namespace std::chrono_literals;
using sim_test::device_at;

stream_tools::LinkLoadWatcher::PortsFactory demo_ports() {
    return []() -> pdt::Result<std::unique_ptr<pcie::ConfigBackend>> {
        return std::unique_ptr<pcie::ConfigBackend>(sim::make_demo_topology());
    };
}

void wait_rounds(const stream_tools::LinkLoadWatcher& watcher, unsigned rounds) {
    for (int i = 0; i < 2000 && watcher.min_rounds() < rounds; ++i)
        std::this_thread::sleep_for(1ms);
    ASSERT_GE(watcher.min_rounds(), rounds);
}

TEST(LinkLoadWatcher, ReportsDeviceAndPortSpeedAndWidthUnderLoad) {
    auto demo = sim::make_demo_topology();
    auto slow = device_at({0, 1, 0, 0}, demo->find({0, 1, 0, 0})->bytes());
    auto healthy = device_at({0, 3, 0, 0}, demo->find({0, 3, 0, 0})->bytes());
    stream_tools::LinkLoadWatcher watcher({slow.get(), healthy.get()}, demo_ports(), 1ms);
    watcher.start();
    wait_rounds(watcher, 3);
    const std::vector<std::string> lines = watcher.stop();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].rfind("link under load: 0000:01:00.0 2.5 GT/s x4 in ", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find("; port 0000:00:01.0 2.5 GT/s x4 in "), std::string::npos) << lines[0];
    EXPECT_EQ(lines[0].find("read errors"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[1].rfind("link under load: 0000:03:00.0 8 GT/s x8 in ", 0), 0u) << lines[1];
    EXPECT_NE(lines[1].find("; port 0000:00:03.0 8 GT/s x8 in "), std::string::npos) << lines[1];
    EXPECT_TRUE(watcher.stop().empty()) << "a second stop reports nothing";
}

TEST(LinkLoadWatcher, PortsBusThatCannotOpenIsReportedPerDevice) {
    auto demo = sim::make_demo_topology();
    auto device = device_at({0, 1, 0, 0}, demo->find({0, 1, 0, 0})->bytes());
    stream_tools::LinkLoadWatcher watcher({device.get()}, []() -> pdt::Result<std::unique_ptr<pcie::ConfigBackend>> {
        return pdt::make_error("open libpci", "sysfs", EACCES, "no access");
    });
    watcher.start();
    const std::vector<std::string> lines = watcher.stop();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].rfind("link under load: 0000:01:00.0 not monitored: ", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find("open libpci"), std::string::npos) << lines[0];
}

TEST(LinkLoadWatcher, DeviceWithoutExpressCapabilityIsNotMonitored) {
    sim::ConfigBuilder conventional(0x10ee, 0x7024, 0x058000);
    auto device = device_at({0, 1, 0, 0}, conventional.bytes());
    stream_tools::LinkLoadWatcher watcher({device.get()}, demo_ports(), 1ms);
    watcher.start();
    const std::vector<std::string> lines = watcher.stop();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].rfind("link under load: 0000:01:00.0 not monitored: ", 0), 0u) << lines[0];
}

}  // namespace
