// Extended capabilities of virtual functions and resources, in lspci's words: SR-IOV, Resizable
// BAR (physical and VF), Virtual Channel and Root Complex Event Collector Endpoint Association.
#include <cstdio>

#include "pcie_tools/decode.hpp"
#include "pcie_tools/sections.hpp"

namespace pcie {
namespace {

using namespace section_text;  // fmt, bit, num, hex16

void sriov_bars(CapReader& r, CapSection& s) {
    for (unsigned i = 0; i < 6; ++i) {
        uint32_t low = r.l(0x24 + 4 * i);
        if (low == 0xffffffffu || low == 0)
            continue;
        Text t("Region " + num(i), "Region " + num(i) + ": ");
        const bool is64 = ((low >> 1) & 3u) == 2;
        std::string at = fmt("%08x", low & ~0xfu);
        if (is64 && i < 5)
            at = fmt("%08x", r.l(0x24 + 4 * ++i)) + at;
        t.value("Memory at", at).shown(fmt("(%s-bit, %sprefetchable)", is64 ? "64" : "32", bit(low, 3) ? "" : "non-"));
        s.registers.push_back(t);
    }
}

void sriov(CapReader& r, CapSection& s) {
    s.title = "Single Root I/O Virtualization (SR-IOV)";
    const uint32_t cap = r.l(4);
    const uint16_t ctl = r.w(8), sta = r.w(10);
    Text a("IOVCap", "IOVCap:\t");
    a.flag("Migration", bit(cap, 0)).flag("10BitTagReq", bit(cap, 2)).value("Interrupt Message Number", fmt("%03x", cap >> 21), ": ");
    Text b("IOVCtl", "IOVCtl:\t");
    b.flag("Enable", bit(ctl, 0)).flag("Migration", bit(ctl, 1)).flag("Interrupt", bit(ctl, 2)).flag("MSE", bit(ctl, 3));
    b.flag("ARIHierarchy", bit(ctl, 4)).flag("10BitTagReq", bit(ctl, 5));
    Text c("IOVSta", "IOVSta:\t");
    c.flag("Migration", bit(sta, 0));
    Text d("VFs", "");
    d.value("Initial VFs", num(r.w(0x0c)), ": ").raw(",").value("Total VFs", num(r.w(0x0e)), ": ").raw(",");
    d.value("Number of VFs", num(r.w(0x10)), ": ").raw(",").value("Function Dependency Link", fmt("%02x", r.b(0x12)), ": ");
    Text e("VF offset", "");
    e.value("VF offset", num(r.w(0x14)), ": ").raw(",").value("stride", num(r.w(0x16)), ": ").raw(",");
    e.value("Device ID", fmt("%04x", r.w(0x1a)), ": ");
    Text f("Page Size", "");
    f.value("Supported Page Size", fmt("%08x", r.l(0x1c)), ": ").raw(",").value("System Page Size", fmt("%08x", r.l(0x20)), ": ");
    s.registers = {a, b, c, d, e, f};
    sriov_bars(r, s);
    const uint32_t msa = r.l(0x3c);
    Text g("VF Migration", "VF Migration:");
    g.value("offset", fmt("%08x", msa & ~7u), ": ").raw(",").value("BIR", fmt("%x", msa & 7u), ": ");
    s.registers.push_back(g);
}

std::string bar_size(unsigned log2_mb) {
    if (log2_mb < 10)
        return num(1ull << log2_mb) + "MB";
    if (log2_mb < 20)
        return num(1ull << (log2_mb - 10)) + "GB";
    return num(1ull << (log2_mb - 20)) + "TB";
}

void rebar(CapReader& r, CapSection& s, bool vf) {
    s.title = vf ? "Virtual Resizable BAR" : "Physical Resizable BAR";
    const unsigned count = (r.w(8) >> 5) & 7u;
    for (unsigned i = 0; i < count && i < 6; ++i) {
        const uint32_t cap = r.l(4 + 8 * i), ctl = r.l(8 + 8 * i);
        const std::string name = "BAR " + num(ctl & 7u);
        Text t(name, name + ":");
        t.value("current size", bar_size((ctl >> 8) & 0x3fu), ": ").raw(",");
        std::string sizes;
        for (unsigned b = 4; b < 32; ++b)
            if (bit(cap, b))
                sizes += (sizes.empty() ? "" : " ") + bar_size(b - 4);
        t.value("supported", sizes, ": ");
        s.registers.push_back(t);
    }
}

void vc_resource(CapReader& r, CapSection& s, unsigned i) {
    static const char* arb[] = {"Fixed", "WRR32", "WRR64", "WRR128", "TWRR128", "WRR256", "??6", "??7"};
    const uint32_t cap = r.l(0x10 + 12 * i), ctl = r.l(0x14 + 12 * i);
    const uint16_t sta = r.w(0x1a + 12 * i);
    const std::string name = "VC" + num(i);
    Text t(name, name + ":\tCaps:\t");
    t.value("PATOffset", fmt("%02x", cap >> 24), "=").value("MaxTimeSlots", num(((cap >> 16) & 0x3fu) + 1), "=");
    t.flag("RejSnoopTrans", bit(cap, 15));
    t.line("\t\t\tArb:\t");
    for (unsigned j = 0; j < 6; ++j)
        t.flag(arb[j], bit(cap, j));
    t.line("\t\t\tCtrl:\t").flag("Enable", bit(ctl, 31)).value("ID", num((ctl >> 24) & 7u), "=");
    t.value("ArbSelect", arb[(ctl >> 17) & 7u], "=").value("TC/VC", fmt("%02x", ctl & 0xffu), "=");
    t.line("\t\t\tStatus:\t").flag("NegoPending", bit(sta, 1)).flag("InProgress", bit(sta, 0));
    if (cap >> 24)
        t.line("\t\t\t").shown("Port Arbitration Table <?>");
    s.registers.push_back(t);
}

void vc(CapReader& r, CapSection& s) {
    s.title = "Virtual Channel";
    static const char* arb[] = {"Fixed", "WRR32", "WRR64", "WRR128"};
    const uint32_t cr1 = r.l(4), cr2 = r.l(8);
    const uint16_t ctl = r.w(0x0c), sta = r.w(0x0e);
    Text a("Caps", "Caps:\t");
    a.value("LPEVC", num((cr1 >> 4) & 7u), "=").value("RefClk", ((cr1 >> 8) & 3u) ? fmt("??%u", (cr1 >> 8) & 3u) : "100ns", "=");
    a.value("PATEntryBits", num(1u << ((cr1 >> 10) & 3u)), "=");
    Text b("Arb", "Arb:\t");
    for (unsigned j = 0; j < 4; ++j)
        b.flag(arb[j], bit(cr2, j));
    const unsigned sel = (ctl >> 1) & 7u;
    Text c("Ctrl", "Ctrl:\t");
    c.value("ArbSelect", sel < 4 ? arb[sel] : fmt("??%u", sel), "=");
    Text d("Status", "Status:\t");
    d.flag("InProgress", bit(sta, 0));
    s.registers = {a, b, c, d};
    if (cr2 >> 24)
        s.registers.push_back(Text("Port Arbitration Table", "").shown(fmt("Port Arbitration Table [%x] <?>", s.cap.offset + 16 * (cr2 >> 24))));
    for (unsigned i = 0; i <= (cr1 & 7u); ++i)
        vc_resource(r, s, i);
}

void rcec(CapReader& r, CapSection& s) {
    s.title = "Root Complex Event Collector Endpoint Association";
    const uint32_t bitmap = r.l(4);
    Text a("RCiEPBitmap", "RCiEPBitmap:");
    if (bitmap == 0) {
        a.shown("00000000 [none]");
    } else {
        std::string list;
        for (unsigned i = 0; i < 32; ++i)
            if (bit(bitmap, i))
                list += (list.empty() ? "" : ", ") + num(i);
        a.value("RCiEP at Device(s)", list, ": ");
    }
    s.registers.push_back(a);
    if (s.cap.version >= 2) {
        const uint32_t buses = r.l(8);
        Text b("AssociatedBusNumbers", "AssociatedBusNumbers:");
        b.shown(fmt("%02x-%02x", (buses >> 8) & 0xffu, (buses >> 16) & 0xffu));
        s.registers.push_back(b);
    }
}

}  // namespace

bool decode_ext_virtual_functions_resources(CapReader& r, const DeviceConfig& d, CapSection& s) {
    (void)d;
    switch (s.cap.id) {
        case 0x0010: sriov(r, s); return true;
        case 0x0015: rebar(r, s, false); return true;
        case 0x0024: rebar(r, s, true); return true;
        case 0x0002:
        case 0x0009: vc(r, s); return true;
        case 0x0007: rcec(r, s); return true;
        default: return false;
    }
}

}  // namespace pcie
