// display_physical_slots as a library: slots from the Slot Capabilities of a function or a port
// above it, slots and NUMA nodes from a sysfs tree, and what an unreadable port gives.
#include "pcie_tools/physical_slots.hpp"

#include <gtest/gtest.h>

#include "crafted.hpp"
#include "sim/config_topology.hpp"
#include "temp_tree.hpp"

namespace pcie {
namespace {

using namespace ::sim;

using test::at;

// A root port at 00:<device>.0 over bus <secondary>; Slot Implemented when `slot`, with `number`
// as its Physical Slot Number.
std::unique_ptr<SimConfigSpace> port(uint8_t device, uint8_t secondary, bool slot, uint32_t number) {
    ConfigBuilder b(0x8086, 0x0100 + device, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    b.bridge_buses(0, secondary, secondary);
    ExpressRegs r;
    r.type = reg::PortType::RootPort;
    r.slot = slot;
    r.sltcap = number << 19;
    b.add_express(r);
    return b.build(at(0, device));
}

std::unique_ptr<SimConfigSpace> endpoint(uint8_t bus) {
    ConfigBuilder b(0x10ee, 0x7024, 0x058000);
    b.set16(PCI_SUBSYSTEM_VENDOR_ID, 0x0002).set16(PCI_SUBSYSTEM_ID, 0x0009);
    b.add_express(ExpressRegs{});
    return b.build(at(bus, 0));
}

TEST(PhysicalSlots, FromTheSlotCapabilitiesOfThePortAbove) {
    ConfigTopology bus;
    bus.add(port(1, 1, true, 5), "Intel Corporation", "Port with slot 5");
    bus.add(endpoint(1), "Xilinx Corporation", "FPGA");
    bus.add(port(2, 2, true, 0));   // Slot Implemented, but slot number 0: no slot
    bus.add(endpoint(2));
    bus.add(port(3, 3, false, 9));  // a number without Slot Implemented is not a slot
    bus.add(endpoint(3));
    auto report = find_physical_slots(bus, SlotOptions{});
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_TRUE(report->notes.empty());
    ASSERT_EQ(report->slots.size(), 2u);
    EXPECT_EQ(report->slots[0].address, at(0, 1));
    EXPECT_EQ(report->slots[0].bridge_slot, 5u);
    EXPECT_EQ(report->slots[1].address, at(1, 0));
    EXPECT_EQ(report->slots[1].slot_port, at(0, 1));
    const Lines lines = format_physical_slots(*report);
    const Lines expected = {"domain=0000 bus=00 dev=01 func=00 rev=00",
                            "  vendor_id=8086 (Intel Corporation) device_id=0101 (Port with slot 5)",
                            "    physical slot from bridge: #5",
                            "",
                            "domain=0000 bus=01 dev=00 func=00 rev=00",
                            "  vendor_id=10ee (Xilinx Corporation) device_id=7024 (FPGA) subvendor_id=0002 "
                            "subdevice_id=0009",
                            "    physical slot from bridge: #5 (Slot Capabilities of 0000:00:01.0)",
                            ""};
    EXPECT_EQ(lines, expected);
}

TEST(PhysicalSlots, FromSysfsWithTheNumaNode) {
    TempTree sysfs;
    sysfs.write("bus/pci/slots/3-1/address", "0000:02:00\n");
    sysfs.write("bus/pci/slots/8191/address", "0000:07:00\n");
    sysfs.write("bus/pci/devices/0000:02:00.0/numa_node", "1\n");
    sysfs.write("bus/pci/devices/0000:03:00.0/numa_node", "-1\n");
    EXPECT_EQ(sysfs_physical_slot(sysfs.root(), at(2, 0)), "3-1");
    EXPECT_EQ(sysfs_physical_slot(sysfs.root(), at(3, 0)), "");
    EXPECT_EQ(sysfs_numa_node(sysfs.root(), at(2, 0)), 1);
    EXPECT_EQ(sysfs_numa_node(sysfs.root(), at(3, 0)), -1);
    EXPECT_EQ(sysfs_numa_node(sysfs.root(), at(9, 0)), -1);

    ConfigTopology bus;
    bus.add(port(2, 2, true, 0));
    bus.add(endpoint(2));
    bus.add(port(3, 3, false, 0));
    bus.add(endpoint(3));
    SlotOptions options;
    options.sysfs_root = sysfs.root();
    auto report = find_physical_slots(bus, options);
    ASSERT_TRUE(report.ok()) << report.error().message();
    ASSERT_EQ(report->slots.size(), 1u);
    const Lines lines = format_physical_slots(*report);
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[2], "    physical slot from sysfs: 3-1");
    EXPECT_EQ(lines[3], "    numa_node=1");
    const auto json = physical_slots_json(*report);
    ASSERT_EQ(json["slots"].size(), 1u);
    EXPECT_EQ(json["slots"][0]["device"], "0000:02:00.0");
    EXPECT_EQ(json["slots"][0]["sysfs_slot"], "3-1");
    EXPECT_TRUE(json["slots"][0]["bridge_slot"].is_null());
    EXPECT_EQ(json["slots"][0]["numa_node"], 1);
    EXPECT_EQ(json["slots"][0]["subvendor_id"], "0002");

    // Without a sysfs root (dump files, simulation) no sysfs fact is read.
    auto without = find_physical_slots(bus, SlotOptions{});
    ASSERT_TRUE(without.ok());
    EXPECT_TRUE(without->slots.empty());
}

TEST(PhysicalSlots, OnlyTheSelectedFunctions) {
    auto demo = make_demo_topology();
    auto report = find_physical_slots(*demo, SlotOptions{}, std::vector<PciAddress>{at(2, 0)});
    ASSERT_TRUE(report.ok());
    ASSERT_EQ(report->slots.size(), 1u);
    // The demo port's Slot Capabilities are 0x00380000: Physical Slot Number 7.
    EXPECT_EQ(report->slots[0].bridge_slot, 7u);
    EXPECT_EQ(report->slots[0].slot_port, at(0, 2));
}

// A bus whose port above 01:00.0 cannot be read: the function's slot is a note, not a guess.
class UnreadablePortBus : public ConfigTopology {
public:
    Result<ConfigSpace*> open(const PciAddress& address) override {
        if (address == at(0, 1))
            return pdt::make_error("open config space", address.to_string(), EIO, "simulated read failure");
        return ConfigTopology::open(address);
    }
};

TEST(PhysicalSlots, UnreadablePortIsANote) {
    UnreadablePortBus bus;
    bus.add(port(1, 1, true, 5));
    bus.add(endpoint(1));
    auto report = find_physical_slots(bus, SlotOptions{});
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_TRUE(report->slots.empty());
    ASSERT_EQ(report->notes.size(), 2u);
    EXPECT_EQ(report->notes[0],
              "note: open config space 0000:00:01.0: Input/output error (simulated read failure)");
    EXPECT_NE(report->notes[1].find("note: slot capability of 0000:01:00.0 or a port above it: "), std::string::npos);
    EXPECT_NE(report->notes[1].find("simulated read failure"), std::string::npos);
}

}  // namespace
}  // namespace pcie
