// What the backends over this machine's functions (libpci, libpciaccess, vfio) share: sysfs.
#pragma once

#include "pcie_tools/backends.hpp"

namespace pcie {

// A function of this machine's config space as the OS serves it (libpci, libpciaccess): `size`
// bytes readable (64 without CAP_SYS_ADMIN), written only when `writable`.
class SysfsSpace : public ConfigSpace {
public:
    SysfsSpace(PciAddress address, uint32_t size, bool writable)
        : m_address(address), m_size(size), m_writable(writable) {}
    const PciAddress& address() const override { return m_address; }
    uint32_t size() const override { return m_size; }

protected:
    // A read past size(): EPERM when only the 64 unprivileged bytes are readable, else EIO.
    Result<void> check_read(uint32_t offset, uint32_t length) const;
    bool writable() const { return m_writable; }

private:
    PciAddress m_address;
    uint32_t m_size;
    bool m_writable;
};

// The bridge above a function from its sysfs path, else ConfigBackend's scan of the bus.
class SysfsBackend : public ConfigBackend {
public:
    Result<std::optional<PciAddress>> parent(const PciAddress& address) override;
};

// 4096 when sysfs's config file holds the extended config space, else 256.
uint32_t sysfs_config_size(const PciAddress& address);

}  // namespace pcie
