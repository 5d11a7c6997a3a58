#include "pcie_tools/backends.hpp"
#include "pcie_tools/link.hpp"

namespace pcie {

VfioConfigSpace::VfioConfigSpace(vfio::Device& device) : m_device(device) {
    uint32_t probe = 0;
    if (!m_device.config_read(0x100, &probe, 4))
        m_size = 256;
}

Result<void> VfioConfigSpace::read(uint32_t offset, void* data, uint32_t length) {
    if (offset + length > size())
        return access_error("read config", offset, length, EIO, "beyond 4096 bytes");
    auto r = m_device.config_read(offset, data, length);
    if (!r)
        return access_error("read VFIO config region", offset, length, r.error().code, r.error().message());
    return {};
}

Result<ConfigSpace*> VfioOverlayBackend::open(const PciAddress& address) {
    if (address == m_space.address())
        return static_cast<ConfigSpace*>(&m_space);
    return m_base.open(address);
}

Result<std::vector<std::string>> open_device_link_warning(ConfigBackend& ports, vfio::Device& device) {
    VfioOverlayBackend bus(ports, device);
    const PathReport report = PDT_TRY(check_link_path(bus, device.identity().address));
    std::vector<std::string> lines = format_link_warning(report, device.identity().description());
    for (const std::string& note : report.notes)
        lines.push_back("Note: link check: " + note);
    return lines;
}

}  // namespace pcie
