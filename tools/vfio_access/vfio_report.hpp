// What display_vfio_information reports: gathered from a KernelDeviceBus, then printed as text lines
// (fpga_sio's wording) or as JSON. Gathering and formatting are separate so the formats are
// tested with hand-built reports.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "vfio_access/kernel.hpp"

namespace vfio::report {

struct BarDecode {
    uint64_t base_addr = 0;
    bool is_io = false;
    bool is_prefetchable = false;
    bool is_64 = false;
};

struct RegionReport {
    RegionInfo info;
    std::optional<BarDecode> bar;  // BARs 0-5 with a non-zero size
};

struct DeviceReport {
    DeviceIdentity identity;
    GroupStatus group;
    uint32_t flags = 0, num_regions = 0, num_irqs = 0;
    uint16_t command = 0;
    std::vector<RegionReport> regions;
    std::vector<IrqInfo> irqs;
};

struct Report {
    ContainerInfo container;
    std::vector<DeviceReport> devices;
    std::vector<std::string> errors;  // one line per device that could not be reported
};

// Reads everything the report shows from an open device. Keep the devices open until the
// container's IOMMU information is read: the kernel drops it with the last device's group.
pdt::Result<DeviceReport> gather_device(KernelDevice& device);
// Decodes a BAR register (and the next one for a 64-bit memory BAR).
BarDecode decode_bar(uint32_t low, uint32_t high);

std::string iommu_type_name(int type);
std::string device_flags_text(uint32_t flags);  // "reset pci"
std::string irq_flags_text(uint32_t flags);     // "eventfd maskable automasked noresize"
std::string irq_block_name(IrqIndex index);     // "INTX", "MSI", "MSIX", "ERR", "REQ"
std::string region_cap_name(uint16_t id);       // "SPARSE_MMAP", "MSIX_MAPPABLE", ... or "id=<n>"

std::string format_text(const Report& report);
nlohmann::json to_json(const Report& report);

}  // namespace vfio::report
