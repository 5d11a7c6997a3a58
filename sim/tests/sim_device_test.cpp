#include <gtest/gtest.h>

#include <cstring>

#include "sim/sim_device.hpp"

namespace {

vfio::DeviceIdentity test_identity() {
    vfio::DeviceIdentity id;
    id.address = *vfio::PciAddress::parse("0000:01:00.0");
    id.vendor_id = 0x10ee;
    id.device_id = 0x7024;
    return id;
}

class ScratchBlock : public sim::RegisterBlock {
public:
    uint64_t read(uint64_t offset, unsigned) override { return offset == 0 ? value : 0; }
    void write(uint64_t offset, unsigned, uint64_t v) override {
        if (offset == 0)
            value = v;
    }
    void reset() override { value = 0; }
    uint64_t value = 0;
};

}  // namespace

TEST(SimDevice, ConfigHeaderCarriesIdentityAndOnlyCommandIsWritable) {
    sim::SimDevice device(test_identity(), {});
    EXPECT_EQ(*device.config_read16(vfio::cfg::VENDOR_ID), 0x10ee);
    EXPECT_EQ(*device.config_read16(vfio::cfg::DEVICE_ID), 0x7024);
    ASSERT_TRUE(device.config_write16(vfio::cfg::VENDOR_ID, 0x1234).ok());
    EXPECT_EQ(*device.config_read16(vfio::cfg::VENDOR_ID), 0x10ee);
    EXPECT_FALSE(device.bus_master_enabled());
    EXPECT_TRUE(*device.enable_bus_master());
    EXPECT_TRUE(device.bus_master_enabled());
    EXPECT_FALSE(*device.enable_bus_master()) << "already set";
}

TEST(SimDevice, BarBlocksAndUnclaimedReads) {
    auto bar = std::make_shared<sim::SimBar>(0x10000, 0x80000000u);
    auto block = std::make_shared<ScratchBlock>();
    bar->add_block(0x1000, 0x100, block);
    sim::SimDevice device(test_identity(), {bar});
    vfio::Bar* b = *device.bar(0);
    ASSERT_TRUE(b->write(0x1000, 4, 42).ok());
    EXPECT_EQ(*b->read(0x1000, 4), 42u);
    EXPECT_EQ(*b->read(0x2000, 4), 0x80000000u);
    auto missing = device.bar(3);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ENODEV);
    ASSERT_TRUE(device.reset().ok());
    EXPECT_EQ(*b->read(0x1000, 4), 0u);
}

TEST(SimDevice, DmaGoesThroughMappingsWithPermissions) {
    sim::SimDevice device(test_identity(), {});
    ASSERT_TRUE(*device.enable_bus_master());
    auto src = vfio::DmaRegion::allocate(device, 8192, vfio::DmaAccess::DeviceRead);
    auto dst = vfio::DmaRegion::allocate(device, 8192, vfio::DmaAccess::DeviceWrite);
    ASSERT_TRUE(src.ok() && dst.ok());
    std::memset(src->data(), 0x5a, 8192);
    std::vector<uint8_t> staging(8192);
    ASSERT_TRUE(device.dma_read(src->iova(), staging.data(), staging.size()).ok());
    ASSERT_TRUE(device.dma_write(dst->iova(), staging.data(), staging.size()).ok());
    EXPECT_EQ(std::memcmp(src->data(), dst->data(), 8192), 0);

    auto wrong_way = device.dma_write(src->iova(), staging.data(), 16);
    ASSERT_FALSE(wrong_way.ok());
    EXPECT_EQ(wrong_way.error().code, EFAULT);
    EXPECT_NE(wrong_way.error().message().find("not writable"), std::string::npos);
    EXPECT_EQ(src->data()[0], 0x5a);

    auto unmapped = device.dma_read(0x7000000000ull, staging.data(), 16);
    ASSERT_FALSE(unmapped.ok());
    EXPECT_NE(unmapped.error().message().find("unmapped"), std::string::npos);
    EXPECT_EQ(device.iommu().faults().size(), 2u);
}

TEST(SimDevice, DmaNeedsBusMaster) {
    sim::SimDevice device(test_identity(), {});
    auto region = vfio::DmaRegion::allocate(device, 4096, vfio::DmaAccess::DeviceReadWrite);
    ASSERT_TRUE(region.ok());
    uint8_t byte;
    auto denied = device.dma_read(region->iova(), &byte, 1);
    ASSERT_FALSE(denied.ok());
    EXPECT_EQ(denied.error().code, EACCES);
    EXPECT_NE(denied.error().message().find("Bus Master is clear"), std::string::npos);
}

TEST(SimDevice, RegionReleaseUnmapsAndFreesIova) {
    sim::SimDevice device(test_identity(), {});
    const auto free_before = device.iova_allocator().free_ranges().front().size();
    {
        auto region = vfio::DmaRegion::allocate(device, 3 * 4096 + 1, vfio::DmaAccess::DeviceReadWrite);
        ASSERT_TRUE(region.ok());
        EXPECT_EQ(region->mapped_size(), 4u * 4096);
        EXPECT_EQ(device.iommu().mapping_count(), 1u);
    }
    EXPECT_EQ(device.iommu().mapping_count(), 0u);
    EXPECT_EQ(device.iova_allocator().free_ranges().front().size(), free_before);
}

TEST(SimDevice, MsiReachesTheEventfdAndWaitTimesOut) {
    sim::SimDevice device(test_identity(), {});
    auto no_vector = device.irq_wait(0, std::chrono::milliseconds(1));
    ASSERT_FALSE(no_vector.ok());
    EXPECT_EQ(no_vector.error().code, ENXIO);
    ASSERT_TRUE(device.irq_enable(vfio::IrqIndex::Msi, 2).ok());
    auto timeout = device.irq_wait(1, std::chrono::milliseconds(5));
    ASSERT_FALSE(timeout.ok());
    EXPECT_EQ(timeout.error().code, ETIMEDOUT);
    device.raise_msi(1);
    device.raise_msi(1);
    EXPECT_EQ(*device.irq_wait(1, std::chrono::milliseconds(100)), 2u);
    EXPECT_EQ(*device.irq_poll(1), 0u);
    EXPECT_FALSE(device.irq_enable(vfio::IrqIndex::Msix, 1).ok());
}
