// pcie_set_speed against the simulated downstream port: success, refusal, timeout, QEMU-like
// read-only ports, and proof that only Link Control 2 and Link Control are written, 16 bits
// at a time, with no RW1C side effects.
#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>

#include "pcie_tools/retrain.hpp"
#include "sim/config_topology.hpp"

namespace pcie {
namespace {

using namespace ::sim;

using std::chrono::milliseconds;

const PciAddress kPort{0, 0, 1, 0};
const PciAddress kDevice{0, 1, 0, 0};

struct Topology {
    std::unique_ptr<ConfigTopology> bus = std::make_unique<ConfigTopology>();
    SimDownstreamPort* port = nullptr;
    SimConfigSpace* device = nullptr;
    uint16_t port_cap = 0, device_cap = 0;
};

// Root port 5 GT/s x16 (LnkCap2 2.5-5) above a 5 GT/s x4 device, trained at 2.5 GT/s x4 with
// LBMS already set (so an accidental RW1C write would be seen clearing it).
Topology make(PortModel model, uint8_t port_speed = 2, uint8_t device_speed = 2, uint16_t lnkctl2 = 0x0002) {
    Topology t;
    ConfigBuilder p(0x8086, 0x0101, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    p.bridge_buses(0, 1, 1);
    ExpressRegs pr;
    pr.type = reg::PortType::RootPort;
    pr.lnkcap = lnkcap_value(port_speed, 16, 2, 0x00212c00);
    pr.lnkctl = 0x0040;
    pr.lnksta = lnksta_value(1, 4, PCI_EXP_LNKSTA_SLC | PCI_EXP_LNKSTA_LBMS);
    pr.lnkcap2 = lnkcap2_upto(port_speed);
    pr.lnkctl2 = lnkctl2;
    t.port_cap = p.add_express(pr);
    ConfigBuilder d(0x10ee, 0x7024, 0x058000);
    ExpressRegs dr;
    dr.lnkcap = lnkcap_value(device_speed, 4);
    dr.lnksta = lnksta_value(1, 4, PCI_EXP_LNKSTA_SLC);
    dr.lnkcap2 = lnkcap2_upto(device_speed);
    t.device_cap = d.add_express(dr);
    t.port = static_cast<SimDownstreamPort*>(t.bus->add(p.build_port(kPort, model)));
    t.device = t.bus->add(d.build(kDevice));
    t.bus->connect(kPort, kDevice);
    return t;
}

struct Said {
    std::vector<std::string> lines;
    Say say() {
        return [this](const std::string& l) { lines.push_back(l); };
    }
    bool has(const std::string& text) const {
        for (const auto& l : lines)
            if (l.find(text) != std::string::npos)
                return true;
        return false;
    }
};

RetrainOptions target(uint8_t speed, milliseconds timeout = milliseconds(1000)) {
    RetrainOptions o;
    o.target_speed = speed;
    o.timeout = timeout;
    return o;
}

// Only Link Control 2 and Link Control, 16-bit each; Link Control keeps every bit as read.
void expect_only_link_registers_written(const Topology& t, uint16_t original_lnkctl) {
    const uint32_t lnkctl = t.port_cap + PCI_EXP_LNKCTL;
    const uint32_t lnkctl2 = t.port_cap + PCI_EXP_LNKCTL2;
    for (const ConfigWrite& w : t.port->writes()) {
        EXPECT_EQ(w.length, 2u) << "offset 0x" << std::hex << w.offset;
        EXPECT_TRUE(w.offset == lnkctl2 || w.offset == lnkctl) << "wrote offset 0x" << std::hex << w.offset;
        if (w.offset == lnkctl) {
            EXPECT_EQ(w.value, original_lnkctl | PCI_EXP_LNKCTL_RL);
        }
    }
    EXPECT_TRUE(t.device->writes().empty()) << "the device below must not be written";
}

TEST(Retrain, EndpointMovesToItsPortAndReachesFiveGts) {
    Topology t = make(PortModel{});
    Said said;
    auto report = set_link_speed(*t.bus, kDevice, target(2), said.say());
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_EQ(report->port, kPort);
    EXPECT_TRUE(report->reached);
    EXPECT_EQ(report->speed_after, 2);
    EXPECT_EQ(report->width_after, 4);
    EXPECT_EQ(t.port->retrains(), 1);
    EXPECT_TRUE(said.has("Retrain Link exists only in the port above it, 0000:00:01.0"));
    EXPECT_TRUE(said.has("Operating on device 0000:00:01.0"));
    EXPECT_TRUE(said.has("Current link speed: 2.5 GT/s width x4"));
    EXPECT_TRUE(said.has("Triggering link retraining by changing link control 0040 -> 0060"));
    EXPECT_TRUE(said.has("Current link speed: 5 GT/s width x4"));
    EXPECT_TRUE(said.has("Target link speed 5 GT/s reached"));
    // The device's own Link Status follows the port's.
    EXPECT_EQ(t.device->peek16(t.device_cap + PCI_EXP_LNKSTA) & 0x3ff, 0x42);
    // Target unchanged (0002): Link Control 2 is not written at all.
    ASSERT_EQ(t.port->writes().size(), 1u);
    expect_only_link_registers_written(t, 0x0040);
}

TEST(Retrain, WritesTargetSpeedKeepingOtherLinkControl2Bits) {
    Topology t = make(PortModel{}, 2, 2, 0x0061);  // target 2.5 GT/s, de-emphasis and HASD set
    Said said;
    auto report = set_link_speed(*t.bus, kPort, target(2), said.say());
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_TRUE(report->reached);
    EXPECT_EQ(t.port->peek16(t.port_cap + PCI_EXP_LNKCTL2), 0x0062);
    ASSERT_EQ(t.port->writes().size(), 2u);
    EXPECT_EQ(t.port->writes()[0].offset, t.port_cap + PCI_EXP_LNKCTL2);
    EXPECT_EQ(t.port->writes()[0].value, 0x0062u);
    // What will change is said before anything is written.
    size_t plan = 0, trigger = 0;
    for (size_t i = 0; i < said.lines.size(); ++i) {
        if (said.lines[i].find("Will write Link Control 2 (0x") != std::string::npos)
            plan = i + 1;
        if (said.lines[i].find("Triggering") != std::string::npos)
            trigger = i + 1;
    }
    EXPECT_GT(plan, 0u);
    EXPECT_LT(plan, trigger);
    expect_only_link_registers_written(t, 0x0040);
}

TEST(Retrain, NeverClearsLinkStatusRw1cBits) {
    Topology t = make(PortModel{});
    t.port->poke16(t.port_cap + PCI_EXP_LNKSTA, lnksta_value(1, 4, PCI_EXP_LNKSTA_LABS));
    auto report = set_link_speed(*t.bus, kPort, target(2), [](const std::string&) {});
    ASSERT_TRUE(report.ok());
    // LABS was set before; a 32-bit read-modify-write at Link Control would have cleared it.
    EXPECT_TRUE(t.port->peek16(t.port_cap + PCI_EXP_LNKSTA) & PCI_EXP_LNKSTA_LABS);
}

TEST(Retrain, SimulatedSpaceShowsWhatA32BitWriteWouldDo) {
    Topology t = make(PortModel{});
    const uint32_t dword = t.port->peek32(t.port_cap + PCI_EXP_LNKCTL);
    const uint32_t value = dword | PCI_EXP_LNKCTL_RL;
    ASSERT_TRUE(t.port->write(t.port_cap + PCI_EXP_LNKCTL, &value, 4).ok());
    EXPECT_FALSE(t.port->peek16(t.port_cap + PCI_EXP_LNKSTA) & PCI_EXP_LNKSTA_LBMS)
        << "the model must clear RW1C bits written as 1, or the test above proves nothing";
}

// Asks a port of `model` (both ends 8 GT/s capable, trained at 2.5 GT/s, Link Control 2 at 0001) for 8 GT/s through
// `address`, which the port does not take: the report says Link Control 2 was rejected and the target not reached,
// Link Control 2 reads 0001 again, the tool said each of `said_lines` and only the link registers were written.
// Returns the report for more checks (none where set_link_speed failed).
std::optional<RetrainReport> expect_eight_gts_rejected(const PortModel& model, const PciAddress& address,
                                                       std::initializer_list<const char*> said_lines) {
    Topology t = make(model, 3, 3, 0x0001);
    Said said;
    auto report = set_link_speed(*t.bus, address, target(3), said.say());
    EXPECT_TRUE(report.ok()) << report.error().message();
    if (!report.ok())
        return std::nullopt;
    EXPECT_TRUE(report->lnkctl2_rejected);
    EXPECT_FALSE(report->reached);
    EXPECT_EQ(t.port->peek16(t.port_cap + PCI_EXP_LNKCTL2), 0x0001);
    for (const char* line : said_lines)
        EXPECT_TRUE(said.has(line)) << line;
    expect_only_link_registers_written(t, 0x0040);
    return *report;
}

TEST(Retrain, RefusedSpeedIsReportedAndLinkControl2Restored) {
    PortModel model;
    model.refused_speeds = 1u << 3;
    expect_eight_gts_rejected(model, kDevice, {"Link control 2 write not accepted: reads back 0001",
                                               "Target link speed 8 GT/s NOT reached: link at 2.5 GT/s x4"});
}

TEST(Retrain, PartialAcceptanceIsRestored) {
    // A port that latches 5 GT/s when asked for 8 GT/s: Link Control 2 is put back as it was.
    PortModel model;
    model.latch_max_speed = 2;
    auto report = expect_eight_gts_rejected(model, kPort, {"reads back 0002", "Restored link control 2: 0001"});
    ASSERT_TRUE(report);
    EXPECT_TRUE(report->lnkctl2_restored);
}

TEST(Retrain, AcceptedEightGtsTrainsAtEightGts) {
    Topology t = make(PortModel{}, 3, 3, 0x0001);
    auto report = set_link_speed(*t.bus, kPort, target(3), [](const std::string&) {});
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->reached);
    EXPECT_EQ(report->speed_after, 3);
}

TEST(Retrain, QemuLikePortReportsHonestlyThatTheTargetWasNotReached) {
    PortModel qemu;
    qemu.lnkctl2_read_only = true;
    qemu.ignore_retrain = true;
    Topology t = make(qemu, 3, 3, 0x0003);
    t.port->poke16(t.port_cap + PCI_EXP_LNKSTA, lnksta_value(3, 4));
    Said said;
    auto report = set_link_speed(*t.bus, kPort, target(1), said.say());
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_TRUE(report->lnkctl2_rejected);
    EXPECT_FALSE(report->lnkctl2_restored);  // it never changed, nothing to restore
    EXPECT_FALSE(report->reached);
    EXPECT_EQ(report->speed_after, 3);
    EXPECT_TRUE(said.has("NOT reached: link at 8 GT/s x4"));
    EXPECT_TRUE(said.has("Link Bandwidth Management Status: clear"));
}

TEST(Retrain, TimesOutWhenTrainingNeverEndsAndRestoresLinkControl2) {
    PortModel stuck;
    stuck.training_reads = -1;
    Topology t = make(stuck, 3, 3, 0x0001);
    const auto start = std::chrono::steady_clock::now();
    auto report = set_link_speed(*t.bus, kPort, target(3, milliseconds(50)), [](const std::string&) {});
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().code, ETIMEDOUT);
    EXPECT_NE(report.error().message().find("after Retrain Link"), std::string::npos) << report.error().message();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    EXPECT_EQ(t.port->peek16(t.port_cap + PCI_EXP_LNKCTL2), 0x0001);
}

TEST(Retrain, WaitsForTrainingToClearBeforeRetraining) {
    PortModel stuck;
    stuck.training_reads = -1;
    Topology t = make(stuck);
    t.port->poke16(t.port_cap + PCI_EXP_LNKSTA, lnksta_value(1, 4, PCI_EXP_LNKSTA_LT));
    auto report = set_link_speed(*t.bus, kPort, target(2, milliseconds(20)), [](const std::string&) {});
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().code, ETIMEDOUT);
    EXPECT_NE(report.error().message().find("before Retrain Link"), std::string::npos);
    EXPECT_TRUE(t.port->writes().empty()) << "nothing may be written while the link trains";
}

