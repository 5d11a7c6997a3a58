#include "pcie_tools/retrain.hpp"
#include "base/format.hpp"

#include <cstdio>
#include <thread>

namespace pcie {
namespace {

using Clock = std::chrono::steady_clock;

using pdt::format;

std::string speeds_list(uint32_t vector) {
    std::string list;
    for (uint8_t s = 1; s < 8; ++s)
        if (vector & (1u << s))
            list += (list.empty() ? "" : ", ") + speed_name(s);
    return list.empty() ? "none" : list;
}

bool retrain_from_parent(reg::PortType t) {
    return t == reg::PortType::Endpoint || t == reg::PortType::LegacyEndpoint || t == reg::PortType::Upstream ||
           t == reg::PortType::PciBridge;
}

// Polls Link Status until Link Training reads 0; returns the last value read.
Result<uint16_t> wait_training_clear(ConfigSpace& port, uint32_t lnksta, const RetrainOptions& options,
                                     const char* when) {
    const auto deadline = Clock::now() + options.timeout;
    for (;;) {
        const uint16_t status = PDT_TRY(port.read16(lnksta));
        if (!(status & PCI_EXP_LNKSTA_LT))
            return status;
        if (Clock::now() >= deadline)
            return port.access_error("wait for Link Training to clear", lnksta, 2, ETIMEDOUT,
                                     format("Link Status %04X still has Link Training set %s, after %lld ms", status, when,
                                         static_cast<long long>(options.timeout.count())));
        std::this_thread::sleep_for(options.poll);
    }
}

struct Port {
    ConfigSpace* space = nullptr;
    ExpressInfo exp;
    std::optional<PciAddress> below;
    std::optional<ExpressInfo> below_exp;
};

Result<Port> find_port(ConfigBackend& bus, const PciAddress& address, const Say& say) {
    Port p;
    p.space = PDT_TRY(bus.open(address));
    p.exp = PDT_TRY(read_express(*p.space));
    const reg::PortType type = p.exp.type();
    if (retrain_from_parent(type)) {
        const auto parent = PDT_TRY(bus.parent(address));
        if (!parent)
            return pdt::make_error("get parent bridge for", address.to_string(), ENODEV,
                                   "Failed to get parent bridge for target device; Retrain Link exists only on "
                                   "Root and Downstream Ports");
        say(format("%s is an %s: Retrain Link exists only in the port above it, %s", address.to_string().c_str(),
                port_type_name(type), parent->to_string().c_str()));
        p.below = address;
        p.below_exp = p.exp;
        p.space = PDT_TRY(bus.open(*parent));
        p.exp = PDT_TRY(read_express(*p.space));
    }
    if (!p.exp.is_downstream_side())
        return pdt::usage_error("retrain link of", p.space->address().to_string(),
                                std::string("a ") + port_type_name(p.exp.type()) +
                                    " has no Retrain Link; give a Root Port, Downstream Port or the device below one");
    if (!p.exp.has_link())
        return pdt::usage_error("retrain link of", p.space->address().to_string(), "the function has no link");
    return p;
}

}  // namespace

Result<uint8_t> parse_target_speed(const std::string& text) {
    static const char* rates[] = {"2.5", "5", "8", "16", "32", "64"};
    std::string t = text;
    const auto unit = t.find("GT/s");
    if (unit != std::string::npos) {
        t = t.substr(0, unit);
        while (!t.empty() && t.back() == ' ')
            t.pop_back();
        for (uint8_t i = 0; i < 6; ++i)
            if (t == rates[i])
                return static_cast<uint8_t>(i + 1);
    } else if (t.size() == 1 && t[0] >= '1' && t[0] <= '6') {
        return static_cast<uint8_t>(t[0] - '0');
    }
    return pdt::usage_error("parse", "\"" + text + "\"",
                            "Invalid target link speed: give a Target Link Speed code 1..6 "
                            "(2.5/5/8/16/32/64 GT/s) or a rate such as 8GT/s");
}

namespace {

// One retrain, step by step; every step says what it does before it does it.
class Retrainer {
public:
    Retrainer(ConfigBackend& bus, Port p, const RetrainOptions& options, const Say& say)
        : m_bus(bus), m_p(std::move(p)), m_port(*m_p.space), m_options(options), m_say(say),
          m_lnkctl(m_p.exp.offset + PCI_EXP_LNKCTL), m_lnksta(m_p.exp.offset + PCI_EXP_LNKSTA),
          m_lnkctl2(m_p.exp.offset + PCI_EXP_LNKCTL2) {
        m_report.port = m_port.address();
        m_report.below = m_p.below;
    }

