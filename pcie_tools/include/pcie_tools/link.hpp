// Link state along the whole path from a device to its root port: negotiated vs capable speed
// and width of every link, "downgraded" where lower, the bandwidth that implies, the reduced-
// bandwidth warning every tool that opens a device prints, and a monitor that samples Link
// Status while a transfer runs (an idle link may be power-saving at a lower speed).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pcie_tools/config_space.hpp"
#include "pcie_tools/decode.hpp"

namespace pcie {

// Per direction, in GB/s (1e9 bytes/s), after the line encoding (8b/10b, 128b/130b, FLIT 242/256).
double encoded_bandwidth(uint8_t speed, unsigned width);
// Per direction, ≈ payload GB/s for large transfers: encoded rate less ~9 % for DLLPs and SKIP
// ordered sets, less 24 bytes of TLP overhead per max-payload TLP (pcie-bench model).
double payload_bandwidth(uint8_t speed, unsigned width, unsigned max_payload);

// One link: the Root or Downstream Port above and the function below it.
struct LinkHop {
    std::optional<PciAddress> port_address;  // nullopt: the device has no readable port above it
    PciAddress below_address;
    std::optional<ExpressInfo> port;
    ExpressInfo below;
    uint8_t capable_speed = 0, capable_width = 0;  // the most both ends support
    uint8_t speed = 0, width = 0;                  // negotiated (read from the port when known)

    bool speed_downgraded() const { return speed != 0 && speed < capable_speed; }
    bool width_downgraded() const { return width != 0 && width < capable_width; }
    bool downgraded() const { return speed_downgraded() || width_downgraded(); }
    // Trained at the best both ends support, yet below the port's own capability: the device
    // is the limit (a slower card in a faster slot, or an FPGA's PCIe IP built for less).
    bool limited_by_device() const;
    bool aspm_enabled() const;              // ASPM L0s/L1 enabled at either end
    bool autonomous_speed_allowed() const;  // Hardware Autonomous Speed Disable clear at the port
    bool autonomous_change_seen() const;    // Link Autonomous Bandwidth Status set at either end
};

struct PathReport {
    PciAddress device;
    std::vector<LinkHop> hops;        // the device's own link first, the root port's link last
    std::vector<std::string> notes;   // what could not be read, and why
    bool downgraded() const;
    // The hop with the least negotiated bandwidth (nullptr when there are no hops).
    const LinkHop* bottleneck() const;
};

Result<PathReport> check_link_path(ConfigBackend& bus, const PciAddress& device);

// "Warning: Device <description> has reduced bandwidth" and the lines that explain it; empty
// when no link on the path is below what both of its ends support.
std::vector<std::string> format_link_warning(const PathReport& report, const std::string& description);
// One block per link: negotiated vs capable of both ends, "downgraded", bandwidth per direction.
std::vector<std::string> format_link_summary(const PathReport& report);
// A "Warning: link ..." line naming the port for each link that runs below its port only
// because the device is slower (a card in a faster slot, an FPGA's PCIe IP built for fewer
// lanes or a lower speed): no retrain can raise it. dump_pci_info prints these; tools that open
// a device warn only on real downgrades, so a Gen2 card in a Gen3 slot is not flagged at every open.
std::vector<std::string> format_slot_warnings(const PathReport& report);

// Samples Link Status of a device's link and its port while a transfer runs. The bus must not
// be used by another thread meanwhile (open a separate bus for the monitor).
struct LinkStatusRange {
    unsigned samples = 0, read_errors = 0;
    uint8_t min_speed = 0xff, max_speed = 0, min_width = 0xff, max_width = 0;
    void add(uint16_t lnksta);
};

struct LinkMonitorSummary {
    PciAddress device;
    std::optional<PciAddress> port;
    LinkStatusRange device_status, port_status;
    // "link under load: 0000:01:00.0 5 GT/s x4 (20 samples), port 0000:00:01.0 5 GT/s x4 (20 samples)"
    std::string line() const;
};

class LinkMonitor {
public:
    static Result<std::unique_ptr<LinkMonitor>> start(ConfigBackend& bus, const PciAddress& device,
                                                      std::chrono::milliseconds interval);
    ~LinkMonitor();
    LinkMonitorSummary stop();
    // Sampling rounds completed so far (for callers that want at least N samples).
    unsigned rounds() const { return m_rounds.load(); }

private:
    LinkMonitor() = default;
    void run();
    ConfigSpace* m_device_space = nullptr;
    ConfigSpace* m_port_space = nullptr;
    uint32_t m_device_lnksta = 0, m_port_lnksta = 0;
    std::chrono::milliseconds m_interval{10};
    LinkMonitorSummary m_summary;
    std::atomic<bool> m_stop{false};
    std::atomic<unsigned> m_rounds{0};
    std::thread m_thread;
};

}  // namespace pcie
