#include <cinttypes>
#include <cstdio>

#include "base/format.hpp"
#include "pcie_tools/config_text.hpp"

namespace pcie {
namespace {


using pdt::format;

struct BitName {
    unsigned bit;
    const char* name;
};
constexpr BitName kUncorrectable[] = {
    {4, "DLP"},      {5, "SDES"},     {12, "TLP"},     {13, "FCP"},      {14, "CmpltTO"},      {15, "CmpltAbrt"},
    {16, "UnxCmplt"}, {17, "RxOF"},    {18, "MalfTLP"}, {19, "ECRC"},     {20, "UnsupReq"},     {21, "ACSViol"},
    {22, "UncorrIntErr"}, {23, "BlockedTLP"}, {24, "AtomicOpBlocked"}, {25, "TLPBlockedErr"}, {26, "PoisonTLPBlocked"}};
constexpr BitName kCorrectable[] = {{0, "RxErr"},   {6, "BadTLP"},          {7, "BadDLLP"},     {8, "Rollover"},
                                    {12, "Timeout"}, {13, "AdvNonFatalErr"}, {14, "CorrIntErr"}, {15, "HeaderOF"}};

// The flags lspci 3.9 prints: the first `count` names of the table.
template <size_t N>
std::string flags_line(uint32_t value, const BitName (&names)[N], size_t count) {
    std::string line;
    for (size_t i = 0; i < count && i < N; ++i)
        line += format("%s%s%c", line.empty() ? "" : " ", names[i].name, flag(value, 1u << names[i].bit));
    return line;
}
constexpr size_t kLspciUncorrectable = 12;  // DLP .. ACSViol
constexpr size_t kLspciCorrectable = 6;     // RxErr .. AdvNonFatalErr

template <size_t N>
std::vector<std::string> set_names(uint32_t value, const BitName (&names)[N]) {
    std::vector<std::string> out;
    for (const BitName& b : names)
        if (value & (1u << b.bit))
            out.push_back(b.name);
    return out;
}

}  // namespace

std::vector<std::string> aer_uncorrectable_names(uint32_t value) { return set_names(value, kUncorrectable); }
std::vector<std::string> aer_correctable_names(uint32_t value) { return set_names(value, kCorrectable); }

Lines format_pm(const PmInfo& pm) {
    static const unsigned aux_ma[] = {0, 55, 100, 160, 220, 270, 320, 375};
    const uint16_t c = pm.pmc, s = pm.pmcsr;
    return {format("Capabilities: [%x] Power Management version %u", pm.offset, c & 7u),
            format("\t\tFlags: PMEClk%c DSI%c D1%c D2%c AuxCurrent=%umA PME(D0%c,D1%c,D2%c,D3hot%c,D3cold%c)",
                flag(c, 1u << 3), flag(c, 1u << 5), flag(c, 1u << 9), flag(c, 1u << 10), aux_ma[(c >> 6) & 7],
                flag(c, 1u << 11), flag(c, 1u << 12), flag(c, 1u << 13), flag(c, 1u << 14), flag(c, 1u << 15)),
            format("\t\tStatus: D%u NoSoftRst%c PME-Enable%c DSel=%u DScale=%u PME%c", s & 3u, flag(s, 1u << 3),
                flag(s, 1u << 8), (s >> 9) & 15u, (s >> 13) & 3u, flag(s, 1u << 15))};
}

Lines format_msi(const MsiInfo& msi) {
    const uint16_t f = msi.flags;
    Lines out = {format("Capabilities: [%x] MSI: Enable%c Count=%u/%u Maskable%c 64bit%c", msi.offset,
                flag(f, PCI_MSI_FLAGS_ENABLE), 1u << ((f >> 4) & 7), 1u << ((f >> 1) & 7),
                flag(f, PCI_MSI_FLAGS_MASKBIT), flag(f, PCI_MSI_FLAGS_64BIT)),
            (f & PCI_MSI_FLAGS_64BIT ? format("\t\tAddress: %016" PRIx64, msi.address)
                                      : format("\t\tAddress: %08x", static_cast<uint32_t>(msi.address))) +
                format("  Data: %04x", msi.data)};
    if (f & PCI_MSI_FLAGS_MASKBIT)
        out.push_back(format("\t\tMasking: %08x  Pending: %08x", msi.mask, msi.pending));
    return out;
}

Lines format_msix(const MsixInfo& x) {
    return {format("Capabilities: [%x] MSI-X: Enable%c Count=%u Masked%c", x.offset, flag(x.flags, PCI_MSIX_FLAGS_ENABLE),
                (x.flags & PCI_MSIX_FLAGS_QSIZE) + 1u, flag(x.flags, PCI_MSIX_FLAGS_MASKALL)),
            format("\t\tVector table: BAR=%u offset=%08x", x.table & 7u, x.table & ~7u),
            format("\t\tPBA: BAR=%u offset=%08x", x.pba & 7u, x.pba & ~7u)};
}

Lines format_aer(const AerInfo& a, bool root_port) {
    (void)root_port;
    const uint32_t c = a.cap_control;
    Lines out = {format("Capabilities: [%x v%u] Advanced Error Reporting", a.offset, a.version),
                 "\t\tUESta:\t" + flags_line(a.uncor_status, kUncorrectable, kLspciUncorrectable),
                 "\t\tUEMsk:\t" + flags_line(a.uncor_mask, kUncorrectable, kLspciUncorrectable),
                 "\t\tUESvrt:\t" + flags_line(a.uncor_sever, kUncorrectable, kLspciUncorrectable),
                 "\t\tCESta:\t" + flags_line(a.cor_status, kCorrectable, kLspciCorrectable),
                 "\t\tCEMsk:\t" + flags_line(a.cor_mask, kCorrectable, kLspciCorrectable),
                 format("\t\tAERCap:\tFirst Error Pointer: %02x, ECRCGenCap%c ECRCGenEn%c ECRCChkCap%c ECRCChkEn%c",
                     c & 0x1fu, flag(c, 1u << 5), flag(c, 1u << 6), flag(c, 1u << 7), flag(c, 1u << 8)),
                 format("\t\t\tMultHdrRecCap%c MultHdrRecEn%c TLPPfxPres%c HdrLogCap%c", flag(c, 1u << 9),
                     flag(c, 1u << 10), flag(c, 1u << 11), flag(c, 1u << 12)),
                 format("\t\tHeaderLog: %08x %08x %08x %08x", a.header_log[0], a.header_log[1], a.header_log[2],
                     a.header_log[3])};
    if (!a.root)
        return out;
    const uint32_t cmd = a.root_command, s = a.root_status;
    out.push_back(format("\t\tRootCmd: CERptEn%c NFERptEn%c FERptEn%c", flag(cmd, 1), flag(cmd, 2), flag(cmd, 4)));
    out.push_back(format("\t\tRootSta: CERcvd%c MultCERcvd%c UERcvd%c MultUERcvd%c", flag(s, 1), flag(s, 2), flag(s, 4),
                      flag(s, 8)));
    out.push_back(format("\t\t\t FirstFatal%c NonFatalMsg%c FatalMsg%c IntMsg %u", flag(s, 0x10), flag(s, 0x20),
                      flag(s, 0x40), s >> 27));
    out.push_back(format("\t\tErrorSrc: ERR_COR: %04x ERR_FATAL/NONFATAL: %04x", a.cor_source, a.uncor_source));
    return out;
}

std::string format_dsn(const DsnInfo& d) {
    std::string text = format("Capabilities: [%x v1] Device Serial Number ", d.offset);
    for (int i = 7; i >= 0; --i)
        text += format(i ? "%02x-" : "%02x", static_cast<unsigned>((d.serial >> (8 * i)) & 0xff));
    return text;
}

Lines format_header(const DeviceConfig& d, const SystemInfo& info) {
    const HeaderInfo& h = d.header;
    Lines out;
    out.push_back(format("domain=%04x bus=%02x dev=%02x func=%02x rev=%02x", d.address.domain, d.address.bus,
                      d.address.device, d.address.function, h.revision));
    std::string ids = format("  vendor_id=%04x (%s) device_id=%04x (%s)", h.vendor_id,
                          name_or(info.vendor_name, "Vendor", h.vendor_id).c_str(), h.device_id,
                          name_or(info.device_name, "Device", h.device_id).c_str());
    if (h.header_type == PCI_HEADER_TYPE_NORMAL)
        ids += format(" subvendor_id=%04x subdevice_id=%04x", h.subsystem_vendor_id, h.subsystem_id);
    out.push_back(ids);
    if (info.iommu_group >= 0)
        out.push_back(format("  iommu_group=%d", info.iommu_group));
    if (!info.driver.empty())
        out.push_back("  driver=" + info.driver);
    if (!info.module.empty())
        out.push_back("  module=" + info.module);
    if (!info.physical_slot.empty())
        out.push_back("  physical_slot=" + info.physical_slot);
    if (info.numa_node >= 0)
        out.push_back(format("  numa_node=%d", info.numa_node));
    const uint16_t c = h.command, s = h.status;
    out.push_back(format("  control: I/O%c Mem%c BusMaster%c ParErr%c SERR%c DisINTx%c", flag(c, PCI_COMMAND_IO),
                      flag(c, PCI_COMMAND_MEMORY), flag(c, PCI_COMMAND_MASTER), flag(c, PCI_COMMAND_PARITY),
                      flag(c, PCI_COMMAND_SERR), flag(c, PCI_COMMAND_INTX_DISABLE)));
    out.push_back(format("  status: INTx%c <ParErr%c >TAbort%c <TAbort%c <MAbort%c >SERR%c DetParErr%c",
                      flag(s, PCI_STATUS_INTERRUPT), flag(s, PCI_STATUS_PARITY), flag(s, PCI_STATUS_SIG_TARGET_ABORT),
                      flag(s, PCI_STATUS_REC_TARGET_ABORT), flag(s, PCI_STATUS_REC_MASTER_ABORT),
                      flag(s, PCI_STATUS_SIG_SYSTEM_ERROR), flag(s, PCI_STATUS_DETECTED_PARITY)));
    if (h.header_type == PCI_HEADER_TYPE_BRIDGE)
        out.push_back(format("  bus: primary=%02x secondary=%02x subordinate=%02x", h.primary_bus, h.secondary_bus,
                          h.subordinate_bus));
    for (const BarInfo& b : h.bars) {
        const auto size = b.size ? b.size : info.bar_size[b.index];
        if (size && *size == 0)
            continue;
        const std::string flags = format("is_IO=%d is_prefetchable=%d is_64=%d", b.io, b.prefetchable, b.is_64);
        out.push_back(size ? format("  bar[%u] base_addr=%" PRIx64 " size=%" PRIx64 " %s", b.index, b.base, *size,
                                    flags.c_str())
                           : format("  bar[%u] base_addr=%" PRIx64 " %s (size not known to this access)", b.index,
                                    b.base, flags.c_str()));
    }
    return out;
}

static const CapSection* find_section(const DeviceConfig& d, const Capability& c) {
    for (const CapSection& s : d.sections)
        if (s.cap.offset == c.offset && s.cap.extended == c.extended)
            return &s;
    return nullptr;
}

Lines format_device(ConfigSpace& space, const DeviceConfig& d, const SystemInfo& info) {
    Lines out = format_header(d, info);
    const Lines caps = format_fpga_sio_capabilities(space);
    out.insert(out.end(), caps.begin(), caps.end());
    for (const std::string& p : d.problems)
        out.push_back("  Warning: " + p);
    return out;
}

Lines format_capabilities(const DeviceConfig& d) {
    Lines out;
    auto append = [&out](const Lines& more) { out.insert(out.end(), more.begin(), more.end()); };
    for (const Capability& c : d.caps.standard) {
        if (c.id == PCI_CAP_ID_PM && d.pm && d.pm->offset == c.offset)
            append(format_pm(*d.pm));
        else if (c.id == PCI_CAP_ID_MSI && d.msi && d.msi->offset == c.offset)
            append(format_msi(*d.msi));
        else if (c.id == PCI_CAP_ID_MSIX && d.msix && d.msix->offset == c.offset)
            append(format_msix(*d.msix));
        else if (c.id == PCI_CAP_ID_EXP && d.express && d.express->offset == c.offset)
            append(format_express(*d.express));
        else if (c.id == PCI_CAP_ID_EXP && d.express_truncated && d.express_truncated->offset == c.offset)
            out.push_back(format_express_head(*d.express_truncated));
        else if (const CapSection* s = find_section(d, c))
            append(s->lines());
        else if (const char* name = capability_name(static_cast<uint8_t>(c.id)))
            out.push_back(format("Capabilities: [%x] %s", c.offset, name));
        else
            out.push_back(format("Capabilities: [%x] Unknown capability ID %02x", c.offset, c.id));
    }
    const bool root = d.express && (d.express->type() == reg::PortType::RootPort ||
                                    d.express->type() == reg::PortType::RcEventCollector);
    for (const Capability& c : d.caps.extended) {
        if (c.id == PCI_EXT_CAP_ID_ERR && d.aer && d.aer->offset == c.offset)
            append(format_aer(*d.aer, root));
        else if (c.id == PCI_EXT_CAP_ID_DSN && d.dsn && d.dsn->offset == c.offset)
            out.push_back(format_dsn(*d.dsn));
        else if (const CapSection* s = find_section(d, c))
            append(s->lines());
        else if (const char* name = extended_capability_name(c.id))
            out.push_back(format("Capabilities: [%x v%u] %s", c.offset, c.version, name));
        else
            out.push_back(format("Capabilities: [%x v%u] Unknown extended capability ID %04x", c.offset, c.version, c.id));
    }
    return out;
}

}  // namespace pcie
