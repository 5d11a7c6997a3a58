// Standard (type 0x34 list) capabilities other than PM, MSI, MSI-X and PCI Express, in lspci's
// words: PCI-X, Slot ID, Debug port, SATA, Advanced Features, Vendor Specific, Subsystem, Vital
// Product Data and Enhanced Allocation.
#include <cstdio>

#include "pcie_tools/decode.hpp"
#include "pcie_tools/sections.hpp"

namespace pcie {
namespace {

using namespace section_text;  // fmt, bit, num, hex16

std::string requester(uint32_t status) {
    return fmt("%02x:%02x.%u", (status >> 8) & 0xffu, (status >> 3) & 0x1fu, status & 7u);
}

void pcix_bridge(CapReader& r, CapSection& s) {
    s.title = "PCI-X bridge device";
    static const char* freq[] = {"conv", "66MHz", "100MHz", "133MHz", "?4", "?5", "?6", "?7"};
    const uint16_t sec = r.w(2);
    Text t("Secondary Status", "Secondary Status:");
    t.flag("64bit", bit(sec, 0)).flag("133MHz", bit(sec, 1)).flag("SCD", bit(sec, 2)).flag("USC", bit(sec, 3));
    t.flag("SCO", bit(sec, 4)).flag("SRD", bit(sec, 5)).value("Freq", freq[(sec >> 6) & 7u], "=");
    s.registers.push_back(t);
    const uint32_t st = r.l(4);
    Text u("Status", "Status:");
    u.value("Dev", requester(st), "=").flag("64bit", bit(st, 16)).flag("133MHz", bit(st, 17));
    u.flag("SCD", bit(st, 18)).flag("USC", bit(st, 19)).flag("SCO", bit(st, 20)).flag("SRD", bit(st, 21));
    s.registers.push_back(u);
    for (auto [name, off] : {std::pair{"Upstream", 8u}, std::pair{"Downstream", 12u}}) {
        const uint32_t v = r.l(off);
        Text x(name, std::string(name) + ":");
        x.value("Capacity", std::to_string(v & 0xffffu), "=").value("CommitmentLimit", std::to_string(v >> 16), "=");
        s.registers.push_back(x);
    }
}

void pcix_device(CapReader& r, CapSection& s) {
    s.title = "PCI-X non-bridge device";
    static const unsigned ost[] = {1, 2, 3, 4, 8, 12, 16, 32};
    const uint16_t cmd = r.w(2);
    Text c("Command", "Command:");
    c.flag("DPERE", bit(cmd, 0)).flag("ERO", bit(cmd, 1));
    c.value("RBC", std::to_string(512u << ((cmd >> 2) & 3u)), "=").value("OST", std::to_string(ost[(cmd >> 4) & 7u]), "=");
    s.registers.push_back(c);
    const uint32_t st = r.l(4);
    Text t("Status", "Status:");
    t.value("Dev", requester(st), "=").flag("64bit", bit(st, 16)).flag("133MHz", bit(st, 17));
    t.flag("SCD", bit(st, 18)).flag("USC", bit(st, 19)).value("DC", bit(st, 20) ? "bridge" : "simple", "=");
    t.value("DMMRBC", std::to_string(512u << ((st >> 21) & 3u)), "=");
    t.value("DMOST", std::to_string(ost[(st >> 23) & 7u]), "=");
    t.value("DMCRS", std::to_string(8u << ((st >> 26) & 7u)), "=");
    t.flag("RSCEM", bit(st, 29)).flag("266MHz", bit(st, 30)).flag("533MHz", bit(st, 31));
    s.registers.push_back(t);
}

void advanced_features(CapReader& r, CapSection& s) {
    s.title = "PCI Advanced Features";
    const uint8_t cap = r.b(3), ctl = r.b(4), sta = r.b(5);
    s.registers.push_back(Text("AFCap", "AFCap:").flag("TP", bit(cap, 0)).flag("FLR", bit(cap, 1)));
    s.registers.push_back(Text("AFCtrl", "AFCtrl:").flag("FLR", bit(ctl, 0)));
    s.registers.push_back(Text("AFStatus", "AFStatus:").flag("TP", bit(sta, 0)));
}

void subsystem(CapReader& r, const DeviceConfig& d, CapSection& s) {
    const uint16_t sv = r.w(4), sd = r.w(6);
    const PciNames names = lookup_names(d.header.vendor_id, d.header.device_id, d.header.class_code, sv, sd);
    s.title = "Subsystem: " + names.subsystem;
}

// lspci decodes the virtio structure capabilities (virtio 1.0, section 4.1.4) and names the rest.
void vendor_specific(CapReader& r, const DeviceConfig& d, CapSection& s) {
    const uint16_t vendor = d.header.vendor_id, device = d.header.device_id;
    if (vendor != 0x1af4 || device < 0x1000 || device > 0x107f) {
        s.title = fmt("Vendor Specific Information: Len=%02x <?>", r.b(2));
        return;
    }
    static const char* types[] = {"<unknown>", "CommonCfg", "Notify", "ISR", "DeviceCfg"};
    const uint8_t type = r.b(3);
    s.title = std::string("Vendor Specific Information: VirtIO: ") + (type >= 1 && type <= 4 ? types[type] : types[0]);
    Text t("VirtIO", "");
    t.value("BAR", std::to_string(r.b(4)), "=").value("offset", fmt("%08x", r.l(8)), "=").value("size", fmt("%08x", r.l(12)), "=");
    if (type == 2)
        t.value("multiplier", fmt("%08x", r.l(16)), "=");
    s.registers.push_back(t);
}

// The VPD data is read through the VPD Address/Data registers (a config write per dword); no
// backend does that (a dump file cannot), so, like lspci -F, the data is "Not readable".
void vpd(CapSection& s) {
    s.title = "Vital Product Data";
    s.registers.push_back(Text("VPD", "").shown("Not readable"));
}

std::string ea_property(unsigned p, bool secondary) {
    static const char* names[] = {"memory space, non-prefetchable", "memory space, prefetchable", "I/O space",
                                  "VF memory space, prefetchable", "VF memory space, non-prefetchable",
                                  "allocation behind bridge, non-prefetchable memory",
                                  "allocation behind bridge, prefetchable memory", "allocation behind bridge, I/O space"};
    if (p < 8)
        return names[p];
    if (p == 0xfd)
        return "memory space resource unavailable for use";
    if (p == 0xfe)
        return "I/O space resource unavailable for use";
    if (p == 0xff)
        return secondary ? "entry unavailable for use, PrimaryProperties should be used" : "entry unavailable for use";
    return fmt("[%02x]", p);
}

std::string ea_bei(unsigned bei) {
    if (bei <= 5)
        return "BAR " + std::to_string(bei);
    if (bei >= 9 && bei <= 14)
        return "VF-BAR " + std::to_string(bei - 9);
    return bei == 6 ? "resource behind function" : bei == 7 ? "not indicated" : bei == 8 ? "expansion ROM" : "reserved";
}

// Enhanced Allocation (PCI Local Bus 3.0 ECN "Enhanced Allocation", PCIe 6.0 section 7.8.5):
// entries of a header dword, Base and MaxOffset, each with an optional upper dword (bit 1).
void enhanced_allocation(CapReader& r, const DeviceConfig& d, CapSection& s) {
    const unsigned entries = r.w(2) & 0x3fu;
    uint32_t at = 4;
    s.title = fmt("Enhanced Allocation (EA): NumEntries=%u", entries);
    if (d.header.header_type == PCI_HEADER_TYPE_BRIDGE) {
        s.title += fmt(", secondary=%u, subordinate=%u", r.b(4), r.b(5));
        at = 8;
    }
    for (unsigned i = 0; i < entries; ++i) {
        const uint32_t header = r.l(at), base = r.l(at + 4), max_offset = r.l(at + 8);
        const unsigned size = header & 7u;
        const std::string name = "Entry " + std::to_string(i);
        Text t(name, name + ": ");
        t.flag("Enable", bit(header, 31)).flag("Writable", bit(header, 30)).value("EntrySize", std::to_string(size), "=");
        t.line("\t\t\t ").value("BAR Equivalent Indicator", ea_bei((header >> 4) & 0xfu), ": ");
        t.line("\t\t\t ").value("PrimaryProperties", ea_property((header >> 8) & 0xffu, false), ": ");
        t.line("\t\t\t ").value("SecondaryProperties", ea_property((header >> 16) & 0xffu, true), ": ");
        uint32_t high_at = at + 12;
        const std::string base_high = bit(base, 1) ? fmt("%x", r.l(high_at)) : "";
        high_at += bit(base, 1) ? 4 : 0;
        const std::string max_high = bit(max_offset, 1) ? fmt("%x", r.l(high_at)) : "";
        t.line("\t\t\t ").value("Base", base_high + fmt("%08x", base & ~3u), ": ");
        t.line("\t\t\t ").value("MaxOffset", max_high + fmt("%08x", max_offset | 3u), ": ");
        s.registers.push_back(t);
        at += 4 + 4 * size;
    }
}

}  // namespace

bool decode_standard_section(CapReader& r, const DeviceConfig& d, CapSection& s) {
    switch (s.cap.id) {
        case 0x07:
            if (d.header.header_type == PCI_HEADER_TYPE_BRIDGE)
                pcix_bridge(r, s);
            else
                pcix_device(r, s);
            return true;
        case 0x04: {
            const uint8_t esr = r.b(2);
            s.title = fmt("Slot ID: %u slots, First%c, chassis %02x", esr & 0x1fu, bit(esr, 5) ? '+' : '-', r.b(3));
            return true;
        }
        case 0x0a: {
            const uint16_t w = r.w(2);
            s.title = fmt("Debug port: BAR=%u offset=%04x", w >> 13, w & 0x1fffu);
            return true;
        }
        case 0x06: s.title = "CompactPCI hot-swap <?>"; return true;
        case 0x0b: s.title = "CompactPCI central resource control <?>"; return true;
        case 0x0c: s.title = "Hot-plug capable"; return true;
        case 0x0e: s.title = "AGP3 <?>"; return true;
        case 0x0f: s.title = "Secure device <?>"; return true;
        case 0x12: {
            const uint8_t rev = r.b(2);
            const uint32_t bar = r.l(4);
            s.title = fmt("SATA HBA v%u.%u BAR%u Offset=%08x", rev >> 4, rev & 0xfu, (bar & 0xfu) - 4u, (bar >> 4) & 0xfffffu);
            return true;
        }
        case 0x13: advanced_features(r, s); return true;
        case 0x09: vendor_specific(r, d, s); return true;
        case 0x0d: subsystem(r, d, s); return true;
        case 0x03: vpd(s); return true;
        case 0x14: enhanced_allocation(r, d, s); return true;
        default: return false;
    }
}

}  // namespace pcie
