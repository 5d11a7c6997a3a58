// The answer of VFIO_IOMMU_GET_INFO (type1), parsed from the raw bytes the kernel filled in so
// that the capability-chain walk can be tested with hand-built buffers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/dma.hpp"

namespace vfio {

struct IommuMigrationCap {
    uint32_t flags = 0;
    uint64_t pgsize_bitmap = 0;
    uint64_t max_dirty_bitmap_size = 0;
};

struct IommuInfo {
    uint32_t flags = 0;         // VFIO_IOMMU_INFO_PGSIZES, VFIO_IOMMU_INFO_CAPS
    uint64_t iova_pgsizes = 0;  // bitmap of supported page sizes
    bool has_iova_range_cap = false;
    std::vector<IovaRange> iova_ranges;
    std::optional<IommuMigrationCap> migration;
    std::optional<uint32_t> dma_avail;
    std::vector<uint16_t> other_caps;  // capability IDs not decoded above

    // Smallest supported page size (lowest set bit of iova_pgsizes); 4096 when none reported.
    uint64_t smallest_page_size() const;
};

// bytes: the whole struct vfio_iommu_type1_info as returned by the second (full-size) call,
// argsz included. Errors name the byte offset of a malformed capability.
pdt::Result<IommuInfo> parse_iommu_info(std::span<const uint8_t> bytes);

// The allocator for a container: seeded from every IOVA range with the smallest page size.
// Without the IOVA-range capability DMA allocation is impossible: an error says so.
pdt::Result<IovaAllocator> make_iova_allocator(const IommuInfo& info);

// The page sizes of a bitmap, as "0x1000 0x200000 0x40000000".
std::string page_sizes_text(uint64_t bitmap);

}  // namespace vfio
