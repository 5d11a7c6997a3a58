// The stream tools' link monitor on the kernel bus: while the streams run, samples Link Status
// of each device (through its VFIO config region) and of the port above it (through a ports
// bus, libpci on the kernel bus), and reports the speed and width seen under load:
//   link under load: 0000:15:00.0 5 GT/s x4 in 200 samples; port 0000:00:01.0 5 GT/s x4 in 200 samples
// "(lowest 2.5 GT/s x4)" follows the figure when the link changed during the run.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pcie_tools/backends.hpp"
#include "pcie_tools/link.hpp"
#include "stream_tools/stream_tools.hpp"

namespace stream_tools {

class LinkLoadWatcher : public LoadWatcher {
public:
    // Each device's monitor thread gets its own ports bus from `open_ports`.
    using PortsFactory = std::function<pdt::Result<std::unique_ptr<pcie::ConfigBackend>>()>;
    LinkLoadWatcher(std::vector<vfio::Device*> devices, PortsFactory open_ports,
                    std::chrono::milliseconds interval = std::chrono::milliseconds(50));
    ~LinkLoadWatcher() override;
    void start() override;
    // One line per device, in the order given: the summary, or why it was not monitored.
    std::vector<std::string> stop() override;
    // Sampling rounds completed by the slowest running monitor (0 when none runs).
    unsigned min_rounds() const;

private:
    struct Watch {
        vfio::Device* device = nullptr;
        std::unique_ptr<pcie::ConfigBackend> ports;
        std::unique_ptr<pcie::VfioOverlayBackend> bus;
        std::unique_ptr<pcie::LinkMonitor> monitor;
        std::string error;
    };
    std::vector<Watch> m_watches;
    PortsFactory m_open_ports;
    std::chrono::milliseconds m_interval;
};

}  // namespace stream_tools
