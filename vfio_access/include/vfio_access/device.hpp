// The device seam: everything a driver does with a PCI function. The kernel backend implements
// it over VFIO; simulated devices (sim/) implement it over register-level models. Drivers,
// adapters and tools see only this interface and cannot tell the two apart.
#pragma once

#include <linux/pci_regs.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/device_lock.hpp"
#include "vfio_access/dma.hpp"
#include "vfio_access/dma_fence.hpp"
#include "vfio_access/mmio.hpp"
#include "vfio_access/pci_address.hpp"

namespace vfio {

struct DeviceIdentity {
    PciAddress address;
    uint16_t vendor_id = 0xffff;
    uint16_t device_id = 0xffff;
    uint16_t subsystem_vendor_id = 0xffff;
    uint16_t subsystem_device_id = 0xffff;
    uint8_t revision = 0;
    uint32_t class_code = 0;  // base class, sub class, prog-if
    int iommu_group = -1;     // -1: none known

    // "device 0000:01:00.0 (10ee:7024)", as fpga_sio prints it.
    std::string description() const;
};

enum class IrqIndex : unsigned { Intx = 0, Msi = 1, Msix = 2, Err = 3, Req = 4 };
const char* to_string(IrqIndex index);

struct IrqInfo {
    IrqIndex index = IrqIndex::Msi;
    uint32_t count = 0;
    uint32_t flags = 0;  // VFIO_IRQ_INFO_* bits
};

// PCI configuration space registers the toolkit's drivers, tools and tests name, typed for
// config_read*/config_write16; the values are the kernel's (<linux/pci_regs.h>).
namespace cfg {
inline constexpr uint32_t VENDOR_ID = PCI_VENDOR_ID;
inline constexpr uint32_t DEVICE_ID = PCI_DEVICE_ID;
inline constexpr uint32_t COMMAND = PCI_COMMAND;
inline constexpr uint32_t STATUS = PCI_STATUS;
inline constexpr uint32_t REVISION_ID = PCI_REVISION_ID;
inline constexpr uint32_t SUBSYSTEM_VENDOR_ID = PCI_SUBSYSTEM_VENDOR_ID;
inline constexpr uint32_t SUBSYSTEM_ID = PCI_SUBSYSTEM_ID;
inline constexpr uint32_t CAPABILITIES_POINTER = PCI_CAPABILITY_LIST;
inline constexpr uint16_t COMMAND_MEMORY = PCI_COMMAND_MEMORY;
inline constexpr uint16_t COMMAND_MASTER = PCI_COMMAND_MASTER;
}  // namespace cfg

class Device {
public:
    virtual ~Device() = default;

    virtual const DeviceIdentity& identity() const = 0;

    // Configuration space (the VFIO config region for the kernel backend).
    virtual pdt::Result<void> config_read(uint32_t offset, void* data, uint32_t size) = 0;
    virtual pdt::Result<void> config_write(uint32_t offset, const void* data, uint32_t size) = 0;
    pdt::Result<uint8_t> config_read8(uint32_t offset);
    pdt::Result<uint16_t> config_read16(uint32_t offset);
    pdt::Result<uint32_t> config_read32(uint32_t offset);
    pdt::Result<void> config_write16(uint32_t offset, uint16_t value);
    // Sets Bus Master in the Command register; returns true when it had to be set.
    pdt::Result<bool> enable_bus_master();

    // A memory BAR, mapped on first use and owned by the device. Fails for absent, I/O or
    // unmappable BARs.
    virtual pdt::Result<Bar*> bar(unsigned index) = 0;

    // IOMMU mapping of host memory at an IOVA chosen from iova_allocator().
    virtual pdt::Result<void> dma_map(uint64_t iova, void* vaddr, uint64_t size, DmaAccess access) = 0;
    // Returns the number of bytes the IOMMU reports unmapped.
    virtual pdt::Result<uint64_t> dma_unmap(uint64_t iova, uint64_t size) = 0;
    virtual IovaAllocator& iova_allocator() = 0;
    // No-IOMMU devices (physical_memory.hpp): the pool their DMA buffers come from, whose
    // addresses are physical; null when an IOMMU maps DMA (the default). DmaRegion asks first.
    // Errors: a no-IOMMU device the caller did not opt into (--no_iommu), a pool not made.
    virtual pdt::Result<std::shared_ptr<PhysicalPool>> physical_pool() { return std::shared_ptr<PhysicalPool>(); }
    virtual DmaAddressing dma_addressing() const { return DmaAddressing::Iommu; }

    // Interrupts: each enabled vector signals an eventfd.
    virtual pdt::Result<IrqInfo> irq_info(IrqIndex index) = 0;
    virtual pdt::Result<void> irq_enable(IrqIndex index, unsigned vectors) = 0;
    virtual pdt::Result<void> irq_disable(IrqIndex index) = 0;
    virtual pdt::Result<int> irq_eventfd(unsigned vector) = 0;
    // Call after the device's interrupt has been acknowledged: re-enables a level interrupt
    // the kernel masked when it fired (INTx). Nothing to do for MSI/MSI-X.
    virtual pdt::Result<void> irq_unmask(unsigned vector) {
        (void)vector;
        return {};
    }
    // Waits for vector's eventfd; returns the number of interrupts counted since the last wait.
    // ETIMEDOUT when none came within timeout.
    pdt::Result<uint64_t> irq_wait(unsigned vector, std::chrono::milliseconds timeout);
    // Non-blocking: the count pending now (0 when none).
    pdt::Result<uint64_t> irq_poll(unsigned vector);

    virtual pdt::Result<void> reset() = 0;

    // The DMA the IOMMU refused this device, one line each ("device write at IOVA 0x..., N bytes:
    // why"), where the device keeps them: a model's IOMMU records every one; the kernel's are in
    // its log (dmesg: DMAR ... fault addr), and this is empty.
    virtual std::vector<std::string> iommu_faults() const { return {}; }

    // The advisory lock (device_lock.hpp) this process holds on the device, or null when none
    // was taken (simulated designs, a bus without a lock directory). Held as long as the
    // device: it is released after the derived device has closed everything.
    const DeviceLock* lock() const { return m_lock.get(); }
    void hold_lock(std::unique_ptr<DeviceLock> lock) { m_lock = std::move(lock); }

    // Who may still write this device's DMA memory (dma_fence.hpp): engines claim it while they
    // may write, and DmaRegion defers releases while a claim is held or was abandoned.
    DmaFence& dma_fence() { return m_fence; }

private:
    std::unique_ptr<DeviceLock> m_lock;
    DmaFence m_fence;  // destroyed after the derived device closed: held-back releases are kept
};

// A set of devices that can be scanned and opened: the kernel's VFIO devices, or a simulated
// bus of designs. Mains pick one; below them, simulated() is the one way to tell which.
class DeviceBus {
public:
    virtual ~DeviceBus() = default;
    virtual std::string name() const = 0;
    // Models (sim/) rather than the kernel's devices: the one answer to "is this simulated?",
    // asked of the bus rather than of the options that chose it.
    virtual bool simulated() const { return false; }
    virtual pdt::Result<std::vector<DeviceIdentity>> scan() = 0;
    virtual pdt::Result<std::unique_ptr<Device>> open(const DeviceIdentity& identity) = 0;
};

}  // namespace vfio
