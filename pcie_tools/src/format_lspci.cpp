// One function as `lspci -vvv -F <dump>` prints it: title, Subsystem, Control/Status, Latency,
// Interrupt, BARs, expansion ROM, the bridge windows, secondary status and bridge control,
// then the capabilities (format_capabilities). Used to compare with lspci token by token and
// for dump_pci_info's lspci-style output.
#include <cinttypes>
#include <cstdio>

#include "base/format.hpp"
#include "pcie_tools/config_text.hpp"

namespace pcie {
namespace {

using pdt::format;

struct Header {
    const std::vector<uint8_t>& b;
    uint8_t u8(unsigned o) const { return o < b.size() ? b[o] : 0xff; }
    uint16_t u16(unsigned o) const { return static_cast<uint16_t>(u8(o) | u8(o + 1) << 8); }
    uint32_t u32(unsigned o) const { return u16(o) | static_cast<uint32_t>(u16(o + 2)) << 16; }
};

const char* devsel(uint16_t status) {
    static const char* names[] = {"fast", "medium", "slow", "??"};
    return names[(status >> 9) & 3u];
}

Lines control_status(const Header& h, bool bridge) {
    const uint16_t c = h.u16(4), s = h.u16(6);
    Lines out;
    out.push_back(format("\tControl: I/O%c Mem%c BusMaster%c SpecCycle%c MemWINV%c VGASnoop%c ParErr%c Stepping%c SERR%c "
                      "FastB2B%c DisINTx%c",
                      flag(c, 1), flag(c, 2), flag(c, 4), flag(c, 8), flag(c, 0x10), flag(c, 0x20), flag(c, 0x40),
                      flag(c, 0x80), flag(c, 0x100), flag(c, 0x200), flag(c, 0x400)));
    out.push_back(format("\tStatus: Cap%c 66MHz%c UDF%c FastB2B%c ParErr%c DEVSEL=%s >TAbort%c <TAbort%c <MAbort%c >SERR%c "
                      "<PERR%c INTx%c",
                      flag(s, 0x10), flag(s, 0x20), flag(s, 0x40), flag(s, 0x80), flag(s, 0x100), devsel(s),
                      flag(s, 0x800), flag(s, 0x1000), flag(s, 0x2000), flag(s, 0x4000), flag(s, 0x8000), flag(s, 8)));
    if (c & 4) {
        const uint8_t min_gnt = bridge ? 0 : h.u8(0x3e), max_lat = bridge ? 0 : h.u8(0x3f);
        std::string line = format("\tLatency: %u", h.u8(0x0d));
        if (min_gnt || max_lat) {
            line += " (";
            if (min_gnt)
                line += format("%uns min", min_gnt * 250u);
            if (min_gnt && max_lat)
                line += ", ";
            if (max_lat)
                line += format("%uns max", max_lat * 250u);
            line += ")";
        }
        if (h.u8(0x0c))
            line += format(", Cache Line Size: %u bytes", h.u8(0x0c) * 4u);
        out.push_back(line);
    }
    const uint8_t pin = h.u8(0x3d), irq = h.u8(0x3c);
    if (pin || irq)
        out.push_back(format("\tInterrupt: pin %c routed to IRQ %u", pin ? 'A' + pin - 1 : '?', irq));
    if (h.u8(0x0f) & 0x80)
        out.push_back((h.u8(0x0f) & 0x40) ? std::string("\tBIST is running") : format("\tBIST result: %02x", h.u8(0x0f) & 0x0fu));
    return out;
}

// lspci 3.9 walks every BAR register: libpci gives the full address of a 64-bit BAR on its low
// register and 0 on its high one, which lspci then prints as a register of its own when it is
// non-zero, typed by its own low bits.
void bars(const Header& h, unsigned count, Lines& out) {
    const uint16_t cmd = h.u16(4);
    std::vector<uint64_t> pos(count, 0);
    for (unsigned i = 0; i < count; ++i) {
        const uint32_t low = h.u32(0x10 + 4 * i);
        pos[i] = low == 0xffffffffu ? 0 : low;
        if (!(low & 1) && ((low >> 1) & 3u) == 2 && i + 1 < count && low != 0xffffffffu) {
            pos[i] |= static_cast<uint64_t>(h.u32(0x14 + 4 * i)) << 32;
            ++i;
        }
    }
    for (unsigned i = 0; i < count; ++i) {
        uint32_t flg = h.u32(0x10 + 4 * i);
        if (flg == 0xffffffffu)
            flg = 0;
        if (!pos[i] && !flg)
            continue;
        std::string line = format("\tRegion %u: ", i);
        if (flg & 1) {
            const uint64_t a = pos[i] & ~3ull;
            line += "I/O ports at " + (a || (cmd & 1) ? format("%04" PRIx64, a) : std::string("<unassigned>"));
            if (!(cmd & 1))
                line += " [disabled]";
        } else {
            const uint64_t a = pos[i] & ~0xfull;
            static const char* types[] = {"32-bit", "low-1M", "64-bit", "type 3"};
            line += "Memory at " + (a ? format("%08" PRIx64, a) : std::string("<unassigned>"));
            line += format(" (%s, %sprefetchable)", types[(flg >> 1) & 3u], (flg & 8) ? "" : "non-");
            if (!(cmd & 2))
                line += " [disabled]";
        }
        out.push_back(line);
    }
}

void rom(const Header& h, unsigned reg, Lines& out) {
    const uint32_t r = h.u32(reg);
    if (!r || r == 0xffffffffu)
        return;
    std::string line = "\tExpansion ROM at " + ((r & ~0x7ffu) ? format("%08x", r & ~0x7ffu) : std::string("<unassigned>"));
    if (!(r & 1))
        line += " [disabled]";
    else if (!(h.u16(4) & 2))
        line += " [disabled by cmd]";
    out.push_back(line);
}

std::string size_text(uint64_t size) {
    static const char* suffix[] = {"", "K", "M", "G", "T"};
    unsigned i = 0;
    while (i < 4 && size % 1024 == 0) {
        size /= 1024;
        ++i;
    }
    return format(" [size=%u%s]", static_cast<unsigned>(size), suffix[i]);
}

void window(const char* name, uint64_t base, uint64_t limit, const char* digits, const char* bits, Lines& out) {
    const std::string layout = std::string("\t%s: %") + digits + PRIx64 + "-%" + digits + PRIx64;
    std::string line = format(layout.c_str(), name, base, limit);
    line += base > limit ? std::string(" [disabled]") : size_text(limit - base + 1);
    out.push_back(line + " [" + bits + "]");
}

void bridge(const Header& h, Lines& out) {
    bars(h, 2, out);
    out.push_back(format("\tBus: primary=%02x, secondary=%02x, subordinate=%02x, sec-latency=%u", h.u8(0x18), h.u8(0x19),
                      h.u8(0x1a), h.u8(0x1b)));
    const uint8_t io_b = h.u8(0x1c), io_l = h.u8(0x1d);
    if ((io_b & 0xf) != (io_l & 0xf) || (io_b & 0xf) > 1) {
        out.push_back(format("\t!!! Unknown I/O range types %x/%x", io_b, io_l));
    } else {
        const bool io32 = (io_b & 0xf) == 1;
        uint32_t base = (io_b & 0xf0u) << 8, limit = (io_l & 0xf0u) << 8;
        if (io32) {
            base |= static_cast<uint32_t>(h.u16(0x30)) << 16;
            limit |= static_cast<uint32_t>(h.u16(0x32)) << 16;
        }
        window("I/O behind bridge", base, limit + 0xfffu, io32 ? "08" : "04", io32 ? "32-bit" : "16-bit", out);
    }
    const uint16_t mem_b = h.u16(0x20), mem_l = h.u16(0x22);
    if ((mem_b & 0xf) || (mem_l & 0xf))
        out.push_back(format("\t!!! Unknown memory range types %x/%x", mem_b, mem_l));
    else
        window("Memory behind bridge", (mem_b & 0xfff0u) << 16, ((mem_l & 0xfff0u) << 16) + 0xfffffu, "08", "32-bit", out);
    const uint16_t pf_b = h.u16(0x24), pf_l = h.u16(0x26);
    if ((pf_b & 0xf) != (pf_l & 0xf) || (pf_b & 0xf) > 1) {
        out.push_back(format("\t!!! Unknown prefetchable memory range types %x/%x", pf_b, pf_l));
    } else {
        const bool wide = (pf_b & 0xf) == 1;
        uint64_t base = static_cast<uint64_t>(pf_b & 0xfff0u) << 16, limit = static_cast<uint64_t>(pf_l & 0xfff0u) << 16;
        if (wide) {
            base |= static_cast<uint64_t>(h.u32(0x28)) << 32;
            limit |= static_cast<uint64_t>(h.u32(0x2c)) << 32;
        }
        window("Prefetchable memory behind bridge", base, limit + 0xfffffu, wide ? "016" : "08", wide ? "64-bit" : "32-bit", out);
    }
    const uint16_t s = h.u16(0x1e), c = h.u16(0x3e);
    out.push_back(format("\tSecondary status: 66MHz%c FastB2B%c ParErr%c DEVSEL=%s >TAbort%c <TAbort%c <MAbort%c <SERR%c <PERR%c",
                      flag(s, 0x20), flag(s, 0x80), flag(s, 0x100), devsel(s), flag(s, 0x800), flag(s, 0x1000),
                      flag(s, 0x2000), flag(s, 0x4000), flag(s, 0x8000)));
    rom(h, 0x38, out);
    out.push_back(format("\tBridgeCtl: Parity%c SERR%c NoISA%c VGA%c VGA16%c MAbort%c >Reset%c FastB2B%c", flag(c, 1),
                      flag(c, 2), flag(c, 4), flag(c, 8), flag(c, 0x10), flag(c, 0x20), flag(c, 0x40), flag(c, 0x80)));
    out.push_back(format("\t\tPriDiscTmr%c SecDiscTmr%c DiscTmrStat%c DiscTmrSERREn%c", flag(c, 0x100), flag(c, 0x200),
                      flag(c, 0x400), flag(c, 0x800)));
}

std::string title(const DeviceConfig& d, const PciNames& names) {
    const PciAddress& a = d.address;
    std::string line = a.domain ? format("%04x:", a.domain) : std::string();
    line += format("%02x:%02x.%u %s", a.bus, a.device, a.function, names.title.c_str());
    if (d.header.revision)
        line += format(" (rev %02x)", d.header.revision);
    const unsigned prog_if = d.header.class_code & 0xffu;
    if (prog_if || !names.prog_if.empty())
        line += format(" (prog-if %02x", prog_if) + (names.prog_if.empty() ? "" : " [" + names.prog_if + "]") + ")";
    return line;
}

}  // namespace

Lines format_lspci_function(const DeviceConfig& d) {
    const Header h{d.header_bytes};
    const HeaderInfo& hi = d.header;
    const bool is_bridge = hi.header_type == PCI_HEADER_TYPE_BRIDGE;
    const PciNames names = lookup_names(hi.vendor_id, hi.device_id, hi.class_code, hi.subsystem_vendor_id, hi.subsystem_id);
    Lines out{title(d, names)};
    if (hi.subsystem_vendor_id && hi.subsystem_vendor_id != 0xffff)
        out.push_back("\tSubsystem: " + names.subsystem);
    if (hi.header_type > PCI_HEADER_TYPE_BRIDGE) {
        out.push_back(format("\t!!! Unknown header type %02x", hi.header_type));
        return out;
    }
    for (const std::string& l : control_status(h, is_bridge))
        out.push_back(l);
    if (is_bridge) {
        bridge(h, out);
    } else {
        bars(h, 6, out);
        rom(h, 0x30, out);
    }
    Lines caps = format_capabilities(d);
    // lspci's line where a chain ends irregularly, after the last capability of its list.
    size_t standard_end = 0;
    for (size_t i = 0; i < caps.size(); ++i)
        if (caps[i].rfind("Capabilities: [", 0) == 0 && caps[i].find(' ', 15) > caps[i].find(']'))
            standard_end = i + 1;
    while (standard_end < caps.size() && caps[standard_end].rfind("Capabilities: [", 0) != 0)
        ++standard_end;
    for (const std::string& end : d.caps.lspci_ends)
        if (end.find(" v") < end.find(']'))
            caps.push_back(end);
        else
            caps.insert(caps.begin() + static_cast<long>(standard_end++), end);
    for (const std::string& l : caps)
        out.push_back((l.rfind("Capabilities:", 0) == 0 ? "\t" : "") + l);
    return out;
}

}  // namespace pcie
