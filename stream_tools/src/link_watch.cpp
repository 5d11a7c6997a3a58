#include "stream_tools/link_watch.hpp"

#include <algorithm>

namespace stream_tools {

LinkLoadWatcher::LinkLoadWatcher(std::vector<vfio::Device*> devices, PortsFactory open_ports,
                                 std::chrono::milliseconds interval)
    : m_open_ports(std::move(open_ports)), m_interval(interval) {
    for (vfio::Device* device : devices)
        m_watches.push_back(Watch{device, nullptr, nullptr, nullptr, {}});
}

LinkLoadWatcher::~LinkLoadWatcher() { stop(); }

void LinkLoadWatcher::start() {
    for (Watch& watch : m_watches) {
        watch.error.clear();
        auto ports = m_open_ports();
        if (!ports) {
            watch.error = ports.error().message();
            continue;
        }
        watch.ports = std::move(ports).value();
        watch.bus = std::make_unique<pcie::VfioOverlayBackend>(*watch.ports, *watch.device);
        auto monitor = pcie::LinkMonitor::start(*watch.bus, watch.device->identity().address, m_interval);
        if (monitor)
            watch.monitor = std::move(monitor).value();
        else
            watch.error = monitor.error().message();
    }
}

std::vector<std::string> LinkLoadWatcher::stop() {
    std::vector<std::string> lines;
    for (Watch& watch : m_watches) {
        if (watch.monitor) {
            lines.push_back(watch.monitor->stop().line());
            watch.monitor.reset();
        } else if (!watch.error.empty()) {
            lines.push_back("link under load: " + watch.device->identity().address.to_string() +
                            " not monitored: " + watch.error);
        }
        watch.bus.reset();
        watch.ports.reset();
        watch.error.clear();
    }
    return lines;
}

unsigned LinkLoadWatcher::min_rounds() const {
    unsigned rounds = 0;
    bool any = false;
    for (const Watch& watch : m_watches)
        if (watch.monitor) {
            rounds = any ? std::min(rounds, watch.monitor->rounds()) : watch.monitor->rounds();
            any = true;
        }
    return rounds;
}

}  // namespace stream_tools