    Result<RetrainReport> run() {
        PDT_CHECK(show_port());
        PDT_CHECK(choose_target());
        PDT_CHECK(plan());
        PDT_TRY(wait_training_clear(m_port, m_lnksta, m_options, "before Retrain Link"));
        PDT_CHECK(set_target());
        PDT_CHECK(retrain());
        PDT_CHECK(report_result());
        return m_report;
    }

private:
    Result<void> show_port() {
        const SystemInfo info = m_bus.system_info(m_port.address());
        const uint8_t revision = PDT_TRY(m_port.read8(PCI_REVISION_ID));
        const uint16_t vendor = PDT_TRY(m_port.read16(PCI_VENDOR_ID));
        const uint16_t device = PDT_TRY(m_port.read16(PCI_DEVICE_ID));
        m_say(format("Operating on device %s vendor_id=%04x (%s) device_id=%04x (%s) revision_id=%02x",
                  m_port.address().to_string().c_str(), vendor,
                  info.vendor_name.empty() ? "?" : info.vendor_name.c_str(), device,
                  info.device_name.empty() ? "?" : info.device_name.c_str(), revision));
        m_say(format("Link capabilities: %08X Max link speed %s max link width x%u", m_p.exp.lnkcap,
                  speed_name(m_p.exp.max_speed()).c_str(), m_p.exp.max_width()));
        m_report.lnksta_before = PDT_TRY(m_port.read16(m_lnksta));
        say_status(m_report.lnksta_before);
        if (!m_p.exp.has_v2())
            return pdt::make_error("set Target Link Speed of", m_port.address().to_string(), ENOTSUP,
                                   "PCI Express capability version 1 has no Link Control 2");
        return {};
    }

    Result<void> choose_target() {
        const uint32_t supported = m_p.exp.supported_speeds();
        m_say("Supported link speeds (Link Capabilities 2): " + speeds_list(supported));
        const uint8_t target = m_options.target_speed.value_or(m_p.exp.max_speed());
        m_report.target = target;
        if (target < 1 || target > 6 || !(supported & (1u << target)) || target > m_p.exp.max_speed())
            return pdt::usage_error("set Target Link Speed of", m_port.address().to_string(),
                                    "the port does not support " + speed_name(target) + " (it supports " +
                                        speeds_list(supported) + ", max " + speed_name(m_p.exp.max_speed()) + ")");
        if (m_p.below_exp && !(m_p.below_exp->supported_speeds() & (1u << target)))
            m_say("Note: " + m_p.below->to_string() + " supports only " +
                  speeds_list(m_p.below_exp->supported_speeds()) + ": the link cannot train at " + speed_name(target));
        return {};
    }

    Result<void> plan() {
        m_report.lnkctl2_before = PDT_TRY(m_port.read16(m_lnkctl2));
        m_new_lnkctl2 = static_cast<uint16_t>((m_report.lnkctl2_before & ~PCI_EXP_LNKCTL2_TLS) | m_report.target);
        m_old_lnkctl = PDT_TRY(m_port.read16(m_lnkctl));
        const uint8_t old_target = m_report.lnkctl2_before & PCI_EXP_LNKCTL2_TLS;
        m_say(format("Original link control 2: %04X", m_report.lnkctl2_before));
        m_say(format("Original target link speed: %u (%s)", old_target, speed_name(old_target).c_str()));
        m_say(format("New target link speed: %u (%s)", m_report.target, speed_name(m_report.target).c_str()));
        m_say(format("New link control 2: %04X", m_new_lnkctl2));
        const std::string lnkctl2_change =
            m_new_lnkctl2 == m_report.lnkctl2_before
                ? "nothing to Link Control 2 (target unchanged)"
                : format("Link Control 2 (0x%03x) %04X -> %04X", m_lnkctl2, m_report.lnkctl2_before, m_new_lnkctl2);
        m_say(format("Will write %s and Link Control (0x%03x) %04X -> %04X (Retrain Link)", lnkctl2_change.c_str(),
                  m_lnkctl, m_old_lnkctl, retrain_value()));
        return {};
    }

