// display_physical_slots: the physical slot of each PCI function, from sysfs or from the Slot
// Capabilities of the function or a port above it, with its NUMA node.
#include "pcie_tools/physical_slots.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "pcie_tools/config_text.hpp"
#include "pcie_tools/decode.hpp"

namespace pcie {
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kSltcapPsnShift = 19;  // Slot Capabilities bits 31:19: Physical Slot Number

std::string hex4(unsigned value) {
    char text[8];
    std::snprintf(text, sizeof text, "%04x", value);
    return text;
}

// The Physical Slot Number of `space` when it has a PCI Express capability with Slot
// Implemented and a non-zero number; nullopt otherwise. ENOENT-free: a function without the
// capability has no slot.
Result<std::optional<uint32_t>> slot_number(ConfigSpace& space) {
    auto express = read_express(space);
    if (!express) {
        if (express.error().code == ENOENT)
            return std::optional<uint32_t>();
        return express.error();
    }
    if (!express->slot())
        return std::optional<uint32_t>();
    const uint32_t number = express->sltcap >> kSltcapPsnShift;
    return number ? std::optional<uint32_t>(number) : std::optional<uint32_t>();
}

// The first function from `address` up to its root port whose Slot Capabilities name a slot.
Result<void> find_bridge_slot(ConfigBackend& bus, PhysicalSlot& slot) {
    const auto chain = PDT_TRY(path_to_root(bus, slot.address));
    for (const PciAddress& candidate : chain) {
        ConfigSpace* space = PDT_TRY(bus.open(candidate));
        const auto number = PDT_TRY(slot_number(*space));
        if (number) {
            slot.bridge_slot = number;
            slot.slot_port = candidate;
            return {};
        }
    }
    return {};
}

Result<PhysicalSlot> describe(ConfigBackend& bus, const PciAddress& address, const SlotOptions& options,
                              std::vector<std::string>& notes) {
    ConfigSpace* space = PDT_TRY(bus.open(address));
    const DeviceConfig config = PDT_TRY(decode_device(*space));
    PhysicalSlot slot;
    slot.address = address;
    slot.revision = config.header.revision;
    slot.vendor_id = config.header.vendor_id;
    slot.device_id = config.header.device_id;
    if (config.header.header_type == PCI_HEADER_TYPE_NORMAL) {
        slot.subsystem_vendor_id = config.header.subsystem_vendor_id;
        slot.subsystem_id = config.header.subsystem_id;
    }
    const SystemInfo info = bus.system_info(address);
    slot.vendor_name = info.vendor_name;
    slot.device_name = info.device_name;
    if (options.sysfs_root) {
        slot.sysfs_slot = sysfs_physical_slot(*options.sysfs_root, address);
        slot.numa_node = sysfs_numa_node(*options.sysfs_root, address);
    }
    if (auto found = find_bridge_slot(bus, slot); !found)
        notes.push_back("note: slot capability of " + address.to_string() + " or a port above it: " +
                        found.error().message());
    return slot;
}

}  // namespace

std::string sysfs_physical_slot(const std::string& sysfs_root, const PciAddress& address) {
    const std::string slot_address = address.to_string().substr(0, 10);  // dddd:bb:dd
    std::error_code ec;
    std::string found;
    for (const auto& entry : fs::directory_iterator(fs::path(sysfs_root) / "bus/pci/slots", ec)) {
        std::ifstream in(entry.path() / "address");
        std::string text;
        if (in >> text && text == slot_address && (found.empty() || entry.path().filename().string() < found))
            found = entry.path().filename().string();
    }
    return found;
}

int sysfs_numa_node(const std::string& sysfs_root, const PciAddress& address) {
    int node = -1;
    if (std::ifstream in(fs::path(sysfs_root) / "bus/pci/devices" / address.to_string() / "numa_node"); in)
        in >> node;
    return node >= 0 ? node : -1;
}

Result<PhysicalSlotReport> find_physical_slots(ConfigBackend& bus, const SlotOptions& options,
                                               const std::optional<std::vector<PciAddress>>& only) {
    PhysicalSlotReport report;
    const std::vector<PciAddress> addresses = only ? *only : PDT_TRY(bus.devices());
    for (const PciAddress& address : addresses) {
        auto slot = describe(bus, address, options, report.notes);
        if (!slot) {
            report.notes.push_back("note: " + slot.error().message());
            continue;
        }
        if (!slot->sysfs_slot.empty() || slot->bridge_slot)
            report.slots.push_back(std::move(*slot));
    }
    return report;
}

Lines format_physical_slots(const PhysicalSlotReport& report) {
    Lines out;
    char line[160];
    for (const PhysicalSlot& s : report.slots) {
        std::snprintf(line, sizeof line, "domain=%04x bus=%02x dev=%02x func=%02x rev=%02x", s.address.domain,
                      s.address.bus, s.address.device, s.address.function, s.revision);
        out.push_back(line);
        std::string ids = "  vendor_id=" + hex4(s.vendor_id) + " (" + name_or(s.vendor_name, "Vendor", s.vendor_id) +
                          ") device_id=" + hex4(s.device_id) + " (" + name_or(s.device_name, "Device", s.device_id) + ")";
        if (s.subsystem_vendor_id && s.subsystem_id)
            ids += " subvendor_id=" + hex4(*s.subsystem_vendor_id) + " subdevice_id=" + hex4(*s.subsystem_id);
        out.push_back(ids);
        if (!s.sysfs_slot.empty())
            out.push_back("    physical slot from sysfs: " + s.sysfs_slot);
        if (s.bridge_slot) {
            std::string text = "    physical slot from bridge: #" + std::to_string(*s.bridge_slot);
            if (s.slot_port && *s.slot_port != s.address)
                text += " (Slot Capabilities of " + s.slot_port->to_string() + ")";
            out.push_back(text);
        }
        if (s.numa_node >= 0)
            out.push_back("    numa_node=" + std::to_string(s.numa_node));
        out.push_back("");
    }
    return out;
}

nlohmann::json physical_slots_json(const PhysicalSlotReport& report) {
    nlohmann::json slots = nlohmann::json::array();
    for (const PhysicalSlot& s : report.slots) {
        nlohmann::json j = {{"device", s.address.to_string()},
                            {"revision", s.revision},
                            {"vendor_id", hex4(s.vendor_id)},
                            {"device_id", hex4(s.device_id)},
                            {"vendor_name", s.vendor_name},
                            {"device_name", s.device_name},
                            {"sysfs_slot", s.sysfs_slot.empty() ? nlohmann::json() : nlohmann::json(s.sysfs_slot)},
                            {"bridge_slot", s.bridge_slot ? nlohmann::json(*s.bridge_slot) : nlohmann::json()},
                            {"slot_port", s.slot_port ? nlohmann::json(s.slot_port->to_string()) : nlohmann::json()},
                            {"numa_node", s.numa_node >= 0 ? nlohmann::json(s.numa_node) : nlohmann::json()}};
        if (s.subsystem_vendor_id && s.subsystem_id) {
            j["subvendor_id"] = hex4(*s.subsystem_vendor_id);
            j["subdevice_id"] = hex4(*s.subsystem_id);
        }
        slots.push_back(std::move(j));
    }
    return {{"slots", slots}, {"notes", report.notes}};
}

}  // namespace pcie
