// Config-space backends over the operating system: libpci (pciutils), libpciaccess, and the
// VFIO config region of an open device (vfio::Device).
#pragma once

#include <memory>

#include "pcie_tools/config_space.hpp"
#include "vfio_access/device.hpp"

namespace pcie {

// libpci with the Linux sysfs method. Reading past offset 64 needs CAP_SYS_ADMIN (root);
// writing needs root and `writable`.
Result<std::unique_ptr<ConfigBackend>> open_libpci_backend(bool writable);
Result<std::unique_ptr<ConfigBackend>> open_pciaccess_backend(bool writable);
// Functions bound to vfio-pci through their VFIO config region (read-only), all others through
// libpci (writable when `writable`: pcie_set_speed_vfio writes the port above). Opening a
// function through VFIO resets it (the kernel does, on every VFIO open), so each VFIO open
// first takes the function's advisory lock when lock.directory is set.
Result<std::unique_ptr<ConfigBackend>> open_vfio_backend(const vfio::LockOptions& lock = {}, bool writable = false);

// The config region of an open VFIO device: the whole space is readable without CAP_SYS_ADMIN.
class VfioConfigSpace : public ConfigSpace {
public:
    // The region is 256 bytes for conventional functions, 4096 for PCI Express ones.
    explicit VfioConfigSpace(vfio::Device& device);
    const PciAddress& address() const override { return m_device.identity().address; }
    uint32_t size() const override { return m_size; }
    Result<void> read(uint32_t offset, void* data, uint32_t length) override;

private:
    vfio::Device& m_device;
    uint32_t m_size = 4096;
};

// A bus that serves an open VFIO device's config through its config region and every other
// function (its ports up to the root) through `base`: what a tool that has opened a device
// gives check_link_path. Read-only.
class VfioOverlayBackend : public ConfigBackend {
public:
    VfioOverlayBackend(ConfigBackend& base, vfio::Device& device) : m_base(base), m_space(device) {}
    std::string name() const override { return "vfio+" + m_base.name(); }
    Result<std::vector<PciAddress>> devices() override { return m_base.devices(); }
    Result<ConfigSpace*> open(const PciAddress& address) override;
    Result<std::optional<PciAddress>> parent(const PciAddress& address) override { return m_base.parent(address); }
    SystemInfo system_info(const PciAddress& address) override { return m_base.system_info(address); }

private:
    ConfigBackend& m_base;
    VfioConfigSpace m_space;
};

// The reduced-bandwidth check every tool that opens a device runs: the device's config through
// its VFIO region, its ports up to the root through `ports` (libpci; the ports' PCI Express
// capabilities need root). Returns the warning (empty when no link on the path is below what
// both of its ends support) followed by notes on what could not be read.
Result<std::vector<std::string>> open_device_link_warning(ConfigBackend& ports, vfio::Device& device);

// What sysfs knows about a function (driver, IOMMU group, slot, NUMA node, BAR sizes).
SystemInfo sysfs_system_info(const PciAddress& address);
// The parent bridge from the sysfs device path (/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0).
std::optional<PciAddress> sysfs_parent(const PciAddress& address);

}  // namespace pcie
