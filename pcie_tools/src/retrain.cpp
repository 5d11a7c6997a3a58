#include "pcie_tools/retrain.hpp"

#include <cstdio>
#include <thread>

namespace pcie {
namespace {

using Clock = std::chrono::steady_clock;

std::string fmt(const char* format, auto... args) {
    char text[320];
    std::snprintf(text, sizeof text, format, args...);
    return text;
}

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
        if (!(status & reg::EXP_LNKSTA_LT))
            return status;
        if (Clock::now() >= deadline)
            return port.access_error("wait for Link Training to clear", lnksta, 2, ETIMEDOUT,
                                     fmt("Link Status %04X still has Link Training set %s, after %lld ms", status, when,
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

Result<Port> find_port(ConfigBus& bus, const PciAddress& address, const Say& say) {
    Port p;
    p.space = PDT_TRY(bus.open(address));
    p.exp = PDT_TRY(read_express(*p.space));
    const reg::PortType type = p.exp.type();
    if (retrain_from_parent(type)) {
        const auto parent = PDT_TRY(bus.parent(address));
        if (!parent)
            return vfio::make_error("get parent bridge for", address.to_string(), ENODEV,
                                    "Failed to get parent bridge for target device; Retrain Link exists only on "
                                    "Root and Downstream Ports");
        say(fmt("%s is an %s: Retrain Link exists only in the port above it, %s", address.to_string().c_str(),
                port_type_name(type), parent->to_string().c_str()));
        p.below = address;
        p.below_exp = p.exp;
        p.space = PDT_TRY(bus.open(*parent));
        p.exp = PDT_TRY(read_express(*p.space));
    }
    if (!p.exp.is_downstream_side())
        return vfio::make_error("retrain link of", p.space->address().to_string(), EINVAL,
                                std::string("a ") + port_type_name(p.exp.type()) +
                                    " has no Retrain Link; give a Root Port, Downstream Port or the device below one");
    if (!p.exp.has_link())
        return vfio::make_error("retrain link of", p.space->address().to_string(), EINVAL, "the function has no link");
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
    return vfio::make_error("parse", "\"" + text + "\"", EINVAL,
                            "Invalid target link speed: give a Target Link Speed code 1..6 "
                            "(2.5/5/8/16/32/64 GT/s) or a rate such as 8GT/s");
}

Result<RetrainReport> set_link_speed(ConfigBus& bus, const PciAddress& address, const RetrainOptions& options,
                                     const Say& say) {
    Port p = PDT_TRY(find_port(bus, address, say));
    ConfigSpace& port = *p.space;
    const uint32_t lnkctl = p.exp.offset + reg::EXP_LNKCTL;
    const uint32_t lnksta = p.exp.offset + reg::EXP_LNKSTA;
    const uint32_t lnkctl2 = p.exp.offset + reg::EXP_LNKCTL2;
    RetrainReport report;
    report.port = port.address();
    report.below = p.below;

    const SystemInfo info = bus.system_info(port.address());
    const uint8_t revision = PDT_TRY(port.read8(reg::REVISION_ID));
    const uint16_t vendor = PDT_TRY(port.read16(reg::VENDOR_ID)), device = PDT_TRY(port.read16(reg::DEVICE_ID));
    say(fmt("Operating on device %s vendor_id=%04x (%s) device_id=%04x (%s) revision_id=%02x",
            port.address().to_string().c_str(), vendor, info.vendor_name.empty() ? "?" : info.vendor_name.c_str(),
            device, info.device_name.empty() ? "?" : info.device_name.c_str(), revision));
    say(fmt("Link capabilities: %08X Max link speed %s max link width x%u", p.exp.lnkcap,
            speed_name(p.exp.max_speed()).c_str(), p.exp.max_width()));
    report.lnksta_before = PDT_TRY(port.read16(lnksta));
    say(fmt("Link status: %04X", report.lnksta_before));
    say("Current link speed: " + speed_name(report.lnksta_before & reg::EXP_LNKSTA_CLS) +
        fmt(" width x%u", (report.lnksta_before & reg::EXP_LNKSTA_NLW) >> 4));
    if (!p.exp.has_v2())
        return vfio::make_error("set Target Link Speed of", port.address().to_string(), ENOTSUP,
                                "PCI Express capability version 1 has no Link Control 2");

    const uint32_t supported = p.exp.supported_speeds();
    say("Supported link speeds (Link Capabilities 2): " + speeds_list(supported));
    report.target = options.target_speed.value_or(p.exp.max_speed());
    if (report.target < 1 || report.target > 6 || !(supported & (1u << report.target)) ||
        report.target > p.exp.max_speed())
        return vfio::make_error("set Target Link Speed of", port.address().to_string(), EINVAL,
                                "the port does not support " + speed_name(report.target) + " (it supports " +
                                    speeds_list(supported) + ", max " + speed_name(p.exp.max_speed()) + ")");
    if (p.below_exp && !(p.below_exp->supported_speeds() & (1u << report.target)))
        say("Note: " + p.below->to_string() + " supports only " + speeds_list(p.below_exp->supported_speeds()) +
            ": the link cannot train at " + speed_name(report.target));

    report.lnkctl2_before = PDT_TRY(port.read16(lnkctl2));
    const uint16_t new_lnkctl2 =
        static_cast<uint16_t>((report.lnkctl2_before & ~reg::EXP_LNKCTL2_TLS) | report.target);
    const uint16_t old_lnkctl = PDT_TRY(port.read16(lnkctl));
    const uint16_t new_lnkctl = old_lnkctl | reg::EXP_LNKCTL_RL;
    const uint8_t old_target = report.lnkctl2_before & reg::EXP_LNKCTL2_TLS;
    say(fmt("Original link control 2: %04X", report.lnkctl2_before));
    say(fmt("Original target link speed: %u (%s)", old_target, speed_name(old_target).c_str()));
    say(fmt("New target link speed: %u (%s)", report.target, speed_name(report.target).c_str()));
    say(fmt("New link control 2: %04X", new_lnkctl2));
    say(fmt("Will write %s and Link Control (0x%03x) %04X -> %04X (Retrain Link)",
            new_lnkctl2 == report.lnkctl2_before ? "nothing to Link Control 2 (target unchanged)"
                                                 : fmt("Link Control 2 (0x%03x) %04X -> %04X", lnkctl2,
                                                       report.lnkctl2_before, new_lnkctl2).c_str(),
            lnkctl, old_lnkctl, new_lnkctl));

    PDT_TRY(wait_training_clear(port, lnksta, options, "before Retrain Link"));
    report.lnkctl2_after = report.lnkctl2_before;
    if (new_lnkctl2 != report.lnkctl2_before) {
        PDT_CHECK(port.write16(lnkctl2, new_lnkctl2));
        report.lnkctl2_after = PDT_TRY(port.read16(lnkctl2));
        if ((report.lnkctl2_after & reg::EXP_LNKCTL2_TLS) != report.target) {
            report.lnkctl2_rejected = true;
            say(fmt("Link control 2 write not accepted: reads back %04X", report.lnkctl2_after));
            if (report.lnkctl2_after != report.lnkctl2_before) {
                PDT_CHECK(port.write16(lnkctl2, report.lnkctl2_before));
                report.lnkctl2_after = PDT_TRY(port.read16(lnkctl2));
                report.lnkctl2_restored = true;
                say(fmt("Restored link control 2: %04X", report.lnkctl2_after));
            }
        }
    }

    say(fmt("Triggering link retraining by changing link control %04X -> %04X", old_lnkctl, new_lnkctl));
    PDT_CHECK(port.write16(lnkctl, new_lnkctl));
    std::this_thread::sleep_for(options.poll);
    auto after = wait_training_clear(port, lnksta, options, "after Retrain Link");
    if (!after) {
        if (report.lnkctl2_after != report.lnkctl2_before && port.write16(lnkctl2, report.lnkctl2_before))
            say(fmt("Restored link control 2: %04X", report.lnkctl2_before));
        return std::move(after).error();
    }
    report.lnksta_after = *after;
    report.speed_after = report.lnksta_after & reg::EXP_LNKSTA_CLS;
    report.width_after = (report.lnksta_after & reg::EXP_LNKSTA_NLW) >> 4;
    say(fmt("Link status: %04X", report.lnksta_after));
    say("Current link speed: " + speed_name(report.speed_after) + fmt(" width x%u", report.width_after));
    say(std::string("Link Bandwidth Management Status: ") +
        ((report.lnksta_after & reg::EXP_LNKSTA_LBMS) ? "set (the port reports a completed retrain)"
                                                      : "clear (the port reports no bandwidth change)"));
    if (p.below) {
        ConfigSpace* below = PDT_TRY(bus.open(*p.below));
        auto status = below->read16(p.below_exp->offset + reg::EXP_LNKSTA);
        if (status && *status != 0xffff)
            say(fmt("Device %s link status: %04X (%s x%u)", p.below->to_string().c_str(), *status,
                    speed_name(*status & reg::EXP_LNKSTA_CLS).c_str(), (*status & reg::EXP_LNKSTA_NLW) >> 4));
    }
    report.reached = report.speed_after == report.target;
    if (report.reached)
        say("Target link speed " + speed_name(report.target) + " reached");
    else
        say("Target link speed " + speed_name(report.target) + " NOT reached: link at " +
            speed_name(report.speed_after) + fmt(" x%u", report.width_after) +
            (report.lnkctl2_rejected ? " (the port did not accept the Target Link Speed)" : ""));
    return report;
}

}  // namespace pcie
