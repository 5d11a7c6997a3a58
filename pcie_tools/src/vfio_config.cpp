#include "pcie_tools/backends.hpp"

namespace pcie {

Result<void> VfioConfigSpace::read(uint32_t offset, void* data, uint32_t length) {
    if (offset + length > size())
        return access_error("read config", offset, length, EIO, "beyond 4096 bytes");
    auto r = m_device.config_read(offset, data, length);
    if (!r)
        return access_error("read VFIO config region", offset, length, r.error().code, r.error().message());
    return {};
}

Result<ConfigSpace*> VfioOverlayBus::open(const PciAddress& address) {
    if (address == m_space.address())
        return static_cast<ConfigSpace*>(&m_space);
    return m_base.open(address);
}

}  // namespace pcie
