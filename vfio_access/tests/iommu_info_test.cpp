#include <gtest/gtest.h>
#include <linux/vfio.h>

#include <cstring>
#include <vector>

#include "vfio_access/iommu_info.hpp"

namespace {

// Builds a VFIO_IOMMU_GET_INFO answer the way the kernel lays it out: the fixed struct, then
// capabilities chained by byte offsets from the start of the buffer.
class InfoBuilder {
public:
    explicit InfoBuilder(uint64_t pgsizes, bool caps = true) : m_bytes(sizeof(vfio_iommu_type1_info), 0) {
        vfio_iommu_type1_info info{};
        info.flags = VFIO_IOMMU_INFO_PGSIZES | (caps ? VFIO_IOMMU_INFO_CAPS : 0);
        info.iova_pgsizes = pgsizes;
        put(0, info);
    }
    InfoBuilder& iova_ranges(const std::vector<vfio_iova_range>& ranges) {
        vfio_iommu_type1_info_cap_iova_range cap{};
        cap.header.id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE;
        cap.header.version = 1;
        cap.nr_iovas = static_cast<uint32_t>(ranges.size());
        const size_t at = append(&cap, sizeof cap);
        for (const auto& r : ranges)
            append(&r, sizeof r);
        return link(at);
    }
    InfoBuilder& dma_avail(uint32_t avail) {
        vfio_iommu_type1_info_dma_avail cap{};
        cap.header.id = VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL;
        cap.avail = avail;
        return link(append(&cap, sizeof cap));
    }
    InfoBuilder& migration(uint64_t pgsizes, uint64_t max_bitmap) {
        vfio_iommu_type1_info_cap_migration cap{};
        cap.header.id = VFIO_IOMMU_TYPE1_INFO_CAP_MIGRATION;
        cap.pgsize_bitmap = pgsizes;
        cap.max_dirty_bitmap_size = max_bitmap;
        return link(append(&cap, sizeof cap));
    }
    InfoBuilder& unknown(uint16_t id) {
        vfio_info_cap_header cap{};
        cap.id = id;
        return link(append(&cap, sizeof cap));
    }
    std::vector<uint8_t> bytes() const {
        std::vector<uint8_t> out = m_bytes;
        const uint32_t argsz = static_cast<uint32_t>(out.size());
        std::memcpy(out.data(), &argsz, sizeof argsz);
        return out;
    }
    void set_u32(size_t offset, uint32_t value) { std::memcpy(m_bytes.data() + offset, &value, sizeof value); }
    size_t last_cap() const { return m_last; }

private:
    template <typename T>
    void put(size_t offset, const T& value) { std::memcpy(m_bytes.data() + offset, &value, sizeof value); }
    size_t append(const void* data, size_t size) {
        const size_t at = m_bytes.size();
        m_bytes.resize(at + size);
        std::memcpy(m_bytes.data() + at, data, size);
        return at;
    }
    InfoBuilder& link(size_t at) {
        if (m_last == 0)
            set_u32(offsetof(vfio_iommu_type1_info, cap_offset), static_cast<uint32_t>(at));
        else
            set_u32(m_last + offsetof(vfio_info_cap_header, next), static_cast<uint32_t>(at));
        m_last = at;
        return *this;
    }
    std::vector<uint8_t> m_bytes;
    size_t m_last = 0;
};

}  // namespace

TEST(IommuInfo, ParsesIovaRangesAndOtherCapabilities) {
    // As an x86 intel-iommu reports: the MSI window 0xfee00000-0xfeefffff is excluded.
    const auto bytes = InfoBuilder(0x40201000)
                           .iova_ranges({{0, 0xfedfffff}, {0xfef00000, 0xffffffffffff}})
                           .migration(0x1000, 0x10000000)
                           .unknown(77)
                           .dma_avail(65535)
                           .bytes();
    const auto info = vfio::parse_iommu_info(bytes);
    ASSERT_TRUE(info.ok()) << info.error().message();
    EXPECT_EQ(info->iova_pgsizes, 0x40201000u);
    EXPECT_EQ(info->smallest_page_size(), 0x1000u);
    ASSERT_TRUE(info->has_iova_range_cap);
    ASSERT_EQ(info->iova_ranges.size(), 2u);
    EXPECT_EQ(info->iova_ranges[0].start, 0u);
    EXPECT_EQ(info->iova_ranges[0].last, 0xfedfffffu);
    EXPECT_EQ(info->iova_ranges[1].start, 0xfef00000u);
    EXPECT_EQ(info->iova_ranges[1].last, 0xffffffffffffu);
    ASSERT_TRUE(info->migration.has_value());
    EXPECT_EQ(info->migration->pgsize_bitmap, 0x1000u);
    EXPECT_EQ(info->migration->max_dirty_bitmap_size, 0x10000000u);
    ASSERT_TRUE(info->dma_avail.has_value());
    EXPECT_EQ(*info->dma_avail, 65535u);
    ASSERT_EQ(info->other_caps.size(), 1u);
    EXPECT_EQ(info->other_caps[0], 77);
    EXPECT_EQ(vfio::page_sizes_text(info->iova_pgsizes), "0x1000 0x200000 0x40000000");
}

