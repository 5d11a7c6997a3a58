// CXL's Designated Vendor-Specific Extended Capabilities (DVSEC Vendor ID 1E98h), in lspci's
// words: the PCIe DVSEC for CXL Devices (DVSEC ID 0), Non-CXL Function Map (2), CXL Extensions
// for Ports (3), GPF for Ports (4) and Devices (5), Flex Bus Port (7), Register Locator (8) and
// MLD (9); register layouts of the CXL 2.0/3.0 specification, chapter 8.1.
#include <cstdio>

#include "pcie_tools/sections.hpp"

namespace pcie {
namespace {

using namespace section_text;  // fmt, bit, num, hex16


// A DVSEC Range (Size High/Low, Base High/Low), CXL 2.0 section 8.1.3.8.
void range(CapReader& r, CapSection& s, unsigned n, uint32_t at) {
    static const unsigned interleave[] = {0, 256, 4096, 512, 1024, 2048, 8192, 16384};
    static const char* media[] = {"Volatile", "Non-volatile", "CDAT"};
    static const char* memory_class[] = {"DRAM", "Storage", "CDAT"};
    const uint32_t size_low = r.l(at + 4);
    const uint64_t size = (static_cast<uint64_t>(r.l(at)) << 32 | size_low) & ~0x0fffffffull;
    const uint64_t base = static_cast<uint64_t>(r.l(at + 8)) << 32 | r.l(at + 12);
    const unsigned type = (size_low >> 2) & 7u, cls = (size_low >> 5) & 7u, il = (size_low >> 8) & 0x1fu;
    const std::string name = "Range" + num(n);
    Text t(name, name + ": ");
    t.shown(hex16(base) + "-" + hex16(base + size - 1));
    t.line("\t\t\t").flag("Valid", bit(size_low, 0)).flag("Active", bit(size_low, 1));
    t.value("Type", type < 3 ? media[type] : "??" + num(type), "=");
    t.value("Class", cls < 3 ? memory_class[cls] : "??" + num(cls), "=");
    t.value("interleave", il < 8 ? num(interleave[il]) : "??" + num(il), "=");
    t.value("timeout", num(1ull << (2 * ((size_low >> 13) & 7u))) + "s", "=");
    s.registers.push_back(t);
}

void cache_size(CapReader& r, CapSection& s) {
    const uint16_t cap2 = r.w(0x16);
    const unsigned unit = cap2 & 0xfu, size = cap2 >> 8;
    Text t("Cache Size", "");
    if (unit == 0)
        t.shown("Cache Size Not Reported");
    else if (unit == 1 || unit == 2)
        t.value("Cache Size", fmt("%08x", size * (unit == 1 ? 64u << 10 : 1u << 20)), ": ");
    else
        t.value("Cache Size", num(size) + " of unknown unit size (" + num(unit) + ")", ": ");
    s.registers.push_back(t);
}

// PCIe DVSEC for CXL Devices (section 8.1.3); revision 0 (CXL 1.1) is not decoded, like lspci.
void device(CapReader& r, CapSection& s, unsigned rev, unsigned length) {
    if (rev == 0 || length < 0x38)
        return;
    const uint16_t cap = r.w(0x0a), ctl = r.w(0x0c), sta = r.w(0x0e), sta2 = r.w(0x12);
    Text a("CXLCap", "CXLCap:\t");
    a.flag("Cache", bit(cap, 0)).flag("IO", bit(cap, 1)).flag("Mem", bit(cap, 2)).flag("Mem HW Init", bit(cap, 3));
    a.value("HDMCount", num((cap >> 4) & 3u)).flag("Viral", bit(cap, 14));
    Text b("CXLCtl", "CXLCtl:\t");
    b.flag("Cache", bit(ctl, 0)).flag("IO", bit(ctl, 1)).flag("Mem", bit(ctl, 2));
    b.value("Cache SF Cov", num((ctl >> 3) & 0x1fu)).value("Cache SF Gran", num((ctl >> 8) & 7u));
    b.flag("Cache Clean", bit(ctl, 11)).flag("Viral", bit(ctl, 14));
    Text c("CXLSta", "CXLSta:\t");
    c.flag("Viral", bit(sta, 14));
    Text e("CXLSta2", "CXLSta2:\t");
    e.flag("ResetComplete", bit(sta2, 1)).flag("ResetError", bit(sta2, 2)).flag("PMComplete", bit(sta2, 15));
    s.registers = {a, b, c, e};
    cache_size(r, s);
    range(r, s, 1, 0x18);
    range(r, s, 2, 0x28);
}

// Non-CXL Function Map (section 8.1.4): eight 32-bit registers. lspci 3.9 reads each as a
// 16-bit word; the two agree while the upper halves (functions 16-31) are clear.
void function_map(CapReader& r, CapSection& s) {
    for (unsigned i = 0; i < 8; ++i) {
        const std::string name = "FuncMap " + num(i);
        s.registers.push_back(Text(name, name + ": ").shown(fmt("%08x", r.l(0x0c + 4 * i))));
    }
}

// CXL Extensions DVSEC for Ports (section 8.1.5).
void port(CapReader& r, CapSection& s, unsigned length) {
    if (length < 0x28)
        return;
    const uint16_t sta = r.w(0x0a), ctl = r.w(0x0c);
    Text a("CXLPortSta", "CXLPortSta:\t");
    a.flag("PMComplete", bit(sta, 0));  // Port Power Management Initialization Complete
    Text b("CXLPortCtl", "CXLPortCtl:\t");
    b.flag("UnmaskSBR", bit(ctl, 0)).flag("UnmaskLinkDisable", bit(ctl, 1)).flag("AltMem", bit(ctl, 2));
    b.flag("AltBME", bit(ctl, 3)).flag("ViralEnable", bit(ctl, 14));
    Text c("AlternateBus", "AlternateBus:\t");
    c.shown(fmt("%02x-%02x", r.b(0x0e), r.b(0x0f)));
    Text e("AlternateMem", "AlternateMem:\t");
    e.shown(fmt("%04x-%04x", r.w(0x10), r.w(0x12)));
    s.registers = {a, b, c, e};
}

// GPF timeouts and durations: a base (bits 3:0) and a scale (bits 11:8) from 1 us to 10 s.
void gpf_time(CapSection& s, const char* what, uint16_t w) {
    const unsigned base = w & 0xfu, scale = (w >> 8) & 0xfu;
    if (scale > 7)
        s.registers.push_back(Text("Reserved", "").shown("Reserved time scale encoding " + fmt("%x", scale)));
    static const unsigned factor[] = {1, 10, 100, 1, 10, 100, 1, 10};
    const char* unit = scale < 3 ? "us" : scale < 6 ? "ms" : scale < 8 ? "s" : "<?>";
    s.registers.push_back(Text(what, "").value(what, num(base * (scale < 8 ? factor[scale] : 1)) + unit, ": "));
}

void flex_bus(CapReader& r, CapSection& s, unsigned rev, unsigned length) {
    if (rev == 0) {
        s.registers.push_back(Text("Revision", "").shown("Revision 0 not supported"));
        return;
    }
    static const char* common[] = {"Cache", "IO", "Mem"};
    const uint16_t cap = r.w(0x0a), ctl = r.w(0x0c), sta = r.w(0x0e);
    Text a("FBCap", "FBCap:\t"), b("FBCtl", "FBCtl:\t"), c("FBSta", "FBSta:\t");
    for (unsigned i = 0; i < 3; ++i) {
        a.flag(common[i], bit(cap, i));
        b.flag(common[i], bit(ctl, i));
        c.flag(common[i], bit(sta, i));
    }
    a.flag("68BFlit", bit(cap, 5)).flag("MltLogDev", bit(cap, 6));
    b.flag("SynHdrByp", bit(ctl, 3)).flag("DrftBuf", bit(ctl, 4)).flag("68BFlit", bit(ctl, 5)).flag("MltLogDev", bit(ctl, 6));
    b.flag("RCD", bit(ctl, 7)).flag("Retimer1", bit(ctl, 8)).flag("Retimer2", bit(ctl, 9));
    c.flag("SynHdrByp", bit(sta, 3)).flag("DrftBuf", bit(sta, 4)).flag("68BFlit", bit(sta, 5)).flag("MltLogDev", bit(sta, 6));
    if (rev >= 2) {
        a.flag("256BFlit", bit(cap, 13)).flag("PBRFlit", bit(cap, 14));
        b.flag("256BFlit", bit(ctl, 13)).flag("PBRFlit", bit(ctl, 14));
        c.flag("256BFlit", bit(sta, 13)).flag("PBRFlit", bit(sta, 14));
    }
    s.registers = {a, b, c};
    if (length >= 0x14)
        s.registers.push_back(Text("FBModTS", "FBModTS:\t").value("Received FB Data", fmt("%06x", r.l(0x10) & 0xffffffu), ": "));
    if (rev >= 2 && length >= 0x1c) {
        s.registers.push_back(Text("FBCap2", "FBCap2:\t").flag("NOPHint", bit(r.l(0x14), 0)));
        s.registers.push_back(Text("FBCtl2", "FBCtl2:\t").flag("NOPHint", bit(r.l(0x18), 0)));
    }
    if (rev >= 2 && length >= 0x20)
        s.registers.push_back(Text("FBSta2", "FBSta2:\t").value("NOPHintInfo", fmt("%x", r.l(0x1c) & 3u), ": "));
}

// Register Locator (section 8.1.9): Register Blocks from offset 0Ch to the DVSEC's end.
void register_locator(CapReader& r, CapSection& s, unsigned length) {
    static const char* ids[] = {"empty", "component registers", "BAR virtualization", "CXL device registers"};
    for (unsigned i = 0; 0x0c + 8 * i + 8 <= length; ++i) {
        const uint32_t low = r.l(0x0c + 8 * i), high = r.l(0x10 + 8 * i);
        const unsigned id = (low >> 8) & 0xffu;
        if (id == 0)
            continue;
        const std::string name = "Block" + num(i + 1);
        Text t(name, name + ": ");
        t.value("BIR", "bar" + num(low & 7u), ": ").raw(",").value("ID", id < 4 ? ids[id] : "<?>", ": ").raw(",");
        t.value("offset", hex16(static_cast<uint64_t>(high) << 32 | (low & 0xffff0000u)), ": ");
        s.registers.push_back(t);
    }
}

}  // namespace

void decode_cxl_dvsec(CapReader& r, CapSection& s, uint16_t id, unsigned rev, unsigned length) {
    switch (id) {
        case 0: device(r, s, rev, length); break;
        case 2: function_map(r, s); break;
        case 3: port(r, s, length); break;
        case 4:
            gpf_time(s, "GPF Phase 1 Timeout", r.w(0x0c));
            gpf_time(s, "GPF Phase 2 Timeout", r.w(0x0e));
            break;
        case 5:
            gpf_time(s, "GPF Phase 2 Duration", r.w(0x0a));
            s.registers.push_back(Text("GPF Phase 2 Power", "").value("GPF Phase 2 Power", num(r.l(0x0c)) + "mW", ": "));
            break;
        case 7: flex_bus(r, s, rev, length); break;
        case 8: register_locator(r, s, length); break;
        case 9: {
            const uint16_t lds = r.w(0x0a);  // Number of LD Supported; encodings above 16 are reserved
            if (lds && lds <= 16)
                s.registers.push_back(Text("NumLogDevs", "").value("NumLogDevs", num(lds), ": "));
            break;
        }
        default: s.registers.push_back(Text("Unknown", "").shown(fmt("Unknown ID %04x", id))); break;
    }
}

}  // namespace pcie
