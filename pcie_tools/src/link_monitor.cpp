#include <algorithm>

#include "pcie_tools/link.hpp"

namespace pcie {

void LinkStatusRange::add(uint16_t lnksta) {
    const uint8_t speed = lnksta & PCI_EXP_LNKSTA_CLS;
    const uint8_t width = (lnksta & PCI_EXP_LNKSTA_NLW) >> 4;
    ++samples;
    min_speed = std::min(min_speed, speed);
    max_speed = std::max(max_speed, speed);
    min_width = std::min(min_width, width);
    max_width = std::max(max_width, width);
}

namespace {
std::string range_text(const LinkStatusRange& r) {
    if (r.samples == 0)
        return "no samples" + (r.read_errors ? " (" + std::to_string(r.read_errors) + " read errors)" : std::string());
    std::string text = speed_name(r.max_speed) + " x" + std::to_string(r.max_width);
    if (r.min_speed != r.max_speed || r.min_width != r.max_width)
        text += " (lowest " + speed_name(r.min_speed) + " x" + std::to_string(r.min_width) + ")";
    text += " in " + std::to_string(r.samples) + " samples";
    if (r.read_errors)
        text += ", " + std::to_string(r.read_errors) + " read errors";
    return text;
}
}  // namespace

std::string LinkMonitorSummary::line() const {
    std::string text = "link under load: " + device.to_string() + " " + range_text(device_status);
    if (port)
        text += "; port " + port->to_string() + " " + range_text(port_status);
    return text;
}

Result<std::unique_ptr<LinkMonitor>> LinkMonitor::start(ConfigBackend& bus, const PciAddress& device,
                                                        std::chrono::milliseconds interval) {
    std::unique_ptr<LinkMonitor> monitor(new LinkMonitor);
    monitor->m_interval = interval;
    monitor->m_summary.device = device;
    monitor->m_device_space = PDT_TRY(bus.open(device));
    const ExpressInfo e = PDT_TRY(read_express(*monitor->m_device_space));
    monitor->m_device_lnksta = e.offset + PCI_EXP_LNKSTA;
    const auto parent = PDT_TRY(bus.parent(device));
    if (parent && !e.is_downstream_side()) {
        ConfigSpace* port_space = PDT_TRY(bus.open(*parent));
        auto port = read_express(*port_space);
        if (port && port->is_downstream_side()) {
            monitor->m_port_space = port_space;
            monitor->m_port_lnksta = port->offset + PCI_EXP_LNKSTA;
            monitor->m_summary.port = *parent;
        }
    }
    monitor->m_thread = std::thread([m = monitor.get()] { m->run(); });
    return monitor;
}

void LinkMonitor::run() {
    auto sample = [](ConfigSpace* space, uint32_t offset, LinkStatusRange& range) {
        if (!space)
            return;
        auto value = space->read16(offset);
        if (value && *value != 0xffff)
            range.add(*value);
        else
            ++range.read_errors;  // all-ones: the device may be retraining or gone
    };
    while (!m_stop.load()) {
        sample(m_device_space, m_device_lnksta, m_summary.device_status);
        sample(m_port_space, m_port_lnksta, m_summary.port_status);
        ++m_rounds;
        const auto until = std::chrono::steady_clock::now() + m_interval;
        while (!m_stop.load() && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::min(m_interval, std::chrono::milliseconds(5)));
    }
}

LinkMonitorSummary LinkMonitor::stop() {
    m_stop.store(true);
    if (m_thread.joinable())
        m_thread.join();
    return m_summary;
}

LinkMonitor::~LinkMonitor() { stop(); }

}  // namespace pcie
