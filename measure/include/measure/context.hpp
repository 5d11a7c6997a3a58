// What a result file records about where it was measured: the host (CPU, cores, kernel and its
// command line, IOMMU mode and page size, the device's NUMA node), the device's dump_pci_info
// text (pcie_tools' library), and its Link Status before, under load and after the run.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "measure/results.hpp"

namespace pcie {
class ConfigBackend;
class LinkMonitor;
}  // namespace pcie

namespace pcie {
class ConfigBackend;
}

namespace measure {

// What --pci_access sim opens; sim/ makes it (sim::open_demo_topology), above measure.
using SimulatedTopology = std::function<std::unique_ptr<pcie::ConfigBackend>()>;

// Reads what it can; a field it cannot read stays empty (or -1 / 0).
HostContext capture_host(const std::string& pci_address);
std::string utc_now();  // "2026-11-30T22:40:00Z"

// The device's config space through --pci_access (libpci, pciaccess, sim, dump:<file>).
class DeviceContext {
public:
    // Errors when the bus cannot be opened or the address is malformed.
    // `simulated`: what --pci_access sim opens (sim::open_demo_topology, handed in by the tool).
    static pdt::Result<std::unique_ptr<DeviceContext>> open(const std::string& access, const std::string& pci_address,
                                                            const SimulatedTopology& simulated = {});
    ~DeviceContext();
    // dump_pci_info's text for the device; on error, a line that says why.
    std::string pci_info();
    LinkState link();
    // Samples LnkSta every 10 ms on a second bus until stop_load_monitor.
    void start_load_monitor();
    LinkState stop_load_monitor();

private:
    DeviceContext() = default;
    std::string m_access, m_address_text;
    SimulatedTopology m_simulated;
    std::unique_ptr<pcie::ConfigBackend> m_bus, m_monitor_bus;
    std::unique_ptr<pcie::LinkMonitor> m_monitor;
};

}  // namespace measure