TEST(IommuInfo, AllocatorIsSeededFromRangesWithSmallestPage) {
    const auto bytes = InfoBuilder(0x200000 | 0x10000).iova_ranges({{0x100000, 0xfedfffff}}).bytes();
    const auto info = vfio::parse_iommu_info(bytes);
    ASSERT_TRUE(info.ok());
    auto allocator = vfio::make_iova_allocator(*info);
    ASSERT_TRUE(allocator.ok()) << allocator.error().message();
    EXPECT_EQ(allocator->page_size(), 0x10000u);
    const auto iova = allocator->allocate(1, 28);  // edu: below 256 MiB
    ASSERT_TRUE(iova.ok());
    EXPECT_EQ(*iova, 0x100000u);
    EXPECT_EQ(allocator->allocate(1, 28).value(), 0x110000u);
}

TEST(IommuInfo, MissingIovaRangeCapabilityMakesDmaAllocationImpossible) {
    const auto info = vfio::parse_iommu_info(InfoBuilder(0x1000, false).bytes());
    ASSERT_TRUE(info.ok());
    EXPECT_FALSE(info->has_iova_range_cap);
    const auto allocator = vfio::make_iova_allocator(*info);
    ASSERT_FALSE(allocator.ok());
    EXPECT_EQ(allocator.error().code, ENOTSUP);
    EXPECT_NE(allocator.error().message().find("VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE"), std::string::npos);
    EXPECT_NE(allocator.error().message().find("DMA allocation is impossible"), std::string::npos);
    // The container keeps that reason: every allocation reports it.
    auto unavailable = vfio::IovaAllocator::unavailable(allocator.error());
    const auto iova = unavailable.allocate(4096);
    ASSERT_FALSE(iova.ok());
    EXPECT_NE(iova.error().message().find("DMA allocation is impossible"), std::string::npos);
}

TEST(IommuInfo, EmptyRangeListIsAnError) {
    const auto info = vfio::parse_iommu_info(InfoBuilder(0x1000).iova_ranges({}).bytes());
    ASSERT_TRUE(info.ok());
    const auto allocator = vfio::make_iova_allocator(*info);
    ASSERT_FALSE(allocator.ok());
    EXPECT_EQ(allocator.error().code, ENOSPC);
}

TEST(IommuInfo, OldKernelWithoutCapsHasOnlyPageSizes) {
    std::vector<uint8_t> bytes = InfoBuilder(0x1000, false).bytes();
    bytes.resize(offsetof(vfio_iommu_type1_info, cap_offset));  // struct before cap_offset existed
    const auto info = vfio::parse_iommu_info(bytes);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->iova_pgsizes, 0x1000u);
    EXPECT_FALSE(info->has_iova_range_cap);
}

TEST(IommuInfo, TooShortBufferIsRejected) {
    const std::vector<uint8_t> bytes(8, 0);
    const auto info = vfio::parse_iommu_info(bytes);
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.error().code, EPROTO);
}

TEST(IommuInfo, TruncatedRangeListIsRejected) {
    std::vector<uint8_t> bytes = InfoBuilder(0x1000).iova_ranges({{0, 0xffff}}).bytes();
    bytes.resize(bytes.size() - 8);
    const auto info = vfio::parse_iommu_info(bytes);
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.error().message().find("do not fit"), std::string::npos) << info.error().message();
}

TEST(IommuInfo, LoopingChainIsRejected) {
    InfoBuilder builder(0x1000);
    builder.dma_avail(10).unknown(9);
    builder.set_u32(builder.last_cap() + offsetof(vfio_info_cap_header, next), sizeof(vfio_iommu_type1_info));
    const auto info = vfio::parse_iommu_info(builder.bytes());
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.error().message().find("backwards"), std::string::npos) << info.error().message();
}

TEST(IommuInfo, CapabilityBeyondBufferIsRejected) {
    InfoBuilder builder(0x1000);
    builder.dma_avail(10);
    builder.set_u32(builder.last_cap() + offsetof(vfio_info_cap_header, next), 4096);
    const auto info = vfio::parse_iommu_info(builder.bytes());
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.error().message().find("offset 0x1000"), std::string::npos) << info.error().message();
}

TEST(IommuInfo, InvertedRangeIsRejected) {
    const auto info = vfio::parse_iommu_info(InfoBuilder(0x1000).iova_ranges({{0x2000, 0x1000}}).bytes());
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.error().message().find("ends before it starts"), std::string::npos);
}
