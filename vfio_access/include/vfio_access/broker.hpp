// The seam through which another process can own the VFIO groups and containers (the VFIO
// multi-process manager, vfio_manager/): when KernelOptions::broker is set, KernelDeviceBus asks the
// broker for each device's fd and its container's fd instead of opening the group itself, and
// IOVA is allocated and freed by the broker (so mappings from different processes sharing a
// container never overlap). The device stays open in the broker's process after ours closes
// it, so VFIO does not reset it between tools.
#pragma once

#include <cstdint>

#include "base/result.hpp"
#include "vfio_access/pci_address.hpp"
#include "vfio_access/unique_fd.hpp"

namespace vfio {

// What the broker hands over for one device.
struct BrokeredDevice {
    UniqueFd device_fd;
    UniqueFd container_fd;     // the container the device's group is attached to
    uint32_t container_id = 0; // the broker's name for that container (IOVA requests name it)
    int iommu_type = 0;        // VFIO_TYPE1v2_IOMMU, VFIO_NOIOMMU_IOMMU...
    int iommu_group = -1;
    bool noiommu = false;
    uint64_t page_size = 4096; // smallest IOMMU page size of the container
};

class DeviceBroker {
public:
    virtual ~DeviceBroker() = default;
    // ENODEV with operation "open": the broker does not manage that device (KernelDeviceBus then
    // opens it directly, as without a broker).
    virtual pdt::Result<BrokeredDevice> open_device(const PciAddress& address) = 0;
    // An IOVA range of `size` bytes (a multiple of the page size) below 2^dma_mask_bits.
    virtual pdt::Result<uint64_t> allocate_iova(uint32_t container_id, uint64_t size, unsigned dma_mask_bits) = 0;
    virtual pdt::Result<void> free_iova(uint32_t container_id, uint64_t iova, uint64_t size) = 0;
};

}  // namespace vfio
