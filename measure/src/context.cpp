#include "measure/context.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "pcie_tools/dump_info.hpp"
#include "pcie_tools/link.hpp"

namespace measure {
namespace {

namespace fs = std::filesystem;

std::string read_line(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
            return line.substr(line.find(':') + 2);
    return {};
}

// The IOMMU domain type of the device's group (DMA, DMA-FQ, identity, ...), else of any group,
// else "none" when the kernel has no IOMMU groups.
std::string iommu_mode(const std::string& pci_address) {
    std::error_code ec;
    if (!pci_address.empty()) {
        const std::string type = read_line(fs::path("/sys/bus/pci/devices") / pci_address / "iommu_group" / "type");
        if (!type.empty())
            return type;
    }
    const fs::path groups("/sys/kernel/iommu_groups");
    if (!fs::exists(groups, ec))
        return "none (no /sys/kernel/iommu_groups)";
    for (const auto& entry : fs::directory_iterator(groups, ec)) {
        const std::string type = read_line(entry.path() / "type");
        if (!type.empty())
            return type + " (group " + entry.path().filename().string() + ")";
    }
    return fs::is_empty(groups, ec) ? "none (no IOMMU groups)" : "unknown";
}

LinkState link_state(uint8_t speed, uint8_t width, uint16_t lnksta) {
    LinkState s;
    s.read = true;
    s.speed = pcie::speed_name_lspci(speed);
    s.width = width;
    char raw[16];
    std::snprintf(raw, sizeof raw, "%04x", lnksta);
    s.text = "LnkSta: Speed " + s.speed + ", Width x" + std::to_string(width) + " (0x" + raw + ")";
    return s;
}

}  // namespace

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

HostContext capture_host(const std::string& pci_address) {
    HostContext h;
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0)
        h.hostname = name;
    h.cpu = cpu_model();
    h.cores = std::thread::hardware_concurrency();
    utsname u{};
    if (uname(&u) == 0)
        h.kernel = std::string(u.sysname) + " " + u.release + " " + u.version;
    h.kernel_cmdline = read_line("/proc/cmdline");
    h.iommu_mode = iommu_mode(pci_address);
    // No sysfs file gives the IOMMU's page size; its smallest page is the CPU's on x86 and arm64
    // kernels with 4 KiB pages, so the CPU page size is recorded when an IOMMU is present.
    if (h.iommu_mode.rfind("none", 0) != 0)
        h.iommu_page_size = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    if (!pci_address.empty()) {
        const std::string node = read_line(fs::path("/sys/bus/pci/devices") / pci_address / "numa_node");
        if (!node.empty())
            h.numa_node = std::atoi(node.c_str());
    }
    return h;
}

DeviceContext::~DeviceContext() {
    if (m_monitor)
        m_monitor->stop();
}

pdt::Result<std::unique_ptr<DeviceContext>> DeviceContext::open(const std::string& access,
                                                                const std::string& pci_address,
                                                                const SimulatedTopology& simulated) {
    std::unique_ptr<DeviceContext> c(new DeviceContext);
    c->m_access = access;
    c->m_simulated = simulated;
    c->m_address_text = pci_address;
    PDT_TRY(pcie::parse_bdf(pci_address));
    c->m_bus = PDT_TRY(pcie::open_backend(access, false, {}, simulated));
    return c;
}

std::string DeviceContext::pci_info() {
    const auto address = pcie::parse_bdf(m_address_text);
    if (!address)
        return "unavailable: " + address.error().message();
    auto lines = pcie::dump_device(*m_bus, *address);
    if (!lines)
        return "unavailable: " + lines.error().message();
    std::string text;
    for (const std::string& line : *lines)
        text += line + "\n";
    return text;
}

LinkState DeviceContext::link() {
    const auto address = pcie::parse_bdf(m_address_text);
    if (!address)
        return {};
    auto space = m_bus->open(*address);
    if (!space)
        return {};
    auto e = pcie::read_express(**space);
    if (!e)
        return {};
    return link_state(e->speed(), e->width(), e->lnksta);
}

void DeviceContext::start_load_monitor() {
    const auto address = pcie::parse_bdf(m_address_text);
    auto bus = pcie::open_backend(m_access, false, {}, m_simulated);
    if (!address || !bus)
        return;
    m_monitor_bus = std::move(*bus);
    auto monitor = pcie::LinkMonitor::start(*m_monitor_bus, *address, std::chrono::milliseconds(10));
    if (monitor)
        m_monitor = std::move(*monitor);
}

LinkState DeviceContext::stop_load_monitor() {
    if (!m_monitor)
        return {};
    const pcie::LinkMonitorSummary s = m_monitor->stop();
    m_monitor.reset();
    const pcie::LinkStatusRange& r = s.device_status;
    if (r.samples == 0)
        return {};
    LinkState state = link_state(r.min_speed, r.min_width, 0);
    if (r.min_speed != r.max_speed)
        state.speed += "-" + pcie::speed_name_lspci(r.max_speed);
    state.text = s.line();
    if (r.min_width != r.max_width)
        state.text += " (width changed)";
    return state;
}

}  // namespace measure
