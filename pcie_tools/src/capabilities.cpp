#include "pcie_tools/capabilities.hpp"

#include <cstdio>
#include <set>

#include "pcie_tools/registers.hpp"

namespace pcie {
namespace {

std::string hex(uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "%x", value);
    return text;
}
std::string hex2(uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "%02x", value);
    return text;
}

void walk_standard(ConfigSpace& space, CapabilityList& list) {
    auto status = space.read16(PCI_STATUS);
    if (!status) {
        list.problems.push_back("<access denied> reading Status");
        return;
    }
    if (!(*status & PCI_STATUS_CAP_LIST))
        return;
    auto pointer = space.read8(PCI_CAPABILITY_LIST);
    if (!pointer) {
        list.problems.push_back("<access denied> reading the capability pointer");
        return;
    }
    std::set<uint32_t> visited;
    uint32_t at = *pointer & ~3u;
    while (at) {
        if (at < 0x40) {
            list.problems.push_back("capability pointer 0x" + hex(at) + " points into the header");
            list.lspci_ends.push_back("Capabilities: [" + hex2(at) + "] <points into the header>");
            return;
        }
        if (!visited.insert(at).second) {
            list.problems.push_back("loop: capability [" + hex(at) + "] visited twice");
            list.lspci_ends.push_back("Capabilities: [" + hex2(at) + "] <chain looped>");
            return;
        }
        auto header = space.read16(at);
        if (!header) {
            list.problems.push_back("truncated: capability [" + hex(at) + "] beyond the readable space");
            return;
        }
        const uint8_t id = static_cast<uint8_t>(*header);
        if (id == 0xff) {
            list.problems.push_back("<chain broken> at [" + hex(at) + "]");
            list.lspci_ends.push_back("Capabilities: [" + hex2(at) + "] <chain broken>");
            return;
        }
        list.standard.push_back({false, id, 0, static_cast<uint16_t>(at)});
        at = (*header >> 8) & ~3u;
    }
}

void walk_extended(ConfigSpace& space, CapabilityList& list) {
    if (space.size() <= PCI_CFG_SPACE_SIZE)
        return;  // conventional space, or extended space not readable
    std::set<uint32_t> visited;
    uint32_t at = PCI_CFG_SPACE_SIZE;
    while (at) {
        if (at < PCI_CFG_SPACE_SIZE) {
            list.problems.push_back("extended capability pointer 0x" + hex(at) + " below 0x100");
            return;
        }
        auto header = space.read32(at);
        if (!visited.insert(at).second) {
            list.problems.push_back("loop: extended capability [" + hex(at) + "] visited twice");
            list.lspci_ends.push_back("Capabilities: [" + hex(at) + " v" + std::to_string(header ? (*header >> 16) & 0xf : 0) +
                                      "] <chain looped>");
            return;
        }
        if (!header) {
            if (at != PCI_CFG_SPACE_SIZE)  // no extended space at all is normal
                list.problems.push_back("truncated: extended capability [" + hex(at) + "] beyond the readable space");
            return;
        }
        if (*header == 0xffffffffu) {
            if (at != PCI_CFG_SPACE_SIZE)
                list.problems.push_back("<chain broken> at extended [" + hex(at) + "]");
            return;
        }
        if (*header == 0 && at == PCI_CFG_SPACE_SIZE)
            return;  // no extended capabilities
        const uint16_t id = static_cast<uint16_t>(*header & 0xffff);
        list.extended.push_back({true, id, static_cast<uint8_t>((*header >> 16) & 0xf), static_cast<uint16_t>(at)});
        at = (*header >> 20) & 0xffc;
    }
}

}  // namespace

const Capability* CapabilityList::find(uint8_t id) const {
    for (const Capability& c : standard)
        if (c.id == id)
            return &c;
    return nullptr;
}

const Capability* CapabilityList::find_extended(uint16_t id) const {
    for (const Capability& c : extended)
        if (c.id == id)
            return &c;
    return nullptr;
}

CapabilityList walk_capabilities(ConfigSpace& space) {
    CapabilityList list;
    walk_standard(space, list);
    walk_extended(space, list);
    return list;
}