TEST(Retrain, SpeedOutsideLinkCapabilities2IsRefusedBeforeAnyWrite) {
    Topology t = make(PortModel{});
    auto report = set_link_speed(*t.bus, kPort, target(4), [](const std::string&) {});
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().code, EINVAL);
    EXPECT_NE(report.error().message().find("does not support 16 GT/s"), std::string::npos);
    EXPECT_TRUE(t.port->writes().empty());
}

TEST(Retrain, DeviceSlowerThanTargetIsNotedAndNotReached) {
    Topology t = make(PortModel{}, 3, 1, 0x0001);
    Said said;
    auto report = set_link_speed(*t.bus, kDevice, target(3), said.say());
    ASSERT_TRUE(report.ok());
    EXPECT_FALSE(report->reached);
    EXPECT_EQ(report->speed_after, 1);
    EXPECT_TRUE(said.has("supports only 2.5 GT/s"));
}

TEST(Retrain, DefaultTargetIsThePortMaximum) {
    Topology t = make(PortModel{}, 3, 3, 0x0001);
    auto report = set_link_speed(*t.bus, kPort, RetrainOptions{}, [](const std::string&) {});
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->target, 3);
    EXPECT_TRUE(report->reached);
}

TEST(Retrain, EndpointWithoutParentFails) {
    ConfigTopology bus;
    ConfigBuilder d(0x10ee, 0x7024, 0x058000);
    ExpressRegs dr;
    dr.lnkcap = lnkcap_value(2, 4);
    d.add_express(dr);
    bus.add(d.build(kDevice));
    auto report = set_link_speed(bus, kDevice, target(2), [](const std::string&) {});
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().code, ENODEV);
    EXPECT_NE(report.error().message().find("Failed to get parent bridge"), std::string::npos);
}

