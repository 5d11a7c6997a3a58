// display_physical_slots as a library: every PCI function that has a physical slot, found as
// fpga_sio's tool finds it -- the slot sysfs names for the function (/sys/bus/pci/slots/*/address)
// or the Physical Slot Number in the Slot Capabilities register (PCIe Base spec 7.5.3.9) of the
// function or the nearest port above it with Slot Implemented set -- with its NUMA node.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pcie_tools/config_space.hpp"
#include "pcie_tools/config_text.hpp"

namespace pcie {

struct PhysicalSlot {
    PciAddress address;
    uint8_t revision = 0;
    uint16_t vendor_id = 0, device_id = 0;
    std::optional<uint16_t> subsystem_vendor_id, subsystem_id;  // type-0 headers only
    std::string vendor_name, device_name;
    std::string sysfs_slot;                  // empty: sysfs names no slot for the function
    std::optional<uint32_t> bridge_slot;     // Physical Slot Number from Slot Capabilities
    std::optional<PciAddress> slot_port;     // the function whose Slot Capabilities gave it
    int numa_node = -1;                      // -1: unknown (no sysfs, or no NUMA)
};

struct PhysicalSlotReport {
    std::vector<PhysicalSlot> slots;
    std::vector<std::string> notes;  // functions whose PCI Express capability could not be read
};

// Where the sysfs facts (slots, NUMA node) come from: a sysfs root ("/sys", or a test tree),
// or none for backends that have no machine behind them (dump files, simulation).
struct SlotOptions {
    std::optional<std::string> sysfs_root;
};

// The slot of one function from sysfs: the name of the directory under <root>/bus/pci/slots
// whose address file holds the function's dddd:bb:dd; empty when none does.
std::string sysfs_physical_slot(const std::string& sysfs_root, const PciAddress& address);
// <root>/bus/pci/devices/<bdf>/numa_node; -1 when absent.
int sysfs_numa_node(const std::string& sysfs_root, const PciAddress& address);

// Every function of `bus` (or only those of `only`) that has a slot, in address order.
Result<PhysicalSlotReport> find_physical_slots(ConfigBackend& bus, const SlotOptions& options,
                                               const std::optional<std::vector<PciAddress>>& only = std::nullopt);

// fpga_sio's lines: the identity, "    physical slot from sysfs: <name>", "    physical slot
// from bridge: #<n>" and, ours, "    numa_node=<n>"; a blank line after each function.
Lines format_physical_slots(const PhysicalSlotReport& report);
nlohmann::json physical_slots_json(const PhysicalSlotReport& report);

}  // namespace pcie
