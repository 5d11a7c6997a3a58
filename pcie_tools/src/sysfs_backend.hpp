// What the backends over this machine's functions (libpci, libpciaccess, vfio) share: sysfs.
#pragma once

#include "pcie_tools/backends.hpp"

namespace pcie {

// The bridge above a function from its sysfs path, else ConfigBackend's scan of the bus.
class SysfsBackend : public ConfigBackend {
public:
    Result<std::optional<PciAddress>> parent(const PciAddress& address) override;
};

// 4096 when sysfs's config file holds the extended config space, else 256.
uint32_t sysfs_config_size(const PciAddress& address);

}  // namespace pcie