TEST(Retrain, ConventionalFunctionHasNoLink) {
    ConfigTopology bus;
    bus.add(ConfigBuilder(0x1234, 0x11e8, 0x00ff00).build(kDevice));
    auto report = set_link_speed(bus, kDevice, target(2), [](const std::string&) {});
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().code, ENOENT);
}

TEST(Retrain, DumpBackendRefusesWrites) {
    Topology t = make(PortModel{});
    MemoryConfigSpace copy(kPort, t.port->bytes());
    auto write = copy.write16(0x50, 0x60);
    ASSERT_FALSE(write.ok());
    EXPECT_EQ(write.error().code, EROFS);
}

TEST(TargetSpeed, ParsesCodesAndRates) {
    EXPECT_EQ(*parse_target_speed("1"), 1);
    EXPECT_EQ(*parse_target_speed("6"), 6);
    EXPECT_EQ(*parse_target_speed("8GT/s"), 3);
    EXPECT_EQ(*parse_target_speed("2.5 GT/s"), 1);
    EXPECT_EQ(*parse_target_speed("64GT/s"), 6);
    for (const char* bad : {"0", "7", "", "x", "12", "3GT/s", "8 gt/s"}) {
        auto r = parse_target_speed(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, EINVAL);
        EXPECT_NE(r.error().message().find("Invalid target link speed"), std::string::npos);
    }
}

}  // namespace
}  // namespace pcie