const char* capability_name(uint8_t id) {
    switch (id) {
        case 0x01: return "Power Management";
        case 0x02: return "AGP";
        case 0x03: return "Vital Product Data";
        case 0x04: return "Slot ID";
        case 0x05: return "MSI";
        case 0x06: return "CompactPCI hot-swap";
        case 0x07: return "PCI-X";
        case 0x08: return "HyperTransport";
        case 0x09: return "Vendor Specific Information";
        case 0x0a: return "Debug port";
        case 0x0b: return "CompactPCI central resource control";
        case 0x0c: return "Hot-plug capable";
        case 0x0d: return "Subsystem";
        case 0x0e: return "AGP3";
        case 0x0f: return "Secure device";
        case 0x10: return "Express";
        case 0x11: return "MSI-X";
        case 0x12: return "SATA HBA";
        case 0x13: return "PCI Advanced Features";
        case 0x14: return "PCI Enhanced Allocation";
        case 0x15: return "Flattening Portal Bridge";
        default: return nullptr;
    }
}

const char* extended_capability_name(uint16_t id) {
    switch (id) {
        case 0x0001: return "Advanced Error Reporting";
        case 0x0002: return "Virtual Channel";
        case 0x0003: return "Device Serial Number";
        case 0x0004: return "Power Budgeting";
        case 0x0005: return "Root Complex Link";
        case 0x0006: return "Root Complex Internal Link";
        case 0x0007: return "Root Complex Event Collector";
        case 0x0008: return "Multi-Function VC";
        case 0x0009: return "Virtual Channel (MFVC)";
        case 0x000a: return "Root Complex Register Block";
        case 0x000b: return "Vendor Specific Information";
        case 0x000c: return "Configuration Access Correlation";
        case 0x000d: return "Access Control Services";
        case 0x000e: return "Alternative Routing-ID Interpretation (ARI)";
        case 0x000f: return "Address Translation Service (ATS)";
        case 0x0010: return "Single Root I/O Virtualization (SR-IOV)";
        case 0x0011: return "Multi-Root I/O Virtualization (MR-IOV)";
        case 0x0012: return "Multicast";
        case 0x0013: return "Page Request Interface (PRI)";
        case 0x0015: return "Resizable BAR";
        case 0x0016: return "Dynamic Power Allocation";
        case 0x0017: return "TPH Requester";
        case 0x0018: return "Latency Tolerance Reporting";
        case 0x0019: return "Secondary PCI Express";
        case 0x001a: return "Protocol Multiplexing";
        case 0x001b: return "Process Address Space ID (PASID)";
        case 0x001c: return "LN Requester";
        case 0x001d: return "Downstream Port Containment";
        case 0x001e: return "L1 PM Substates";
        case 0x001f: return "Precision Time Measurement";
        case 0x0020: return "PCI Express over M-PHY";
        case 0x0021: return "FRS Queueing";
        case 0x0022: return "Readiness Time Reporting";
        case 0x0023: return "Designated Vendor-Specific";
        case 0x0024: return "VF Resizable BAR";
        case 0x0025: return "Data Link Feature";
        case 0x0026: return "Physical Layer 16.0 GT/s";
        case 0x0027: return "Lane Margining at the Receiver";
        case 0x0028: return "Hierarchy ID";
        case 0x0029: return "Native PCIe Enclosure Management";
        case 0x002a: return "Physical Layer 32.0 GT/s";
        case 0x002b: return "Alternate Protocol";
        case 0x002c: return "System Firmware Intermediary";
        case 0x002d: return "Shadow Functions";
        case 0x002e: return "Data Object Exchange";
        case 0x002f: return "Device 3";
        case 0x0030: return "Integrity and Data Encryption";
        case 0x0031: return "Physical Layer 64.0 GT/s";
        case 0x0032: return "Flit Logging";
        case 0x0033: return "Flit Performance Measurement";
        case 0x0034: return "Flit Error Injection";
        default: return nullptr;
    }
}

}  // namespace pcie
