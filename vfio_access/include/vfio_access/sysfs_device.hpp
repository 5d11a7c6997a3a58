// A device reached without VFIO, through the kernel's sysfs files, as libpciaccess reaches one
// on Linux (fpga_sio's *_libpciaccess programs): config space read from
// <sysfs_root>/bus/pci/devices/<bdf>/config and each memory BAR mmap()ed from its resource<N>
// file. Nothing opens the device through vfio-pci, so nothing resets it (vfio-pci resets a
// function on open and close): a BAR's memory is seen as the last process left it. It serves
// CPU access to BARs only: no DMA (no IOMMU mapping), no interrupts and no reset; each fails
// with ENOTSUP saying so. Opening resource files needs root; the device may stay bound to
// any driver, and that driver may use the BAR meanwhile: the user's to judge.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "vfio_access/device.hpp"

namespace vfio {

class SysfsDevice final : public Device {
public:
    // ENOENT naming the directory when <sysfs_root>/bus/pci/devices/<bdf> is absent; the read
    // error of its config file otherwise. `sysfs_root` is "/sys" (tests pass a fake tree).
    static pdt::Result<std::unique_ptr<SysfsDevice>> open(const std::string& sysfs_root, const PciAddress& address);

    const DeviceIdentity& identity() const override { return m_identity; }
    pdt::Result<void> config_read(uint32_t offset, void* data, uint32_t size) override;
    pdt::Result<void> config_write(uint32_t offset, const void* data, uint32_t size) override;
    // resource<N> mmap()ed on first use (read and write, shared): ENODEV when the file is absent
    // (no such BAR, or an I/O BAR), EACCES with a hint to run as root.
    pdt::Result<Bar*> bar(unsigned index) override;
    // No DMA, interrupts or reset through sysfs: each is refused, ENOTSUP naming the operation.
    IovaAllocator& iova_allocator() override { return m_iova; }
    pdt::Result<void> dma_map(uint64_t, void*, uint64_t, DmaAccess) override { return not_supported("map DMA"); }
    pdt::Result<uint64_t> dma_unmap(uint64_t, uint64_t) override { return not_supported("unmap DMA"); }
    pdt::Result<IrqInfo> irq_info(IrqIndex) override { return not_supported("read interrupt info"); }
    pdt::Result<void> irq_enable(IrqIndex, unsigned) override { return not_supported("enable interrupts"); }
    pdt::Result<void> irq_disable(IrqIndex) override { return not_supported("disable interrupts"); }
    pdt::Result<int> irq_eventfd(unsigned) override { return not_supported("read interrupt eventfd"); }
    pdt::Result<void> reset() override { return not_supported("reset device"); }

private:
    SysfsDevice(std::string directory, DeviceIdentity identity);
    pdt::Error not_supported(const std::string& operation) const;
    std::string m_directory;  // <sysfs_root>/bus/pci/devices/<bdf>
    DeviceIdentity m_identity;
    IovaAllocator m_iova;
    std::array<std::unique_ptr<Bar>, 6> m_bars;
};

}  // namespace vfio