    // Writes Target Link Speed; restores Link Control 2 when the port latched something else.
    Result<void> set_target() {
        m_report.lnkctl2_after = m_report.lnkctl2_before;
        if (m_new_lnkctl2 == m_report.lnkctl2_before)
            return {};
        PDT_CHECK(m_port.write16(m_lnkctl2, m_new_lnkctl2));
        m_report.lnkctl2_after = PDT_TRY(m_port.read16(m_lnkctl2));
        if ((m_report.lnkctl2_after & PCI_EXP_LNKCTL2_TLS) == m_report.target)
            return {};
        m_report.lnkctl2_rejected = true;
        m_say(format("Link control 2 write not accepted: reads back %04X", m_report.lnkctl2_after));
        if (m_report.lnkctl2_after != m_report.lnkctl2_before) {
            PDT_CHECK(m_port.write16(m_lnkctl2, m_report.lnkctl2_before));
            m_report.lnkctl2_after = PDT_TRY(m_port.read16(m_lnkctl2));
            m_report.lnkctl2_restored = true;
            m_say(format("Restored link control 2: %04X", m_report.lnkctl2_after));
        }
        return {};
    }

    Result<void> retrain() {
        m_say(format("Triggering link retraining by changing link control %04X -> %04X", m_old_lnkctl, retrain_value()));
        PDT_CHECK(m_port.write16(m_lnkctl, retrain_value()));
        std::this_thread::sleep_for(m_options.poll);
        auto after = wait_training_clear(m_port, m_lnksta, m_options, "after Retrain Link");
        if (!after) {
            if (m_report.lnkctl2_after != m_report.lnkctl2_before && m_port.write16(m_lnkctl2, m_report.lnkctl2_before))
                m_say(format("Restored link control 2: %04X", m_report.lnkctl2_before));
            return std::move(after).error();
        }
        m_report.lnksta_after = *after;
        return {};
    }

    Result<void> report_result() {
        m_report.speed_after = m_report.lnksta_after & PCI_EXP_LNKSTA_CLS;
        m_report.width_after = (m_report.lnksta_after & PCI_EXP_LNKSTA_NLW) >> 4;
        say_status(m_report.lnksta_after);
        m_say(std::string("Link Bandwidth Management Status: ") +
              ((m_report.lnksta_after & PCI_EXP_LNKSTA_LBMS) ? "set (the port reports a completed retrain)"
                                                              : "clear (the port reports no bandwidth change)"));
        if (m_p.below) {
            ConfigSpace* below = PDT_TRY(m_bus.open(*m_p.below));
            auto status = below->read16(m_p.below_exp->offset + PCI_EXP_LNKSTA);
            if (status && *status != 0xffff)
                m_say(format("Device %s link status: %04X (%s x%u)", m_p.below->to_string().c_str(), *status,
                          speed_name(*status & PCI_EXP_LNKSTA_CLS).c_str(), (*status & PCI_EXP_LNKSTA_NLW) >> 4));
        }
        m_report.reached = m_report.speed_after == m_report.target;
        const std::string target = "Target link speed " + speed_name(m_report.target);
        if (m_report.reached)
            m_say(target + " reached");
        else
            m_say(target + " NOT reached: link at " + speed_name(m_report.speed_after) +
                  format(" x%u", m_report.width_after) +
                  (m_report.lnkctl2_rejected ? " (the port did not accept the Target Link Speed)" : ""));
        return {};
    }

    void say_status(uint16_t status) {
        m_say(format("Link status: %04X", status));
        m_say("Current link speed: " + speed_name(status & PCI_EXP_LNKSTA_CLS) +
              format(" width x%u", (status & PCI_EXP_LNKSTA_NLW) >> 4));
    }
    uint16_t retrain_value() const { return m_old_lnkctl | PCI_EXP_LNKCTL_RL; }

    ConfigBackend& m_bus;
    Port m_p;
    ConfigSpace& m_port;
    const RetrainOptions& m_options;
    const Say& m_say;
    const uint32_t m_lnkctl, m_lnksta, m_lnkctl2;
    uint16_t m_new_lnkctl2 = 0, m_old_lnkctl = 0;
    RetrainReport m_report;
};

}  // namespace

Result<RetrainReport> set_link_speed(ConfigBackend& bus, const PciAddress& address, const RetrainOptions& options,
                                     const Say& say) {
    Port p = PDT_TRY(find_port(bus, address, say));
    return Retrainer(bus, std::move(p), options, say).run();
}

}  // namespace pcie
