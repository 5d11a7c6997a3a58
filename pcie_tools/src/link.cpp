#include "pcie_tools/link.hpp"
#include "base/format.hpp"

#include <algorithm>
#include <cstdio>

namespace pcie {
namespace {

using pdt::format;

bool is_link_below_side(reg::PortType t) {
    return t == reg::PortType::Endpoint || t == reg::PortType::LegacyEndpoint || t == reg::PortType::Upstream ||
           t == reg::PortType::PciBridge;
}

uint8_t highest(uint32_t vector) {
    uint8_t s = 0;
    for (uint8_t i = 1; i < 8; ++i)
        if (vector & (1u << i))
            s = i;
    return s;
}

std::string rate(uint8_t speed, unsigned width) { return speed_name(speed) + " x" + std::to_string(width); }

}  // namespace

double encoded_bandwidth(uint8_t speed, unsigned width) {
    const double gts = speed_gts(speed);
    const double efficiency = speed <= 2 ? 8.0 / 10.0 : speed <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
    return gts * efficiency * width / 8.0;
}

double payload_bandwidth(uint8_t speed, unsigned width, unsigned max_payload) {
    constexpr double kDataLinkShare = 0.91;  // ACK/flow-control DLLPs and SKIP ordered sets
    constexpr double kTlpOverhead = 24.0;    // framing, sequence, LCRC, 4 DW header (64-bit address)
    return encoded_bandwidth(speed, width) * kDataLinkShare * max_payload / (max_payload + kTlpOverhead);
}

bool LinkHop::aspm_enabled() const {
    return (below.lnkctl & PCI_EXP_LNKCTL_ASPMC) || (port && (port->lnkctl & PCI_EXP_LNKCTL_ASPMC));
}

bool LinkHop::autonomous_speed_allowed() const {
    const ExpressInfo& side = port ? *port : below;
    return side.has_v2() && !(side.lnkctl2 & PCI_EXP_LNKCTL2_HASD);
}

bool LinkHop::autonomous_change_seen() const {
    return (below.lnksta & PCI_EXP_LNKSTA_LABS) || (port && (port->lnksta & PCI_EXP_LNKSTA_LABS));
}

bool LinkHop::limited_by_device() const {
    return port && !downgraded() && (port->max_speed() > capable_speed || port->max_width() > capable_width);
}

bool PathReport::downgraded() const {
    return std::any_of(hops.begin(), hops.end(), [](const LinkHop& h) { return h.downgraded(); });
}

const LinkHop* PathReport::bottleneck() const {
    const LinkHop* worst = nullptr;
    for (const LinkHop& h : hops)
        if (!worst || encoded_bandwidth(h.speed, h.width) < encoded_bandwidth(worst->speed, worst->width))
            worst = &h;
    return worst;
}

Result<PathReport> check_link_path(ConfigBackend& bus, const PciAddress& device) {
    PathReport report;
    report.device = device;
    const auto chain = PDT_TRY(path_to_root(bus, device));
    for (size_t i = 0; i < chain.size(); ++i) {
        ConfigSpace* space = PDT_TRY(bus.open(chain[i]));
        auto below = read_express(*space);
        if (!below) {
            if (i == 0 || space->size() <= 64)
                report.notes.push_back(below.error().message());
            break;  // a conventional function or bridge: no PCIe link above it to check
        }
        if (!is_link_below_side(below->type()) || !below->has_link())
            continue;  // a port: its link was the previous hop
        LinkHop hop;
        hop.below_address = chain[i];
        hop.below = *below;
        hop.capable_speed = below->max_speed();
        hop.capable_width = below->max_width();
        hop.speed = below->speed();
        hop.width = below->width();
        if (i + 1 < chain.size()) {
            ConfigSpace* port_space = PDT_TRY(bus.open(chain[i + 1]));
            auto port = read_express(*port_space);
            if (port && port->is_downstream_side()) {
                hop.port_address = chain[i + 1];
                hop.port = *port;
                hop.capable_speed = highest(below->supported_speeds() & port->supported_speeds());
                hop.capable_width = std::min(below->max_width(), port->max_width());
                hop.speed = port->speed();  // the port's view stays valid while the device retrains
                hop.width = port->width();
            } else if (!port) {
                report.notes.push_back("port " + chain[i + 1].to_string() + ": " + port.error().message());
            }
        } else {
            report.notes.push_back("no port found above " + chain[i].to_string() +
                                   ": only the device's own Link Capabilities are compared");
        }
        report.hops.push_back(hop);
    }
    return report;
}

std::vector<std::string> format_slot_warnings(const PathReport& report) {
    std::vector<std::string> out;
    for (const LinkHop& h : report.hops)
        if (h.limited_by_device())
            out.push_back("Warning: link " + h.port_address->to_string() + " (" + port_type_name(h.port->type()) +
                          ") -> " + h.below_address.to_string() + " runs at " + rate(h.speed, h.width) +
                          ", below the port's " + rate(h.port->max_speed(), h.port->max_width()) +
                          ", because the device supports only " + rate(h.below.max_speed(), h.below.max_width()) +
                          "; retraining cannot raise it (check the card's PCIe configuration or slot)");
    return out;
}

std::vector<std::string> format_link_warning(const PathReport& report, const std::string& description) {
    std::vector<std::string> out;
    if (!report.downgraded())
        return out;
    const LinkHop* first = nullptr;
    for (const LinkHop& h : report.hops)
        if (h.downgraded() && !first)
            first = &h;
    out.push_back("Warning: Device " + description + " has reduced bandwidth");
    out.push_back(format("Max width x%u speed %s. Negotiated width x%u speed %s", first->capable_width,
                      speed_name(first->capable_speed).c_str(), first->width, speed_name(first->speed).c_str()));
    for (const LinkHop& h : report.hops) {
        if (!h.downgraded())
            continue;
        const std::string where = h.port_address ? "link " + h.port_address->to_string() + " (" +
                                                       port_type_name(h.port->type()) + ") -> " +
                                                       h.below_address.to_string()
                                                 : "link of " + h.below_address.to_string();
        out.push_back("  " + where + " trained at " + rate(h.speed, h.width) + ", both ends capable of " +
                      rate(h.capable_speed, h.capable_width));
        if (h.speed_downgraded() && !h.width_downgraded() &&
            (h.aspm_enabled() || h.autonomous_speed_allowed() || h.autonomous_change_seen())) {
            std::string why = h.aspm_enabled() ? "ASPM is enabled" : "ASPM is disabled";
            if (h.autonomous_speed_allowed())
                why += ", the port allows autonomous speed changes";
            if (h.autonomous_change_seen())
                why += ", hardware reported an autonomous bandwidth change (ABWMgmt+)";
            out.push_back("  " + why + ": an idle link may run slower to save power; measure under load "
                                       "(the stream tools print the link under load)");
        }
        if (h.port_address)
            out.push_back("  retrain with: pcie_set_speed " + h.port_address->to_string() + " " +
                          std::to_string(h.capable_speed));
    }
    return out;
}

std::vector<std::string> format_link_summary(const PathReport& report) {
    std::vector<std::string> out;
    for (const LinkHop& h : report.hops) {
        std::string head = "Link " + (h.port_address ? h.port_address->to_string() + " -> " : std::string()) +
                           h.below_address.to_string() + ": negotiated " + rate(h.speed, h.width) + ", capable " +
                           rate(h.capable_speed, h.capable_width);
        if (h.downgraded())
            head += std::string(" (downgraded") + (h.speed_downgraded() ? " speed" : "") +
                    (h.width_downgraded() ? " width" : "") + ")";
        else if (h.limited_by_device())
            head += " (port downgraded from " + rate(h.port->max_speed(), h.port->max_width()) +
                    ": limited by the device, not by training)";
        out.push_back(head);
        out.push_back("  device " + h.below_address.to_string() + " capable " +
                      rate(h.below.max_speed(), h.below.max_width()) + ", status " + rate(h.below.speed(), h.below.width()));
        if (h.port)
            out.push_back("  port   " + h.port_address->to_string() + " capable " +
                          rate(h.port->max_speed(), h.port->max_width()) + ", status " +
                          rate(h.port->speed(), h.port->width()));
        const unsigned mps = h.below.max_payload();
        out.push_back(format("  bandwidth per direction: %.2f GB/s after encoding, ~%.2f GB/s payload at this function's MaxPayload %u "
                          "(capable: %.2f GB/s, ~%.2f GB/s)",
                          encoded_bandwidth(h.speed, h.width), payload_bandwidth(h.speed, h.width, mps), mps,
                          encoded_bandwidth(h.capable_speed, h.capable_width),
                          payload_bandwidth(h.capable_speed, h.capable_width, mps)));
    }
    for (const std::string& n : report.notes)
        out.push_back("  note: " + n);
    return out;
}

}  // namespace pcie
