// Extended capabilities of address translation, function routing, power and the link, in
// lspci's words: ACS, ARI, ATS, PRI, PASID, LTR, L1 PM
// Substates, PTM, DPC, Secondary PCI Express, TPH, Vendor Specific, DVSEC, and the titles of
// those lspci names without decoding.
#include <cstdio>

#include "pcie_tools/decode.hpp"
#include "pcie_tools/sections.hpp"

namespace pcie {
namespace {

using namespace section_text;  // fmt, bit, num, hex16

void acs(CapReader& r, CapSection& s) {
    s.title = "Access Control Services";
    static const char* names[] = {"SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl", "DirectTrans"};
    for (auto [reg, off] : {std::pair{"ACSCap", 4u}, std::pair{"ACSCtl", 6u}}) {
        const uint16_t w = r.w(off);
        Text t(reg, std::string(reg) + ":\t");
        for (unsigned i = 0; i < 7; ++i)
            t.flag(names[i], bit(w, i));
        s.registers.push_back(t);
    }
}

void ari(CapReader& r, CapSection& s) {
    s.title = "Alternative Routing-ID Interpretation (ARI)";
    const uint16_t cap = r.w(4), ctl = r.w(6);
    Text a("ARICap", "ARICap:\t");
    a.flag("MFVC", bit(cap, 0)).flag("ACS", bit(cap, 1)).raw(",").value("Next Function", num(cap >> 8), ": ");
    Text b("ARICtl", "ARICtl:\t");
    b.flag("MFVC", bit(ctl, 0)).flag("ACS", bit(ctl, 1)).raw(",").value("Function Group", num((ctl >> 4) & 7u), ": ");
    s.registers = {a, b};
}

void ats(CapReader& r, CapSection& s) {
    s.title = "Address Translation Service (ATS)";
    const uint16_t cap = r.w(4), ctl = r.w(6);
    Text a("ATSCap", "ATSCap:\t");
    a.value("Invalidate Queue Depth", fmt("%02x", cap & 0x1fu), ": ");
    Text b("ATSCtl", "ATSCtl:\t");
    b.flag("Enable", bit(ctl, 15)).raw(",").value("Smallest Translation Unit", fmt("%02x", ctl & 0x1fu), ": ");
    s.registers = {a, b};
}

void pri(CapReader& r, CapSection& s) {
    s.title = "Page Request Interface (PRI)";
    const uint16_t ctl = r.w(4), sta = r.w(6);
    Text a("PRICtl", "PRICtl:");
    a.flag("Enable", bit(ctl, 0)).flag("Reset", bit(ctl, 1));
    Text b("PRISta", "PRISta:");
    b.flag("RF", bit(sta, 0)).flag("UPRGI", bit(sta, 1)).flag("Stopped", bit(sta, 8));
    Text c("Page Request", "", "\t\t");
    c.value("Page Request Capacity", fmt("%08x", r.l(8)), ": ").raw(",");
    c.value("Page Request Allocation", fmt("%08x", r.l(12)), ": ");
    s.registers = {a, b, c};
}

void pasid(CapReader& r, CapSection& s) {
    s.title = "Process Address Space ID (PASID)";
    const uint16_t cap = r.w(4), ctl = r.w(6);
    Text a("PASIDCap", "PASIDCap:");
    a.flag("Exec", bit(cap, 1)).flag("Priv", bit(cap, 2)).raw(",").value("Max PASID Width", fmt("%02x", (cap >> 8) & 0x1fu), ": ");
    Text b("PASIDCtl", "PASIDCtl:");
    b.flag("Enable", bit(ctl, 0)).flag("Exec", bit(ctl, 1)).flag("Priv", bit(ctl, 2));
    s.registers = {a, b};
}

uint64_t ltr_ns(uint32_t value, unsigned scale) { return static_cast<uint64_t>(value) << (5 * scale); }

void ltr(CapReader& r, CapSection& s) {
    s.title = "Latency Tolerance Reporting";
    const uint16_t snoop = r.w(4), nosnoop = r.w(6);
    s.registers.push_back(Text("Max snoop latency", "").value("Max snoop latency",
        num(ltr_ns(snoop & 0x3ffu, (snoop >> 10) & 7u)) + "ns", ": "));
    s.registers.push_back(Text("Max no snoop latency", "").value("Max no snoop latency",
        num(ltr_ns(nosnoop & 0x3ffu, (nosnoop >> 10) & 7u)) + "ns", ": "));
}

std::string power_on(unsigned scale, unsigned value) {
    static const int mult[] = {2, 10, 100};
    return scale < 3 ? num(mult[scale] * value) + "us" : "<error>";
}

void l1pm(CapReader& r, CapSection& s) {
    s.title = "L1 PM Substates";
    const uint32_t cap = r.l(4), c1 = r.l(8), c2 = r.l(12);
    const bool l12 = bit(cap, 0) || bit(cap, 2);
    Text a("L1SubCap", "L1SubCap:");
    a.flag("PCI-PM_L1.2", bit(cap, 0)).flag("PCI-PM_L1.1", bit(cap, 1)).flag("ASPM_L1.2", bit(cap, 2));
    a.flag("ASPM_L1.1", bit(cap, 3)).flag("L1_PM_Substates", bit(cap, 4));
    if (l12) {
        a.line("\t\t\t  ").value("PortCommonModeRestoreTime", num((cap >> 8) & 0xffu) + "us", "=");
        a.value("PortTPowerOnTime", power_on((cap >> 16) & 3u, (cap >> 19) & 0x1fu), "=");
    }
    Text b("L1SubCtl1", "L1SubCtl1:");
    b.flag("PCI-PM_L1.2", bit(c1, 0)).flag("PCI-PM_L1.1", bit(c1, 1)).flag("ASPM_L1.2", bit(c1, 2)).flag("ASPM_L1.1", bit(c1, 3));
    if (l12) {
        b.line("\t\t\t   ").value("T_CommonMode", num((c1 >> 8) & 0xffu) + "us", "=");
        if (bit(cap, 2)) {
            const unsigned scale = c1 >> 29;
            b.value("LTR1.2_Threshold", scale > 5 ? "<error>" : num(ltr_ns((c1 >> 16) & 0x3ffu, scale)) + "ns", "=");
        }
    }
    Text c("L1SubCtl2", "L1SubCtl2:");
    if (l12)
        c.value("T_PwrOn", power_on(c2 & 3u, (c2 >> 3) & 0x1fu), "=");
    s.registers = {a, b, c};
}

std::string granularity(unsigned v, const char* zero) {
    return v == 0 ? zero : v == 0xff ? "Greater than 254ns" : num(v) + "ns";
}

void ptm(CapReader& r, CapSection& s) {
    s.title = "Precision Time Measurement";
    const uint32_t cap = r.l(4), ctl = r.l(8);
    Text a("PTMCap", "PTMCap:");
    a.flag_colon("Requester", bit(cap, 0)).flag_colon("Responder", bit(cap, 1)).flag_colon("Root", bit(cap, 2));
    Text b("PTMClockGranularity", "PTMClockGranularity:");
    b.shown(granularity((cap >> 8) & 0xffu, "Unimplemented"));
    Text c("PTMControl", "PTMControl:");
    c.flag_colon("Enabled", bit(ctl, 0)).flag_colon("RootSelected", bit(ctl, 1));
    Text d("PTMEffectiveGranularity", "PTMEffectiveGranularity:");
    d.shown(granularity((ctl >> 8) & 0xffu, "Unknown"));
    s.registers = {a, b, c, d};
}

void dpc(CapReader& r, CapSection& s) {
    s.title = "Downstream Port Containment";
    const uint16_t cap = r.w(4), ctl = r.w(6), sta = r.w(8), src = r.w(10);
    Text a("DpcCap", "DpcCap:\t");
    a.value("INT Msg", "#" + num(cap & 0x1fu)).raw(",").flag("RPExt", bit(cap, 5)).flag("PoisonedTLP", bit(cap, 6));
    a.flag("SwTrigger", bit(cap, 7)).value("RP PIO Log", num((cap >> 8) & 0xfu)).raw(",").flag("DL_ActiveErr", bit(cap, 12));
    Text b("DpcCtl", "DpcCtl:\t");
    b.value("Trigger", fmt("%x", ctl & 3u), ":").flag("Cmpl", bit(ctl, 2)).flag("INT", bit(ctl, 3)).flag("ErrCor", bit(ctl, 4));
    b.flag("PoisonedTLP", bit(ctl, 5)).flag("SwTrigger", bit(ctl, 6)).flag("DL_ActiveErr", bit(ctl, 7));
    Text c("DpcSta", "DpcSta:\t");
    c.flag("Trigger", bit(sta, 0)).value("Reason", fmt("%02x", (sta >> 1) & 3u), ":").flag("INT", bit(sta, 3));
    c.flag("RPBusy", bit(sta, 4)).value("TriggerExt", fmt("%02x", (sta >> 5) & 3u), ":");
    c.value("RP PIO ErrPtr", fmt("%02x", (sta >> 8) & 0x1fu), ":");
    Text d("Source", "Source:\t");
    d.shown(fmt("%04x", src));
    s.registers = {a, b, c, d};
}

void secondary(CapReader& r, CapSection& s) {
    s.title = "Secondary PCI Express";
    const uint32_t ctl3 = r.l(4);
    const uint16_t lanes = r.w(8);
    Text a("LnkCtl3", "LnkCtl3:");
    a.flag("LnkEquIntrruptEn", bit(ctl3, 1)).flag("PerformEqu", bit(ctl3, 0));
    Text b("LaneErrStat", "LaneErrStat:");
    std::string text = lanes ? "LaneErr at lane:" : "0";
    for (unsigned i = 0; i < 16; ++i)
        if (bit(lanes, i))
            text += " " + num(i);
    b.shown(text);
    s.registers = {a, b};
}

void tph(CapReader& r, CapSection& s) {
    s.title = "Transaction Processing Hints";
    const uint32_t cap = r.l(4);
    static const char* where[] = {"No steering table available", "Steering table in TPH capability structure",
                                  "Steering table in MSI-X table", "Reserved steering table location"};
    auto add = [&s](const char* text) { s.registers.push_back(Text(text, "").shown(text)); };
    if (bit(cap, 1))
        add("Interrupt vector mode supported");
    if (bit(cap, 2))
        add("Device specific mode supported");
    if (bit(cap, 8))
        add("Extended requester support");
    add(where[(cap >> 9) & 3u]);
}

}  // namespace

bool decode_ext_translation_power_link(CapReader& r, const DeviceConfig& d, CapSection& s) {
    (void)d;
    switch (s.cap.id) {
        case 0x0000: s.title = "Null"; return true;
        case 0x000d: acs(r, s); return true;
        case 0x000e: ari(r, s); return true;
        case 0x000f: ats(r, s); return true;
        case 0x0013: pri(r, s); return true;
        case 0x001b: pasid(r, s); return true;
        case 0x0018: ltr(r, s); return true;
        case 0x001e: l1pm(r, s); return true;
        case 0x001f: ptm(r, s); return true;
        case 0x001d: dpc(r, s); return true;
        case 0x0019: secondary(r, s); return true;
        case 0x0017: tph(r, s); return true;
        case 0x000b: {
            const uint32_t h = r.l(4);
            s.title = fmt("Vendor Specific Information: ID=%04x Rev=%u Len=%03x <?>", h & 0xffffu, (h >> 16) & 0xfu, h >> 20);
            return true;
        }
        case 0x0023: {
            const uint32_t h1 = r.l(4), h2 = r.w(8);
            const unsigned vendor = h1 & 0xffffu, rev = (h1 >> 16) & 0xfu, length = h1 >> 20;
            s.title = fmt("Designated Vendor-Specific: Vendor=%04x ID=%04x Rev=%u Len=%u", vendor, h2, rev, length);
            if (vendor != 0x1e98 || length < 16) {
                s.title += " <?>";
                return true;
            }
            s.title += ": CXL";
            decode_cxl_dvsec(r, s, static_cast<uint16_t>(h2), rev, length);
            return true;
        }
        default: break;
    }
    static const std::pair<uint16_t, const char*> titles[] = {
        {0x0004, "Power Budgeting <?>"}, {0x0006, "Root Complex Internal Link <?>"},
        {0x0008, "Multi-Function Virtual Channel <?>"}, {0x000a, "Root Complex Register Block <?>"},
        {0x0011, "Multi-Root I/O Virtualization <?>"}, {0x0016, "Dynamic Power Allocation <?>"},
        {0x001a, "Protocol Multiplexing <?>"}, {0x001c, "LN Requester <?>"},
        {0x0020, "PCI Express over M_PHY <?>"}, {0x0021, "FRS Queueing <?>"},
        {0x0022, "Readiness Time Reporting <?>"}, {0x0025, "Data Link Feature <?>"},
        {0x0026, "Physical Layer 16.0 GT/s <?>"}, {0x0027, "Lane Margining at the Receiver <?>"},
        {0x0028, "Hierarchy ID <?>"}, {0x0029, "Native PCIe Enclosure Management <?>"}};
    for (const auto& [id, title] : titles)
        if (id == s.cap.id) {
            s.title = title;
            return true;
        }
    return false;
}

}  // namespace pcie
