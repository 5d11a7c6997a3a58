// fpga_sio's dump_pci_info text for one function's capabilities (its display_pci_capabilities
// and the decoders it calls: Power Management, PCI Express, the extended capabilities' titles
// and the Device Serial Number), read from the config space as that program reads it and laid
// out with its printf formats: two spaces before "Capabilities:", four before a register line,
// its own names ("PCI Express", "Message Signaled Interrupts") and "Unknown encoding 0x%x" for
// a value its tables do not name. Like fpga_sio, a list that loops stops at the first place
// (standard) or capability ID (extended) seen twice, and a read that fails ends the text with
// "  PCI configuration read failed" on the line it interrupted.
#include <cstdio>
#include <set>

#include "base/format.hpp"
#include "pcie_tools/config_text.hpp"
#include "pcie_tools/registers.hpp"

namespace pcie {
namespace {

using pdt::format;

// The value of the field `mask` selects (fpga_sio's vfio_extract_field_u32).
uint32_t field(uint32_t value, uint32_t mask) { return (value & mask) >> __builtin_ctz(mask); }

// " name+" or " name-" (fpga_sio's display_flag), or with another prefix.
std::string flag_text(const char* name, uint32_t value, uint32_t mask, const char* prefix = " ") {
    return format("%s%s%s", prefix, name, (value & mask) ? "+" : "-");
}

// A name from a table indexed by value; null entries and values past the end are not named.
template <size_t N>
std::string named(const char* const (&names)[N], uint32_t value) {
    if (value < N && names[value] != nullptr)
        return names[value];
    return format("Unknown encoding 0x%x", value);
}

const char* const kCapabilityNames[] = {
    "Null Capability", "Power Management", "Accelerated Graphics Port", "Vital Product Data",
    "Slot Identification", "Message Signaled Interrupts", "CompactPCI HotSwap", "PCI-X", "HyperTransport",
    "Vendor specific", "Debug port", "CompactPCI Central Resource Control", "PCI hot-plug",
    "Bridge subsystem vendor/device ID", "AGP 8x", "Secure device (?)", "PCI Express", "MSI-X", "Serial-ATA HBA",
    "Advanced features of PCI devices integrated in PCIe root cplx", "Enhanced Allocation"};

const char* const kExtendedNames[] = {
    nullptr, "Advanced Error Reporting", "Virtual Channel Capability", "Device Serial Number", "Power Budgeting",
    "Root Complex Link Declaration", "Root Complex Internal Link Control", "Root Complex Event Collector",
    "Multi-Function VC Capability", "Virtual Channel Capability", "Root Complex Register Block", "Vendor-Specific",
    "Config Access - obsolete", "Access Control Services", "Alternate Routing ID", "Address Translation Services",
    "Single Root I/O Virtualization", "Multi Root I/O Virtualization", "Multicast", "Page Request Interface",
    "Reserved for AMD", "Resizable BAR", "Dynamic Power Allocation", "TPH Requester", "Latency Tolerance Reporting",
    "Secondary PCIe Capability", "Protocol Multiplexing", "Process Address Space ID", nullptr,
    "Downstream Port Containment", "L1 PM Substates", "Precision Time Measurement", nullptr, nullptr, nullptr,
    "Designated Vendor-Specific", nullptr, "Data Link Feature", "Physical Layer 16.0 GT/s",
    "Lane Margining at Receiver", nullptr, nullptr, "Physical Layer 32.0 GT/s", "Alternate Protocol", nullptr,
    nullptr, "Data Object Exchange"};

const char* const kPortTypes[] = {"Express Endpoint", "Legacy Endpoint", nullptr, nullptr, "Root Port",
                                  "Upstream Port", "Downstream Port", "PCIe to PCI/PCI-X Bridge",
                                  "PCI/PCI-X to PCIe Bridge", "Root Complex Integrated Endpoint",
                                  "Root Complex Event Collector"};
const char* const kLinkSpeeds[] = {nullptr, "2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s", "32 GT/s", "64 GT/s"};
const char* const kPayloads[] = {"128 bytes", "256 bytes", "512 bytes", "1024 bytes", "2048 bytes", "4096 bytes"};
const char* const kAspm[] = {"not supported", "L0s", "L1", "L0s and L1"};
const char* const kL0sExit[] = {"Less than 64 ns", "64 ns to less than 128 ns", "128 ns to less than 256 ns",
                                "256 ns to less than 512 ns", "512 ns to less than 1 μs", "1 μs to less than 2 μs",
                                "2 μs to 4 μs", "More than 4 μs"};
const char* const kL1Exit[] = {"Less than 1 μs", "1 μs to less than 2 μs", "2 μs to less than 4 μs",
                               "4 μs to less than 8 μs", "8 μs to less than 16 μs", "16 μs to less than 32 μs",
                               "32 μs to 64 μs", "More than 64 μs"};
const char* const kL0sAcceptable[] = {"Maximum of 64 ns", "Maximum of 128 ns", "Maximum of 256 ns",
                                      "Maximum of 512 ns", "Maximum of 1 μs", "Maximum of 2 μs",
                                      "Maximum of 4 μs", "No limit"};
const char* const kL1Acceptable[] = {"Maximum of 1 μs", "Maximum of 2 μs", "Maximum of 4 μs", "Maximum of 8 μs",
                                     "Maximum of 16 μs", "Maximum of 32 μs", "Maximum of 64 μs", "No limit"};
const char* const kAspmControl[] = {"Disabled", "L0s Entry Enabled", "L1 Entry Enabled", "L0s and L1 Entry Enabled"};
const char* const kAuxCurrent[] = {"0mA", "55mA", "100mA", "160mA", "220mA", "270mA", "320mA", "375mA"};

// A slot power limit in watts, "%.3fW" (PCIe Base 7.5.3.9: scale 0 values above EFh are 250,
// 275 and 300 W).
std::string power_limit(uint32_t value, uint32_t value_mask, uint32_t scale_mask) {
    static const double kScales[] = {1.0, 0.1, 0.01, 0.001};
    const uint32_t v = field(value, value_mask), scale = field(value, scale_mask);
    double watts = v * kScales[scale];
    if (scale == 0 && v > 0xef)
        watts = v == 0xf0 ? 250 : v == 0xf1 ? 275 : 300;
    return format("%.3fW", watts);
}

// Lines being written; `open` is the line not ended yet.
struct Printed {
    Lines lines;
    std::string open;
    void end(std::string tail = {}) {
        lines.push_back(open + tail);
        open.clear();
    }
};

// The registers fpga_sio's PCI Express decoder reads, all before it prints a line.
struct ExpressRegisters {
    uint16_t flags, devctl, devsta, lnkctl, lnksta;
    uint32_t devcap, lnkcap, lnkcap2, sltcap;
};

Result<ExpressRegisters> read_express_registers(ConfigSpace& space, uint32_t cap) {
    ExpressRegisters r{};
    r.flags = PDT_TRY(space.read16(cap + PCI_EXP_FLAGS));
    r.devcap = PDT_TRY(space.read32(cap + PCI_EXP_DEVCAP));
    r.devctl = PDT_TRY(space.read16(cap + PCI_EXP_DEVCTL));
    r.devsta = PDT_TRY(space.read16(cap + PCI_EXP_DEVSTA));
    r.lnkcap = PDT_TRY(space.read32(cap + PCI_EXP_LNKCAP));
    r.lnkctl = PDT_TRY(space.read16(cap + PCI_EXP_LNKCTL));
    r.lnksta = PDT_TRY(space.read16(cap + PCI_EXP_LNKSTA));
    r.lnkcap2 = PDT_TRY(space.read32(cap + PCI_EXP_LNKCAP2));
    r.sltcap = PDT_TRY(space.read32(cap + PCI_EXP_SLTCAP));
    return r;
}

void express_link_lines(const ExpressRegisters& r, Printed& t) {
    t.end(" v" + std::to_string(field(r.flags, PCI_EXP_FLAGS_VERS)) + " " +
          named(kPortTypes, field(r.flags, PCI_EXP_FLAGS_TYPE)) + format(", MSI %u", field(r.flags, PCI_EXP_FLAGS_IRQ)));
    t.lines.push_back("    Link capabilities: Max speed " + named(kLinkSpeeds, field(r.lnkcap, PCI_EXP_LNKCAP_SLS)) +
                      format(" Max width x%u", field(r.lnkcap, PCI_EXP_LNKCAP_MLW)));
    t.lines.push_back("    Negotiated link status: Current speed " +
                      named(kLinkSpeeds, field(r.lnksta, PCI_EXP_LNKSTA_CLS)) +
                      format(" Width x%u", field(r.lnksta, PCI_EXP_LNKSTA_NLW)));
    std::string speeds = "    Link capabilities2: ";
    if (r.lnkcap2 == 0) {
        speeds += "Not implemented";
    } else {
        static const char* const kSupported[] = {" 2.5 GT/s", " 5.0 GT/s", " 8.0 GT/s", " 16.0 GT/s"};
        speeds += "Supported link speeds";
        for (unsigned bit = 0; bit < 4; ++bit)
            if (field(r.lnkcap2, reg::EXP_LNKCAP2_SLS) & (1u << bit))
                speeds += kSupported[bit];
    }
    t.lines.push_back(speeds);
}

void express_device_lines(const ExpressRegisters& r, Printed& t) {
    const uint32_t cap = r.devcap, ctl = r.devctl, sta = r.devsta;
    t.lines.push_back("    DevCap: MaxPayload " + named(kPayloads, field(cap, PCI_EXP_DEVCAP_PAYLOAD)) +
                      format(" PhantFunc %u", field(cap, PCI_EXP_DEVCAP_PHANTOM)) + " Latency L0s " +
                      named(kL0sAcceptable, field(cap, PCI_EXP_DEVCAP_L0S)) + " L1 " +
                      named(kL1Acceptable, field(cap, PCI_EXP_DEVCAP_L1)));
    t.lines.push_back("           " + flag_text("ExtTag", cap, PCI_EXP_DEVCAP_EXT_TAG) +
                      flag_text("AttnBtn", cap, PCI_EXP_DEVCAP_ATN_BUT) + flag_text("AttnInd", cap, PCI_EXP_DEVCAP_ATN_IND) +
                      flag_text("PwrInd", cap, PCI_EXP_DEVCAP_PWR_IND) + flag_text("RBE", cap, PCI_EXP_DEVCAP_RBER) +
                      flag_text("FLReset", cap, PCI_EXP_DEVCAP_FLR) + " SlotPowerLimit " +
                      power_limit(cap, PCI_EXP_DEVCAP_PWR_VAL, PCI_EXP_DEVCAP_PWR_SCL));
    t.lines.push_back("    DevCtl:" + flag_text("CorrErr", ctl, PCI_EXP_DEVCTL_CERE) +
                      flag_text("NonFatalErr", ctl, PCI_EXP_DEVCTL_NFERE) + flag_text("FatalErr", ctl, PCI_EXP_DEVCTL_FERE) +
                      flag_text("UnsupReq", ctl, PCI_EXP_DEVCTL_URRE));
    t.lines.push_back("           " + flag_text("RlxdOrd", ctl, PCI_EXP_DEVCTL_RELAX_EN) +
                      flag_text("ExtTag", ctl, PCI_EXP_DEVCTL_EXT_TAG) + flag_text("PhantFunc", ctl, PCI_EXP_DEVCTL_PHANTOM) +
                      flag_text("AuxPwr", ctl, PCI_EXP_DEVCTL_AUX_PME) + flag_text("NoSnoop", ctl, PCI_EXP_DEVCTL_NOSNOOP_EN));
    t.lines.push_back("    DevSta:" + flag_text("CorrErr", sta, PCI_EXP_DEVSTA_CED) +
                      flag_text("NonFatalErr", sta, PCI_EXP_DEVSTA_NFED) + flag_text("FatalErr", sta, PCI_EXP_DEVSTA_FED) +
                      flag_text("UnsupReq", sta, PCI_EXP_DEVSTA_URD) + flag_text("AuxPwr", sta, PCI_EXP_DEVSTA_AUXPD) +
                      flag_text("TransPend", sta, PCI_EXP_DEVSTA_TRPND));
}

void express_port_lines(const ExpressRegisters& r, Printed& t) {
    const uint32_t cap = r.lnkcap, ctl = r.lnkctl, sta = r.lnksta;
    t.lines.push_back(format("    LnkCap: Port # %u ASPM ", field(cap, PCI_EXP_LNKCAP_PN)) +
                      named(kAspm, field(cap, PCI_EXP_LNKCAP_ASPMS)));
    t.lines.push_back("            L0s Exit Latency " + named(kL0sExit, field(cap, PCI_EXP_LNKCAP_L0SEL)));
    t.lines.push_back("            L1 Exit Latency " + named(kL1Exit, field(cap, PCI_EXP_LNKCAP_L1EL)));
    t.lines.push_back("           " + flag_text("ClockPM", cap, PCI_EXP_LNKCAP_CLKPM) +
                      flag_text("Surprise", cap, PCI_EXP_LNKCAP_SDERC) + flag_text("LLActRep", cap, PCI_EXP_LNKCAP_DLLLARC) +
                      flag_text("BwNot", cap, PCI_EXP_LNKCAP_LBNC) + flag_text("ASPMOptComp", cap, 1u << 22));
    t.lines.push_back("    LnkCtl: ASPM " + named(kAspmControl, field(ctl, PCI_EXP_LNKCTL_ASPMC)) +
                      format(" RCB %u bytes", (ctl & PCI_EXP_LNKCTL_RCB) ? 128 : 64) +
                      flag_text("Disabled", ctl, PCI_EXP_LNKCTL_LD) + flag_text("CommClk", ctl, PCI_EXP_LNKCTL_CCC));
    t.lines.push_back("           " + flag_text("ExtSynch", ctl, PCI_EXP_LNKCTL_ES) +
                      flag_text("ClockPM", ctl, PCI_EXP_LNKCTL_CLKREQ_EN) + flag_text("AutWidDis", ctl, PCI_EXP_LNKCTL_HAWD) +
                      flag_text("BWInt", ctl, PCI_EXP_LNKCTL_LBMIE) + flag_text("ABWMgmt", ctl, PCI_EXP_LNKCTL_LABIE));
    t.lines.push_back("    LnkSta:" + flag_text("TrErr", sta, 1u << 10) + flag_text("Train", sta, PCI_EXP_LNKSTA_LT) +
                      flag_text("SlotClk", sta, PCI_EXP_LNKSTA_SLC) + flag_text("DLActive", sta, PCI_EXP_LNKSTA_DLLLA) +
                      flag_text("BWMgmt", sta, PCI_EXP_LNKSTA_LBMS) + flag_text("ABWMgmt", sta, PCI_EXP_LNKSTA_LABS));
    if (!(r.flags & PCI_EXP_FLAGS_SLOT))
        return;
    const uint32_t slot = r.sltcap;
    t.lines.push_back("    SltCap:" + flag_text("AttnBtn", slot, PCI_EXP_SLTCAP_ABP) +
                      flag_text("PwrCtrl", slot, PCI_EXP_SLTCAP_PCP) + flag_text("MRL", slot, PCI_EXP_SLTCAP_MRLSP) +
                      flag_text("AttnInd", slot, PCI_EXP_SLTCAP_AIP) + flag_text("PwrInd", slot, PCI_EXP_SLTCAP_PIP) +
                      flag_text("HotPlug", slot, PCI_EXP_SLTCAP_HPC) + flag_text("Surprise", slot, PCI_EXP_SLTCAP_HPS));
    t.lines.push_back(format("            Slot #%u PowerLimit ", field(slot, PCI_EXP_SLTCAP_PSN)) +
                      power_limit(slot, PCI_EXP_SLTCAP_SPLV, PCI_EXP_SLTCAP_SPLS) +
                      flag_text("Interlock", slot, PCI_EXP_SLTCAP_EIP) + flag_text("NoCompl", slot, PCI_EXP_SLTCAP_NCCS));
}

Result<void> express_lines(ConfigSpace& space, uint32_t cap, Printed& t) {
    const ExpressRegisters r = PDT_TRY(read_express_registers(space, cap));
    express_link_lines(r, t);
    express_device_lines(r, t);
    express_port_lines(r, t);
    return {};
}

Result<void> power_management_lines(ConfigSpace& space, uint32_t cap, Printed& t) {
    const uint16_t pmc = PDT_TRY(space.read16(cap + PCI_PM_PMC));
    const uint16_t ctl = PDT_TRY(space.read16(cap + PCI_PM_CTRL));
    t.end(format(" version %u", field(pmc, PCI_PM_CAP_VER_MASK)));
    t.lines.push_back("    Flags:" + flag_text("PMEClk", pmc, PCI_PM_CAP_PME_CLOCK) + flag_text("DSI", pmc, PCI_PM_CAP_DSI) +
                      flag_text("D1", pmc, PCI_PM_CAP_D1) + flag_text("D2", pmc, PCI_PM_CAP_D2) + " AuxCurrent=" +
                      named(kAuxCurrent, field(pmc, PCI_PM_CAP_AUX_POWER)) +
                      flag_text("D0", pmc, PCI_PM_CAP_PME_D0, " PME(") + flag_text("D1", pmc, PCI_PM_CAP_PME_D1, ",") +
                      flag_text("D2", pmc, PCI_PM_CAP_PME_D2, ",") + flag_text("D3hot", pmc, PCI_PM_CAP_PME_D3hot, ",") +
                      flag_text("D3cold", pmc, PCI_PM_CAP_PME_D3cold, ",") + ")");
    t.lines.push_back(format("    Status: D%u", field(ctl, PCI_PM_CTRL_STATE_MASK)) +
                      flag_text("NoSoftRst", ctl, PCI_PM_CTRL_NO_SOFT_RESET) +
                      flag_text("PME-Enable", ctl, PCI_PM_CTRL_PME_ENABLE) +
                      format(" DSel=%u DScale=%u", field(ctl, PCI_PM_CTRL_DATA_SEL_MASK),
                             field(ctl, PCI_PM_CTRL_DATA_SCALE_MASK)) +
                      flag_text("PME", ctl, PCI_PM_CTRL_PME_STATUS));
    return {};
}

Result<void> standard_lines(ConfigSpace& space, Printed& t) {
    std::set<uint8_t> seen;
    uint8_t pointer = PDT_TRY(space.read8(PCI_CAPABILITY_LIST));
    while (pointer != 0 && seen.insert(pointer).second) {
        const uint8_t id = PDT_TRY(space.read8(pointer + PCI_CAP_LIST_ID));
        t.open = format("  Capabilities: [%x] ", pointer) + named(kCapabilityNames, id);
        if (id == PCI_CAP_ID_PM)
            PDT_CHECK(power_management_lines(space, pointer, t));
        else if (id == PCI_CAP_ID_EXP)
            PDT_CHECK(express_lines(space, pointer, t));
        else
            t.end();
        pointer = PDT_TRY(space.read8(pointer + PCI_CAP_LIST_NEXT));
    }
    return {};
}

// The Device Serial Number, most significant byte first, "-" between bytes; a byte that does
// not read ends the line where it stands.
Result<void> serial_number(ConfigSpace& space, uint32_t offset, Printed& t) {
    for (uint32_t byte = PCI_EXT_CAP_DSN_SIZEOF - 1; byte >= 4; --byte) {
        auto value = space.read8(offset + byte);
        if (!value) {
            t.end();
            return value.error();
        }
        t.open += format("%s%02x", byte == PCI_EXT_CAP_DSN_SIZEOF - 1 ? " " : "-", *value);
    }
    return {};
}

Result<void> extended_lines(ConfigSpace& space, Printed& t) {
    std::set<uint32_t> seen;
    uint32_t offset = 0x100;
    uint32_t header = PDT_TRY(space.read32(offset));
    while (!seen.count(PCI_EXT_CAP_ID(header)) && offset != 0 && PCI_EXT_CAP_ID(header) != 0) {
        t.open = format("  Capabilities: [%x v%u] ", offset, PCI_EXT_CAP_VER(header)) +
                 named(kExtendedNames, PCI_EXT_CAP_ID(header));
        if (PCI_EXT_CAP_ID(header) == PCI_EXT_CAP_ID_DSN)
            PDT_CHECK(serial_number(space, offset, t));
        t.end();
        seen.insert(PCI_EXT_CAP_ID(header));
        offset = PCI_EXT_CAP_NEXT(header);
        header = PDT_TRY(space.read32(offset));
    }
    return {};
}

Result<void> capability_lines(ConfigSpace& space, Printed& t) {
    const uint16_t status = PDT_TRY(space.read16(PCI_STATUS));
    if (!(status & PCI_STATUS_CAP_LIST))
        return {};
    PDT_CHECK(standard_lines(space, t));
    // The extended list only where its first header reads, and as something.
    if (auto first = space.read32(0x100); first && *first != 0xffffffffu)
        PDT_CHECK(extended_lines(space, t));
    return {};
}

}  // namespace

Lines format_fpga_sio_capabilities(ConfigSpace& space) {
    Printed t;
    if (!capability_lines(space, t).ok())
        t.end("  PCI configuration read failed");
    return t.lines;
}

}  // namespace pcie
