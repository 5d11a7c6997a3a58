// lspci-style text for the PCI Express capability.
#include <algorithm>
#include <cstdio>

#include "base/format.hpp"
#include "pcie_tools/config_text.hpp"

namespace pcie {
namespace {

using reg::PortType;


using pdt::format;

const char* latency_l0s(unsigned code) {
    static const char* names[] = {"<64ns", "<128ns", "<256ns", "<512ns", "<1us", "<2us", "<4us", "unlimited"};
    return names[code & 7];
}
const char* latency_l1(unsigned code) {
    static const char* names[] = {"<1us", "<2us", "<4us", "<8us", "<16us", "<32us", "<64us", "unlimited"};
    return names[code & 7];
}

std::string power_limit(unsigned value, unsigned scale) {
    static const double scales[] = {1.0, 0.1, 0.01, 0.001};
    if (scale == 0 && value >= 0xf0)  // F0h = 250 W, then 25 W a step (PCIe 6.0)
        return std::to_string(250 + 25 * (value - 0xf0)) + "W";
    return format("%gW", value * scales[scale & 3]);
}

const char* aspm_support(unsigned code) {
    static const char* names[] = {"not supported", "L0s", "L1", "L0s L1"};
    return names[code & 3];
}
const char* aspm_enabled(unsigned code) {
    static const char* names[] = {"Disabled", "L0s Enabled", "L1 Enabled", "L0s L1 Enabled"};
    return names[code & 3];
}

// lspci's marks: "(overdriven)" on any port type, "(downgraded)" only on the upstream side of
// a link (a downstream port's own LnkCap says nothing about its partner).
std::string link_compare(uint8_t status, uint8_t capable, bool downstream_side) {
    if (status > capable)
        return " (overdriven)";
    if (status < capable && !downstream_side)
        return " (downgraded)";
    return "";
}

// "2.5-16GT/s" for a contiguous vector from 2.5 GT/s, else the speeds listed.
std::string supported_speeds(uint32_t vector) {
    uint8_t high = 0;
    for (uint8_t s = 1; s < 8; ++s)
        if (vector & (1u << s))
            high = s;
    if (high == 0)
        return "none";
    if (vector == (((1u << (high + 1)) - 1) & ~1u))
        return high == 1 ? "2.5GT/s" : "2.5-" + speed_name_lspci(high);
    std::string list;
    for (uint8_t s = 1; s < 8; ++s)
        if (vector & (1u << s))
            list += (list.empty() ? "" : " ") + speed_name_lspci(s);
    return list;
}

const char* completion_timeout_range(unsigned code) {
    static const char* names[] = {"Not Supported", "Range A", "Range B", "Range AB", "Range C", "Range AC",
                                  "Range BC", "Range ABC", "Range D", "Range AD", "Range BD", "Range ABD",
                                  "Range CD", "Range ACD", "Range BCD", "Range ABCD"};
    return names[code & 0xf];
}
const char* completion_timeout_value(unsigned code) {
    switch (code & 0xf) {
        case 0x0: return "50us to 50ms";
        case 0x1: return "50us to 100us";
        case 0x2: return "1ms to 10ms";
        case 0x5: return "16ms to 55ms";
        case 0x6: return "65ms to 210ms";
        case 0x9: return "260ms to 900ms";
        case 0xa: return "1s to 3.5s";
        case 0xd: return "4s to 13s";
        case 0xe: return "17s to 64s";
        default: return "Unknown";
    }
}

void dev_lines(const ExpressInfo& e, Lines& out) {
    const PortType t = e.type();
    const bool endpoint = t == PortType::Endpoint || t == PortType::LegacyEndpoint;
    const uint32_t c = e.devcap;
    std::string line = format("\t\tDevCap:\tMaxPayload %u bytes, PhantFunc %u", 128u << (c & 7), (1u << ((c >> 3) & 3)) - 1);
    if (endpoint)
        line += format(", Latency L0s %s, L1 %s", latency_l0s(c >> 6), latency_l1(c >> 9));
    out.push_back(line);
    line = format("\t\t\tExtTag%c", flag(c, 1u << 5));
    if (endpoint || t == PortType::Upstream || t == PortType::PciBridge)
        line += format(" AttnBtn%c AttnInd%c PwrInd%c", flag(c, 1u << 12), flag(c, 1u << 13), flag(c, 1u << 14));
    line += format(" RBE%c", flag(c, 1u << 15));
    const bool flr_type = endpoint || t == PortType::RcIntegratedEndpoint;
    if (flr_type)
        line += format(" FLReset%c", flag(c, 1u << 28));
    if (t == PortType::Endpoint || t == PortType::Upstream || t == PortType::PciBridge)
        line += " SlotPowerLimit " + power_limit((c >> 18) & 0xff, (c >> 26) & 3);
    out.push_back(line);

    const uint16_t w = e.devctl;
    out.push_back(format("\t\tDevCtl:\tCorrErr%c NonFatalErr%c FatalErr%c UnsupReq%c", flag(w, 1), flag(w, 2), flag(w, 4),
                      flag(w, 8)));
    line = format("\t\t\tRlxdOrd%c ExtTag%c PhantFunc%c AuxPwr%c NoSnoop%c", flag(w, 1u << 4), flag(w, 1u << 8),
               flag(w, 1u << 9), flag(w, 1u << 10), flag(w, 1u << 11));
    if (t == PortType::PciBridge)
        line += format(" BrConfRtry%c", flag(w, 1u << 15));
    else if (flr_type && (c & (1u << 28)))
        line += format(" FLReset%c", flag(w, 1u << 15));
    out.push_back(line);
    out.push_back(format("\t\t\tMaxPayload %u bytes, MaxReadReq %u bytes", e.max_payload(), e.max_read_request()));
    const uint16_t s = e.devsta;
    out.push_back(format("\t\tDevSta:\tCorrErr%c NonFatalErr%c FatalErr%c UnsupReq%c AuxPwr%c TransPend%c", flag(s, 1),
                      flag(s, 2), flag(s, 4), flag(s, 8), flag(s, 16), flag(s, 32)));
}

void link_lines(const ExpressInfo& e, Lines& out) {
    const PortType t = e.type();
    const uint32_t c = e.lnkcap;
    const unsigned aspm = (c >> 10) & 3;
    std::string line = format("\t\tLnkCap:\tPort #%u, Speed %s, Width x%u, ASPM %s", c >> 24,
                           speed_name_lspci(e.max_speed()).c_str(), e.max_width(), aspm_support(aspm));
    if (aspm) {
        line += ", Exit Latency";
        if (aspm & 1)
            line += format(" L0s %s", latency_l0s(c >> 12));
        if (aspm & 2)
            line += format("%s L1 %s", (aspm & 1) ? "," : "", latency_l1(c >> 15));
    }
    out.push_back(line);
    out.push_back(format("\t\t\tClockPM%c Surprise%c LLActRep%c BwNot%c ASPMOptComp%c", flag(c, 1u << 18),
                      flag(c, 1u << 19), flag(c, 1u << 20), flag(c, 1u << 21), flag(c, 1u << 22)));
    const uint16_t w = e.lnkctl;
    line = format("\t\tLnkCtl:\tASPM %s;", aspm_enabled(w & 3));
    if (t == PortType::RootPort || t == PortType::Endpoint || t == PortType::LegacyEndpoint || t == PortType::PciBridge)
        line += format(" RCB %u bytes,", (w & PCI_EXP_LNKCTL_RCB) ? 128u : 64u);
    line += format(" Disabled%c CommClk%c", flag(w, PCI_EXP_LNKCTL_LD), flag(w, PCI_EXP_LNKCTL_CCC));
    out.push_back(line);
    out.push_back(format("\t\t\tExtSynch%c ClockPM%c AutWidDis%c BWInt%c AutBWInt%c", flag(w, 1u << 7), flag(w, 1u << 8),
                      flag(w, 1u << 9), flag(w, 1u << 10), flag(w, 1u << 11)));
    const uint16_t s = e.lnksta;
    const bool down = e.is_downstream_side() || t == PortType::PcieBridge;
    out.push_back(format("\t\tLnkSta:\tSpeed %s%s, Width x%u%s", speed_name_lspci(e.speed()).c_str(),
                      link_compare(e.speed(), e.max_speed(), down).c_str(), e.width(),
                      link_compare(e.width(), e.max_width(), down).c_str()));
    out.push_back(format("\t\t\tTrErr%c Train%c SlotClk%c DLActive%c BWMgmt%c ABWMgmt%c", flag(s, 1u << 10),
                      flag(s, PCI_EXP_LNKSTA_LT), flag(s, PCI_EXP_LNKSTA_SLC), flag(s, PCI_EXP_LNKSTA_DLLLA),
                      flag(s, PCI_EXP_LNKSTA_LBMS), flag(s, PCI_EXP_LNKSTA_LABS)));
}

void slot_lines(const ExpressInfo& e, Lines& out) {
    const uint32_t c = e.sltcap;
    out.push_back(format("\t\tSltCap:\tAttnBtn%c PwrCtrl%c MRL%c AttnInd%c PwrInd%c HotPlug%c Surprise%c", flag(c, 1),
                      flag(c, 2), flag(c, 4), flag(c, 8), flag(c, 16), flag(c, 64), flag(c, 32)));
    out.push_back(format("\t\t\tSlot #%u, PowerLimit %s; Interlock%c NoCompl%c", c >> 19,
                      power_limit((c >> 7) & 0xff, (c >> 15) & 3).c_str(), flag(c, 1u << 17), flag(c, 1u << 18)));
}

void slot_control_lines(const ExpressInfo& e, Lines& out) {
    static const char* indicator[] = {"Unknown", "On", "Blink", "Off"};
    const uint16_t w = e.sltctl, s = e.sltsta;
    out.push_back(format("\t\tSltCtl:\tEnable: AttnBtn%c PwrFlt%c MRL%c PresDet%c CmdCplt%c HPIrq%c LinkChg%c", flag(w, 1),
                      flag(w, 2), flag(w, 4), flag(w, 8), flag(w, 0x10), flag(w, 0x20), flag(w, 0x1000)));
    out.push_back(format("\t\t\tControl: AttnInd %s, PwrInd %s, Power%c Interlock%c", indicator[(w >> 6) & 3],
                      indicator[(w >> 8) & 3], flag(w, 0x400), flag(w, 0x800)));
    out.push_back(format("\t\tSltSta:\tStatus: AttnBtn%c PowerFlt%c MRL%c CmdCplt%c PresDet%c Interlock%c", flag(s, 1),
                      flag(s, 2), flag(s, 0x20), flag(s, 0x10), flag(s, 0x40), flag(s, 0x80)));
    out.push_back(format("\t\t\tChanged: MRL%c PresDet%c LinkState%c", flag(s, 4), flag(s, 8), flag(s, 0x100)));
}

void root_lines(const ExpressInfo& e, Lines& out) {
    out.push_back(format("\t\tRootCap: CRSVisible%c", flag(e.rootcap, 1)));
    const uint16_t w = e.rootctl;
    out.push_back(format("\t\tRootCtl: ErrCorrectable%c ErrNon-Fatal%c ErrFatal%c PMEIntEna%c CRSVisible%c", flag(w, 1),
                      flag(w, 2), flag(w, 4), flag(w, 8), flag(w, 0x10)));
    out.push_back(format("\t\tRootSta: PME ReqID %04x, PMEStatus%c PMEPending%c", e.rootsta & 0xffffu,
                      flag(e.rootsta, 1u << 16), flag(e.rootsta, 1u << 17)));
}

void dev2_lines(const ExpressInfo& e, Lines& out) {
    const PortType t = e.type();
    const bool root = t == PortType::RootPort;
    const bool downstream_side = root || t == PortType::Downstream;
    const bool endpoint = t == PortType::Endpoint || t == PortType::LegacyEndpoint;
    const uint32_t c = e.devcap2;
    out.push_back(format("\t\tDevCap2: Completion Timeout: %s, TimeoutDis%c NROPrPrP%c LTR%c", completion_timeout_range(c),
                      flag(c, 1u << 4), flag(c, 1u << 10), flag(c, 1u << 11)));
    static const char* obff_cap[] = {"Not Supported", "Via message", "Via WAKE#", "Via message/WAKE#"};
    std::string line = format("\t\t\t 10BitTagComp%c 10BitTagReq%c OBFF %s, ExtFmt%c EETLPPrefix%c", flag(c, 1u << 16),
                           flag(c, 1u << 17), obff_cap[(c >> 18) & 3], flag(c, 1u << 20), flag(c, 1u << 21));
    if (c & (1u << 21)) {
        const unsigned prefixes = (c >> 22) & 3;
        line += format(", MaxEETLPPrefixes %u", prefixes ? prefixes : 4);
    }
    out.push_back(line);
    static const char* epr[] = {"Not Supported", "Dev Specific", "Form Factor Dev Specific", "Reserved"};
    out.push_back(format("\t\t\t EmergencyPowerReduction %s, EmergencyPowerReductionInit%c", epr[(c >> 24) & 3],
                      flag(c, 1u << 26)));
    line = format("\t\t\t FRS%c", flag(c, 1u << 31));
    if (root) {
        static const char* cls[] = {"Not Supported", "64byte cachelines", "128byte cachelines", "Reserved"};
        line += format(" LN System CLS %s,", cls[(c >> 14) & 3]);
    }
    if (root || t == PortType::Endpoint) {
        static const char* tph[] = {"TPHComp- ExtTPHComp-", "TPHComp+ ExtTPHComp-", "", "TPHComp+ ExtTPHComp+"};
        line += std::string(" ") + tph[(c >> 12) & 3];
    }
    if (downstream_side)
        line += format(" ARIFwd%c", flag(c, 1u << 5));
    out.push_back(line);
    const bool routing = downstream_side || t == PortType::Upstream;
    if (routing || e.has_mem_bar) {
        line = "\t\t\t AtomicOpsCap:";
        if (routing)
            line += format(" Routing%c", flag(c, 1u << 6));
        if (root || e.has_mem_bar)
            line += format(" 32bit%c 64bit%c 128bitCAS%c", flag(c, 1u << 7), flag(c, 1u << 8), flag(c, 1u << 9));
        out.push_back(line);
    }

    const uint16_t w = e.devctl2;
    static const char* obff_ctl[] = {"Disabled", "Via message A", "Via message B", "Via WAKE#"};
    line = format("\t\tDevCtl2: Completion Timeout: %s, TimeoutDis%c LTR%c 10BitTagReq%c OBFF %s,",
               completion_timeout_value(w), flag(w, 1u << 4), flag(w, 1u << 10), flag(w, 1u << 12),
               obff_ctl[(w >> 13) & 3]);
    if (downstream_side)
        line += format(" ARIFwd%c", flag(w, 1u << 5));
    out.push_back(line);
    const bool requester = endpoint || root || t == PortType::RcIntegratedEndpoint;
    if (requester || routing) {
        line = "\t\t\t AtomicOpsCtl:";
        if (requester)
            line += format(" ReqEn%c", flag(w, 1u << 6));
        if (routing)
            line += format(" EgressBlck%c", flag(w, 1u << 7));
        out.push_back(line);
    }
}

// lspci 3.9's Supported Link Speeds: the range up to the highest speed (the spec forbids gaps);
// "RsvdP" for 64 GT/s and above, which it does not know.
std::string lspci_speed_vector(uint32_t lnkcap2) {
    const uint32_t v = (lnkcap2 >> 1) & 0x7fu;
    if (v & 0x60)
        return "RsvdP";
    for (unsigned s = 5; s >= 2; --s)
        if (v & (1u << (s - 1)))
            return "2.5-" + speed_name_lspci(static_cast<uint8_t>(s));
    return (v & 1) ? "2.5GT/s" : "Unknown";
}

const char* compliance_preset(unsigned code) {
    static const char* names[] = {"-6dB de-emphasis, 0dB preshoot",    "-3.5dB de-emphasis, 0dB preshoot",
                                  "-4.4dB de-emphasis, 0dB preshoot",  "-2.5dB de-emphasis, 0dB preshoot",
                                  "0dB de-emphasis, 0dB preshoot",     "0dB de-emphasis, 1.9dB preshoot",
                                  "0dB de-emphasis, 2.5dB preshoot",   "-6.0dB de-emphasis, 3.5dB preshoot",
                                  "-3.5dB de-emphasis, 3.5dB preshoot", "0dB de-emphasis, 3.5dB preshoot"};
    return code < 10 ? names[code] : "Reserved";
}

const char* transmit_margin(unsigned code) {
    if (code == 0)
        return "Normal Operating Range";
    if (code == 1)
        return "800-1200mV(full-swing)/400-700mV(half-swing)";
    return code <= 5 ? "200-400mV(full-swing)/100-200mV(half-swing)" : "Unknown";
}

void link2_control(const ExpressInfo& e, Lines& out) {
    const uint32_t c = e.lnkcap2;
    if (c)
        out.push_back(format("\t\tLnkCap2: Supported Link Speeds: %s, Crosslink%c Retimer%c 2Retimers%c DRS%c",
                          c & 0xc0u ? supported_speeds(c & reg::EXP_LNKCAP2_SLS).c_str() : lspci_speed_vector(c).c_str(),
                          flag(c, 1u << 8), flag(c, 1u << 23), flag(c, 1u << 24), flag(c, 1u << 31)));
    const uint16_t w = e.lnkctl2;
    const unsigned target = w & 0xf;
    std::string line = format("\t\tLnkCtl2: Target Link Speed: %s, EnterCompliance%c SpeedDis%c",
                           target <= 6 ? speed_name_lspci(static_cast<uint8_t>(std::max(target, 1u))).c_str() : "Unknown",
                           flag(w, 1u << 4), flag(w, PCI_EXP_LNKCTL2_HASD));
    if (e.type() == PortType::Downstream)
        line += format(", Selectable De-emphasis: %s", (w & (1u << 6)) ? "-3.5dB" : "-6dB");
    out.push_back(line);
    out.push_back(format("\t\t\t Transmit Margin: %s, EnterModifiedCompliance%c ComplianceSOS%c",
                      transmit_margin((w >> 7) & 7), flag(w, 1u << 10), flag(w, 1u << 11)));
    out.push_back(format("\t\t\t Compliance Preset/De-emphasis: %s", compliance_preset(w >> 12)));
}

void link2_lines(const ExpressInfo& e, Lines& out) {
    const PortType t = e.type();
    // lspci shows Link Capabilities/Control 2 of an endpoint only on device 0 function 0.
    const bool endpoint = t == PortType::Endpoint || t == PortType::LegacyEndpoint;
    if (!endpoint || e.function0)
        link2_control(e, out);
    const uint16_t s = e.lnksta2;
    out.push_back(format("\t\tLnkSta2: Current De-emphasis Level: %s, EqualizationComplete%c EqualizationPhase1%c",
                      (s & 1) ? "-3.5dB" : "-6dB", flag(s, 2), flag(s, 4)));
    out.push_back(format("\t\t\t EqualizationPhase2%c EqualizationPhase3%c LinkEqualizationRequest%c", flag(s, 8),
                      flag(s, 16), flag(s, 32)));
    static const char* crosslink[] = {"unsupported", "Upstream Port", "Downstream Port", "incomplete"};
    std::string line = format("\t\t\t Retimer%c 2Retimers%c CrosslinkRes: %s", flag(s, 1u << 6), flag(s, 1u << 7),
                           crosslink[(s >> 8) & 3]);
    const bool downstream = e.is_downstream_side() || t == PortType::PcieBridge;
    const uint32_t lnkcap2 = (!endpoint || e.function0) ? e.lnkcap2 : 0;
    if (downstream && (lnkcap2 & (1u << 31))) {
        static const char* component[] = {"Link Down - Not Determined", "Link Down - Not Present", "Link Down - Present",
                                          "Reserved", "Link Up - Present", "Link Up - Present and DRS Received",
                                          "Reserved", "Reserved"};
        out.push_back(line + format(", DRS%c", flag(s, 1u << 15)));
        out.push_back(format("\t\t\t DownstreamComp: %s", component[(s >> 12) & 7]));
        return;
    }
    out.push_back(line);
}

}  // namespace

std::string format_express_head(const ExpressInfo& e) {
    std::string head = format("Capabilities: [%x] Express (v%u) %s", e.offset, e.version(), port_type_name(e.type()));
    if (e.is_downstream_side())
        head += format(" (Slot%c)", e.slot() ? '+' : '-');
    head += format(", MSI %02x", (e.flags & PCI_EXP_FLAGS_IRQ) >> 9);
    return head;
}

Lines format_express(const ExpressInfo& e) {
    Lines out{format_express_head(e)};
    dev_lines(e, out);
    if (e.has_link())
        link_lines(e, out);
    if (e.slot() && e.is_downstream_side()) {
        slot_lines(e, out);
        slot_control_lines(e, out);
    }
    if (e.type() == PortType::RootPort || e.type() == PortType::RcEventCollector)
        root_lines(e, out);
    if (!e.has_v2())
        return out;
    dev2_lines(e, out);
    if (e.has_link())
        link2_lines(e, out);
    return out;
}

}  // namespace pcie
