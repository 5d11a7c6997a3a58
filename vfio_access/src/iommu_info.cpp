#include "base/format.hpp"
#include "vfio_access/iommu_info.hpp"

#include <linux/vfio.h>

#include <cstdio>
#include <cstring>

namespace vfio {
namespace {

template <typename T>
T load(std::span<const uint8_t> bytes, size_t offset) {
    T value{};
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

pdt::Error malformed(size_t offset, const std::string& why) {
    return pdt::make_error("parse VFIO_IOMMU_GET_INFO", "capability at offset " + pdt::hex(offset), EPROTO, why);
}

pdt::Result<void> parse_cap(std::span<const uint8_t> bytes, size_t offset, uint16_t id, IommuInfo& info) {
    switch (id) {
    case VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE: {
        if (offset + sizeof(vfio_iommu_type1_info_cap_iova_range) > bytes.size())
            return malformed(offset, "IOVA range capability truncated");
        const uint32_t count = load<uint32_t>(bytes, offset + offsetof(vfio_iommu_type1_info_cap_iova_range, nr_iovas));
        const size_t first = offset + sizeof(vfio_iommu_type1_info_cap_iova_range);
        if (count > (bytes.size() - first) / sizeof(vfio_iova_range))
            return malformed(offset, std::to_string(count) + " IOVA ranges do not fit in the buffer");
        info.has_iova_range_cap = true;
        for (uint32_t i = 0; i < count; ++i) {
            const auto range = load<vfio_iova_range>(bytes, first + i * sizeof(vfio_iova_range));
            if (range.end < range.start)
                return malformed(offset, "IOVA range " + std::to_string(i) + " ends before it starts");
            info.iova_ranges.push_back({range.start, range.end});
        }
        return {};
    }
    case VFIO_IOMMU_TYPE1_INFO_CAP_MIGRATION: {
        if (offset + sizeof(vfio_iommu_type1_info_cap_migration) > bytes.size())
            return malformed(offset, "migration capability truncated");
        const auto cap = load<vfio_iommu_type1_info_cap_migration>(bytes, offset);
        info.migration = IommuMigrationCap{cap.flags, cap.pgsize_bitmap, cap.max_dirty_bitmap_size};
        return {};
    }
    case VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL: {
        if (offset + sizeof(vfio_iommu_type1_info_dma_avail) > bytes.size())
            return malformed(offset, "DMA available capability truncated");
        info.dma_avail = load<vfio_iommu_type1_info_dma_avail>(bytes, offset).avail;
        return {};
    }
    default:
        info.other_caps.push_back(id);
        return {};
    }
}

}  // namespace

uint64_t IommuInfo::smallest_page_size() const { return iova_pgsizes ? (iova_pgsizes & (~iova_pgsizes + 1)) : 4096; }

pdt::Result<IommuInfo> parse_iommu_info(std::span<const uint8_t> bytes) {
    constexpr size_t base_size = offsetof(vfio_iommu_type1_info, cap_offset);
    if (bytes.size() < base_size)
        return pdt::make_error("parse VFIO_IOMMU_GET_INFO", std::to_string(bytes.size()) + " bytes", EPROTO,
                          "shorter than the fixed part of struct vfio_iommu_type1_info");
    IommuInfo info;
    info.flags = load<uint32_t>(bytes, offsetof(vfio_iommu_type1_info, flags));
    info.iova_pgsizes = load<uint64_t>(bytes, offsetof(vfio_iommu_type1_info, iova_pgsizes));
    if (!(info.flags & VFIO_IOMMU_INFO_CAPS) || bytes.size() < sizeof(vfio_iommu_type1_info))
        return info;
    size_t offset = load<uint32_t>(bytes, offsetof(vfio_iommu_type1_info, cap_offset));
    size_t previous = 0;
    while (offset != 0) {
        // Each capability lies after the previous one and after the fixed part: this also
        // stops a chain that loops back on itself.
        if (offset < sizeof(vfio_iommu_type1_info) || offset <= previous)
            return malformed(offset, "capability chain points backwards");
        if (offset + sizeof(vfio_info_cap_header) > bytes.size())
            return malformed(offset, "capability header beyond the " + std::to_string(bytes.size()) + "-byte buffer");
        const auto header = load<vfio_info_cap_header>(bytes, offset);
        PDT_CHECK(parse_cap(bytes, offset, header.id, info));
        previous = offset;
        offset = header.next;
    }
    return info;
}

pdt::Result<IovaAllocator> make_iova_allocator(const IommuInfo& info) {
    if (!info.has_iova_range_cap)
        return pdt::make_error("seed IOVA allocator", "VFIO_IOMMU_GET_INFO", ENOTSUP,
                          "the kernel reports no VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE capability, so DMA allocation is "
                          "impossible (kernel older than 5.4?)");
    if (info.iova_ranges.empty())
        return pdt::make_error("seed IOVA allocator", "VFIO_IOMMU_GET_INFO", ENOSPC,
                          "the IOVA range capability lists no usable range, so DMA allocation is impossible");
    return IovaAllocator(info.iova_ranges, info.smallest_page_size());
}

std::string page_sizes_text(uint64_t bitmap) {
    std::string text;
    for (unsigned bit = 0; bit < 64; ++bit) {
        if (!(bitmap & (1ull << bit)))
            continue;
        if (!text.empty())
            text += ' ';
        text += pdt::hex(1ull << bit);
    }
    return text;
}

}  // namespace vfio
