// The whole-path link check, its warning, the bandwidth figures, and the link monitor.
#include <gtest/gtest.h>

#include <thread>

#include "pcie_tools/link.hpp"
#include "crafted.hpp"
#include "sim/config_topology.hpp"

namespace pcie {
namespace {

using namespace ::sim;

using test::at;

// Waits (bounded) until the monitor has sampled `rounds` times: no timing assumption on a
// loaded machine.
void wait_rounds(const LinkMonitor& monitor, unsigned rounds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (monitor.rounds() < rounds && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void add_port(ConfigTopology& bus, PciAddress address, reg::PortType type, uint8_t secondary, uint8_t speed,
              uint8_t width, uint8_t sta_speed, uint8_t sta_width, uint16_t lnkctl = 0) {
    ConfigBuilder b(0x8086, 0x0101, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    b.bridge_buses(address.bus, secondary, secondary);
    ExpressRegs r;
    r.type = type;
    r.lnkcap = lnkcap_value(speed, width);
    r.lnksta = lnksta_value(sta_speed, sta_width);
    r.lnkcap2 = lnkcap2_upto(speed);
    r.lnkctl = lnkctl;
    b.add_express(r);
    if (type == reg::PortType::Upstream)
        bus.add(b.build(address));
    else
        bus.add(b.build_port(address, PortModel{}));
}

void add_endpoint(ConfigTopology& bus, PciAddress address, uint8_t speed, uint8_t width, uint8_t sta_speed,
                  uint8_t sta_width) {
    ConfigBuilder b(0x10ee, 0x7024, 0x058000);
    ExpressRegs r;
    r.lnkcap = lnkcap_value(speed, width);
    r.lnksta = lnksta_value(sta_speed, sta_width);
    r.lnkcap2 = lnkcap2_upto(speed);
    r.devctl = 0x0020;  // MaxPayload 256
    b.add_express(r);
    bus.add(b.build(address));
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& l : lines)
        text += l + "\n";
    return text;
}

TEST(LinkPath, DowngradedLinkNamesThePort) {
    auto bus = make_demo_topology();
    auto report = check_link_path(*bus, at(1, 0));
    ASSERT_TRUE(report.ok()) << report.error().message();
    ASSERT_EQ(report->hops.size(), 1u);
    EXPECT_TRUE(report->downgraded());
    EXPECT_EQ(report->hops[0].capable_speed, 2);
    EXPECT_EQ(report->hops[0].capable_width, 4);  // the port is x16, the card x4
    const std::string warning = joined(format_link_warning(*report, "device 0000:01:00.0 (10ee:7024)"));
    EXPECT_NE(warning.find("Warning: Device device 0000:01:00.0 (10ee:7024) has reduced bandwidth\n"
                           "Max width x4 speed 5 GT/s. Negotiated width x4 speed 2.5 GT/s"),
              std::string::npos)
        << warning;
    EXPECT_NE(warning.find("link 0000:00:01.0 (Root Port) -> 0000:01:00.0 trained at 2.5 GT/s x4"), std::string::npos);
    EXPECT_NE(warning.find("pcie_set_speed 0000:00:01.0 2"), std::string::npos);
}

TEST(LinkPath, SlowerPortIsNotAFalseWarning) {
    // 16 GT/s card in an 8 GT/s slot, trained at 8 GT/s: the endpoint-only check of fpga_sio
    // warns; the link is at the best both ends support.
    ConfigTopology bus;
    add_port(bus, at(0, 1), reg::PortType::RootPort, 1, 3, 16, 3, 16);
    add_endpoint(bus, at(1, 0), 4, 16, 3, 16);
    auto report = check_link_path(bus, at(1, 0));
    ASSERT_TRUE(report.ok());
    EXPECT_FALSE(report->downgraded());
    EXPECT_TRUE(format_link_warning(*report, "x").empty());
    EXPECT_EQ(report->hops[0].capable_speed, 3);
}

TEST(LinkPath, UpstreamLinkOfASwitchIsChecked) {
    // root 00:01.0 -> switch upstream 01:00.0 -> downstream 02:01.0 -> endpoint 03:00.0.
    // The endpoint's own link is fine; the switch's link to the root trained at x4 of x16.
    ConfigTopology bus;
    add_port(bus, at(0, 1), reg::PortType::RootPort, 1, 4, 16, 4, 4);
    add_port(bus, at(1, 0), reg::PortType::Upstream, 2, 4, 16, 4, 4);
    add_port(bus, at(2, 1), reg::PortType::Downstream, 3, 4, 8, 4, 8);
    add_endpoint(bus, at(3, 0), 4, 8, 4, 8);
    auto report = check_link_path(bus, at(3, 0));
    ASSERT_TRUE(report.ok()) << report.error().message();
    ASSERT_EQ(report->hops.size(), 2u);
    EXPECT_FALSE(report->hops[0].downgraded());
    EXPECT_EQ(*report->hops[0].port_address, at(2, 1));
    EXPECT_TRUE(report->hops[1].width_downgraded());
    EXPECT_EQ(*report->hops[1].port_address, at(0, 1));
    const std::string warning = joined(format_link_warning(*report, "device 0000:03:00.0 (10ee:7024)"));
    EXPECT_NE(warning.find("Max width x16 speed 16 GT/s. Negotiated width x4 speed 16 GT/s"), std::string::npos)
        << warning;
    EXPECT_NE(warning.find("link 0000:00:01.0 (Root Port) -> 0000:01:00.0"), std::string::npos);
    EXPECT_EQ(warning.find("idle link"), std::string::npos) << "a width loss is not a power-saving downshift";
    EXPECT_EQ(report->bottleneck(), &report->hops[1]);
}

TEST(LinkPath, SlowerDeviceInFasterSlotIsANoteNotAWarning) {
    // A 2.5 GT/s x1 endpoint under an 8 GT/s x4 root port, as in the QEMU guest (e1000e).
    ConfigTopology bus;
    add_port(bus, at(0, 4), reg::PortType::RootPort, 4, 3, 4, 1, 1);
    add_endpoint(bus, at(4, 0), 1, 1, 1, 1);
    auto report = check_link_path(bus, at(4, 0));
    ASSERT_TRUE(report.ok()) << report.error().message();
    ASSERT_EQ(report->hops.size(), 1u);
    EXPECT_FALSE(report->downgraded());
    EXPECT_TRUE(report->hops[0].limited_by_device());
    EXPECT_TRUE(format_link_warning(*report, "device 0000:04:00.0 (8086:10d3)").empty());
    const std::string slot = joined(format_slot_warnings(*report));
    EXPECT_NE(slot.find("Warning: link 0000:00:04.0 (Root Port) -> 0000:04:00.0 runs at 2.5 GT/s x1, below the "
                           "port's 8 GT/s x4, because the device supports only 2.5 GT/s x1; retraining cannot raise it"),
              std::string::npos)
        << slot;
    const std::string summary = joined(format_link_summary(*report));
    EXPECT_NE(summary.find("negotiated 2.5 GT/s x1, capable 2.5 GT/s x1 (port downgraded from 8 GT/s x4: limited by "
                           "the device, not by training)"),
              std::string::npos)
        << summary;
}

TEST(LinkPath, SpeedDownshiftWithAspmSaysMeasureUnderLoad) {
    ConfigTopology bus;
    add_port(bus, at(0, 1), reg::PortType::RootPort, 1, 5, 16, 1, 16, 0x0002);
    add_endpoint(bus, at(1, 0), 5, 16, 1, 16);
    auto report = check_link_path(bus, at(1, 0));
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->hops[0].aspm_enabled());
    const std::string warning = joined(format_link_warning(*report, "d"));
    EXPECT_NE(warning.find("ASPM is enabled"), std::string::npos) << warning;
    EXPECT_NE(warning.find("an idle link may run slower to save power; measure under load"), std::string::npos);
}

TEST(LinkPath, ConventionalDeviceHasNoLinkToCheck) {
    ConfigTopology bus;
    add_port(bus, at(0, 1), reg::PortType::RootPort, 1, 3, 4, 3, 4);
    bus.add(ConfigBuilder(0x1234, 0x11e8, 0x00ff00).build(at(1, 0)));
    auto report = check_link_path(bus, at(1, 0));
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->hops.empty());
    EXPECT_FALSE(report->downgraded());
    ASSERT_EQ(report->notes.size(), 1u);
    EXPECT_NE(report->notes[0].find("conventional PCI function"), std::string::npos);
}

TEST(LinkPath, DeviceWithoutPortComparesItsOwnRegisters) {
    ConfigTopology bus;
    add_endpoint(bus, at(0, 6), 5, 16, 1, 16);  // as the H200 in a VM: on the root bus
    auto report = check_link_path(bus, at(0, 6));
    ASSERT_TRUE(report.ok());
    ASSERT_EQ(report->hops.size(), 1u);
    EXPECT_FALSE(report->hops[0].port_address);
    EXPECT_TRUE(report->downgraded());
    EXPECT_NE(joined(report->notes).find("no port found above 0000:00:06.0"), std::string::npos);
}

TEST(Bandwidth, PerDirectionFiguresMatchTheReference) {
    EXPECT_NEAR(encoded_bandwidth(1, 1), 0.25, 1e-9);
    EXPECT_NEAR(encoded_bandwidth(2, 4), 2.0, 1e-9);
    EXPECT_NEAR(encoded_bandwidth(3, 8), 7.877, 0.001);
    EXPECT_NEAR(encoded_bandwidth(4, 16), 31.51, 0.01);
    EXPECT_NEAR(encoded_bandwidth(5, 16), 63.02, 0.01);
    EXPECT_NEAR(encoded_bandwidth(6, 16), 121.0, 0.01);
    EXPECT_EQ(encoded_bandwidth(0, 16), 0.0);
    // pcie-bench: Gen5 x16 writes at MPS 256 ~52.0 GB/s, Gen3 x8 ~6.6 GB/s.
    EXPECT_NEAR(payload_bandwidth(5, 16, 256), 52.0, 0.6);
    EXPECT_NEAR(payload_bandwidth(3, 8, 256), 6.6, 0.1);
}

TEST(LinkMonitor, SamplesDeviceAndPortWhileRunning) {
    auto bus = make_demo_topology();
    auto monitor = LinkMonitor::start(*bus, at(1, 0), std::chrono::milliseconds(1));
    ASSERT_TRUE(monitor.ok()) << monitor.error().message();
    wait_rounds(**monitor, 5);
    const LinkMonitorSummary s = (*monitor)->stop();
    EXPECT_GE(s.device_status.samples, 3u);
    EXPECT_GE(s.port_status.samples, 3u);
    EXPECT_EQ(s.port_status.max_speed, 1);
    EXPECT_EQ(s.port_status.max_width, 4);
    ASSERT_TRUE(s.port);
    EXPECT_NE(s.line().find("link under load: 0000:01:00.0 2.5 GT/s x4 in "), std::string::npos) << s.line();
    EXPECT_NE(s.line().find("; port 0000:00:01.0 2.5 GT/s x4"), std::string::npos) << s.line();
}

TEST(LinkMonitor, SeesARetrainDuringTheRun) {
    auto bus = make_demo_topology();
    auto monitor = LinkMonitor::start(*bus, at(1, 0), std::chrono::milliseconds(1));
    ASSERT_TRUE(monitor.ok());
    wait_rounds(**monitor, 3);
    const LinkMonitorSummary before = (*monitor)->stop();
    // Retrain (by hand on the model) and sample again.
    auto* port = bus->find(at(0, 1));
    const uint16_t cap = port->express_offset();
    const uint16_t rl = 0x0060;
    ASSERT_TRUE(port->write(cap + PCI_EXP_LNKCTL, &rl, 2).ok());
    auto again = LinkMonitor::start(*bus, at(1, 0), std::chrono::milliseconds(1));
    ASSERT_TRUE(again.ok());
    wait_rounds(**again, 8);  // training lasts 3 Link Status reads of the port
    const LinkMonitorSummary after = (*again)->stop();
    EXPECT_EQ(before.port_status.max_speed, 1);
    EXPECT_EQ(after.port_status.max_speed, 2);
    EXPECT_NE(after.line().find("lowest 2.5 GT/s"), std::string::npos) << after.line();
}

TEST(LinkMonitor, FailsForAConventionalDevice) {
    ConfigTopology bus;
    bus.add(ConfigBuilder(0x1234, 0x11e8, 0x00ff00).build(at(1, 0)));
    auto monitor = LinkMonitor::start(bus, at(1, 0), std::chrono::milliseconds(1));
    ASSERT_FALSE(monitor.ok());
    EXPECT_EQ(monitor.error().code, ENOENT);
}

}  // namespace
}  // namespace pcie
