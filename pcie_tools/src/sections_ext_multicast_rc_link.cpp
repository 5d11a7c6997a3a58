// Extended capabilities of multicast and the root complex's links, in lspci's words: Multicast
// (PCIe 6.0 section 7.9.11) and Root Complex Link Declaration (section 7.9.8).
#include <cstdio>

#include "pcie_tools/decode.hpp"
#include "pcie_tools/sections.hpp"

namespace pcie {
namespace {

using namespace section_text;  // fmt, bit, num, hex16

uint64_t qword(CapReader& r, uint32_t offset) { return r.l(offset) | static_cast<uint64_t>(r.l(offset + 4)) << 32; }
std::string bytes(unsigned log2) { return fmt("%llu bytes", 1ull << log2); }

// The port type decides which Multicast fields exist: MC_Window_Size_Requested for endpoints,
// MC_ECRC_Regeneration_Supported and MC_Overlay_BAR for ports (switch and root ports).
void multicast(CapReader& r, const DeviceConfig& d, CapSection& s) {
    s.title = "Multicast";
    const int type = d.express ? static_cast<int>(d.express->type()) : -1;
    const bool endpoint = type == static_cast<int>(reg::PortType::Endpoint) ||
                          type == static_cast<int>(reg::PortType::RcIntegratedEndpoint);
    const bool port = type == static_cast<int>(reg::PortType::RootPort) ||
                      type == static_cast<int>(reg::PortType::Upstream) ||
                      type == static_cast<int>(reg::PortType::Downstream);
    const uint16_t cap = r.w(4), ctl = r.w(6);
    Text a("McastCap", "McastCap: ");
    a.value("MaxGroups", num((cap & 0x3fu) + 1));
    if (endpoint) {
        const unsigned window = (cap >> 8) & 0x3fu;
        a.raw(",").value("WindowSz", num(window) + " (" + bytes(window) + ")");
    }
    if (port)
        a.raw(",").flag("ECRCRegen", bit(cap, 15));
    // lspci 3.9 ends the McastCap line only for ports: elsewhere McastCtl follows on the same line.
    Text b("McastCtl", port ? "McastCtl: " : "\t\tMcastCtl: ", port ? "\t\t" : "");
    if (!port)
        b.continues_line();
    b.value("NumGroups", num((ctl & 0x3fu) + 1)).raw(",").flag("Enable", bit(ctl, 15));
    const uint64_t bar = qword(r, 8);
    Text c("McastBAR", "McastBAR: ");
    c.value("IndexPos", num(bar & 0x3fu)).raw(",").value("BaseAddr", hex16(bar & ~0xfffull));
    Text e("McastReceiveVec", "McastReceiveVec:      ");
    e.shown(hex16(qword(r, 0x10)));
    Text f("McastBlockAllVec", "McastBlockAllVec:     ");
    f.shown(hex16(qword(r, 0x18)));
    Text g("McastBlockUntransVec", "McastBlockUntransVec: ");
    g.shown(hex16(qword(r, 0x20)));
    s.registers = {a, b, c, e, f, g};
    if (endpoint)
        return;
    const uint64_t overlay = qword(r, 0x28);
    const unsigned size = overlay & 0x3fu;
    Text h("McastOverlayBAR", "McastOverlayBAR: ");
    h.value("OverlaySize", num(size) + (size >= 6 ? " (" + bytes(size) + ")" : " (disabled)"));
    h.raw(",").value("BaseAddr", hex16(overlay & ~0x3full));
    s.registers.push_back(h);
}

// Element Self Description, then one Link Entry (Link Description and Link Address) per link.
void rc_link(CapReader& r, CapSection& s) {
    s.title = "Root Complex Link";
    static const char* element[] = {"Config", "Egress", "Internal"};
    const uint32_t esd = r.l(4);
    const unsigned element_type = esd & 0xffu, links = (esd >> 8) & 0xffu;
    Text a("Desc", "Desc:\t");
    a.value("PortNumber", fmt("%02x", esd >> 24), "=").value("ComponentID", fmt("%02x", (esd >> 16) & 0xffu), "=");
    a.value("EltType", element_type < 3 ? element[element_type] : "??" + num(element_type), "=");
    s.registers.push_back(a);
    for (unsigned i = 0; i < links; ++i) {
        const uint32_t at = 0x10 + 16 * i, desc = r.l(at), low = r.l(at + 8), high = r.l(at + 12);
        const std::string name = "Link" + num(i);
        Text t(name, name + ":\tDesc:\t");
        t.value("TargetPort", fmt("%02x", desc >> 24), "=").value("TargetComponent", fmt("%02x", (desc >> 16) & 0xffu), "=");
        t.flag("AssocRCRB", bit(desc, 2)).value("LinkType", bit(desc, 1) ? "Config" : "MemMapped", "=");
        t.flag("LinkValid", bit(desc, 0));
        t.line("\t\t\tAddr:\t");
        if (bit(desc, 1)) {  // configuration space: bus number bits given by the N field
            const unsigned n = (low & 7u) ? (low & 7u) : 8u;
            t.shown(fmt("%02x:%02x.%u", (low >> 20) & ((1u << n) - 1), (low >> 15) & 0x1fu, (low >> 12) & 7u));
            t.raw(" ").value("CfgSpace", fmt("%08x%08x", high, low), "=");
        } else {
            t.shown(fmt("%08x%08x", high, low));
        }
        s.registers.push_back(t);
    }
}

}  // namespace

bool decode_ext_multicast_rc_link(CapReader& r, const DeviceConfig& d, CapSection& s) {
    switch (s.cap.id) {
        case 0x0012: multicast(r, d, s); return true;
        case 0x0005: rc_link(r, s); return true;
        default: return false;
    }
}

}  // namespace pcie
