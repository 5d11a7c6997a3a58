// Kernel VFIO backend against real VFIO: run inside the QEMU guest (vm/), where two QEMU edu
// devices (1234:11e8) are bound to vfio-pci behind a virtual Intel IOMMU. Not registered as a
// host test: the host has no device to bind (and must not bind one).
#include <gtest/gtest.h>
#include <linux/vfio.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "vfio_access/kernel.hpp"

namespace {

using namespace std::chrono_literals;

constexpr uint64_t EDU_ID = 0x00, EDU_LIVENESS = 0x04, EDU_IRQ_STATUS = 0x24, EDU_IRQ_RAISE = 0x60,
                   EDU_IRQ_ACK = 0x64, EDU_DMA_SRC = 0x80, EDU_DMA_DST = 0x88, EDU_DMA_COUNT = 0x90,
                   EDU_DMA_CMD = 0x98, EDU_DMA_BUFFER = 0x40000;

vfio::KernelOptions edu_options() {
    vfio::KernelOptions options;
    options.selection.add_filter({0x1234, 0x11e8, {}, {}});
    return options;
}

class KernelGuest : public ::testing::Test {
protected:
    void SetUp() override {
        auto ids = bus.scan();
        ASSERT_TRUE(ids.ok()) << ids.error().message();
        ASSERT_GE(ids->size(), 1u) << "no edu device bound to vfio-pci";
        this->ids = *ids;
        auto opened = bus.open_device(this->ids[0]);
        ASSERT_TRUE(opened.ok()) << opened.error().message();
        device = std::move(opened).value();
        auto bar = device->bar(0);
        ASSERT_TRUE(bar.ok()) << bar.error().message();
        auto window = (*bar)->window(0, 0x100000);
        ASSERT_TRUE(window.ok());
        regs = *window;
    }
    // Raises an edu interrupt and waits for it on vector 0; acknowledges it on the device.
    uint64_t raise_and_wait(uint32_t bits) {
        regs.write32(EDU_IRQ_RAISE, bits);
        auto count = device->irq_wait(0, 2000ms);
        EXPECT_TRUE(count.ok()) << count.error().message();
        EXPECT_EQ(regs.read32(EDU_IRQ_STATUS), bits);
        regs.write32(EDU_IRQ_ACK, bits);
        return count.ok() ? *count : 0;
    }
    bool wait_dma_idle() {
        for (int i = 0; i < 500; ++i) {
            if (!(regs.read32(EDU_DMA_CMD) & 1))
                return true;
            std::this_thread::sleep_for(10ms);
        }
        return false;
    }

    vfio::KernelDeviceBus bus{edu_options()};
    std::vector<vfio::DeviceIdentity> ids;
    std::unique_ptr<vfio::KernelDevice> device;
    vfio::RegisterWindow regs;
};

}  // namespace

TEST_F(KernelGuest, IdentityAndConfigSpace) {
    EXPECT_EQ(device->identity().vendor_id, 0x1234);
    EXPECT_GE(device->identity().iommu_group, 0);
    EXPECT_TRUE(device->device_flags() & VFIO_DEVICE_FLAGS_PCI);
    EXPECT_EQ(device->config_read16(vfio::cfg::VENDOR_ID).value(), 0x1234);
    EXPECT_EQ(device->config_read16(vfio::cfg::DEVICE_ID).value(), 0x11e8);
    EXPECT_EQ(device->config_read8(vfio::cfg::REVISION_ID).value(), 0x10);
    const auto beyond = device->config_read32(0x10000);
    ASSERT_FALSE(beyond.ok());
    EXPECT_NE(beyond.error().message().find("PCI region 7 (CONFIG)"), std::string::npos);
    EXPECT_EQ(device->group().path, "/dev/vfio/" + std::to_string(device->identity().iommu_group));
}

TEST_F(KernelGuest, BarRegisters) {
    EXPECT_EQ(regs.read32(EDU_ID), 0x010000edu);
    regs.write32(EDU_LIVENESS, 0x12345678);
    EXPECT_EQ(regs.read32(EDU_LIVENESS), ~0x12345678u);
    EXPECT_EQ(device->bar(0).value(), device->bar(0).value());  // mapped once
    const auto absent = device->bar(1);
    ASSERT_FALSE(absent.ok());
    EXPECT_EQ(absent.error().code, ENOENT);
    EXPECT_FALSE(device->bar(6).ok());
}

TEST_F(KernelGuest, IommuInfoSeedsTheAllocator) {
    const vfio::ContainerInfo info = device->container_info();
    EXPECT_EQ(info.iommu_type, VFIO_TYPE1v2_IOMMU);
    ASSERT_TRUE(info.iommu.has_value());
    EXPECT_TRUE(info.iommu->has_iova_range_cap);
    EXPECT_FALSE(info.iommu->iova_ranges.empty());
    EXPECT_EQ(device->iova_allocator().page_size(), 4096u);
}

TEST_F(KernelGuest, DmaRoundTripThroughEdu) {
    ASSERT_TRUE(device->enable_bus_master().ok());
    vfio::DmaRegion::Options to_device{vfio::DmaAccess::DeviceRead, vfio::BufferKind::Anonymous, 28};
    vfio::DmaRegion::Options from_device{vfio::DmaAccess::DeviceWrite, vfio::BufferKind::Anonymous, 28};
    auto source = vfio::DmaRegion::allocate(*device, 4096, to_device);
    auto sink = vfio::DmaRegion::allocate(*device, 4096, from_device);
    ASSERT_TRUE(source.ok()) << source.error().message();
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    EXPECT_LT(source->iova() + 4096, 1ull << 28);
    for (unsigned i = 0; i < 256; ++i)
        source->data()[i] = static_cast<uint8_t>(i * 7 + 1);
    regs.write64(EDU_DMA_SRC, source->iova());
    regs.write64(EDU_DMA_DST, EDU_DMA_BUFFER);
    regs.write64(EDU_DMA_COUNT, 256);
    regs.write64(EDU_DMA_CMD, 1);  // RAM -> EDU
    ASSERT_TRUE(wait_dma_idle());
    regs.write64(EDU_DMA_SRC, EDU_DMA_BUFFER);
    regs.write64(EDU_DMA_DST, sink->iova());
    regs.write64(EDU_DMA_COUNT, 256);
    regs.write64(EDU_DMA_CMD, 1 | 2);  // EDU -> RAM
    ASSERT_TRUE(wait_dma_idle());
    EXPECT_EQ(std::memcmp(source->data(), sink->data(), 256), 0)
        << "source IOVA 0x" << std::hex << source->iova() << " sink IOVA 0x" << sink->iova() << " sink[0..3] "
        << int(sink->data()[0]) << " " << int(sink->data()[1]) << " " << int(sink->data()[2]) << " cmd "
        << regs.read32(EDU_DMA_CMD) << " count " << regs.read32(EDU_DMA_COUNT) << " status " << regs.read32(0x20);
    EXPECT_TRUE(source->release().ok());
    EXPECT_TRUE(sink->release().ok());
}

TEST_F(KernelGuest, DeviceCannotWriteAReadOnlyMapping) {
    ASSERT_TRUE(device->enable_bus_master().ok());
    vfio::DmaRegion::Options read_only{vfio::DmaAccess::DeviceRead, vfio::BufferKind::Anonymous, 28};
    auto target = vfio::DmaRegion::allocate(*device, 4096, read_only);
    ASSERT_TRUE(target.ok()) << target.error().message();
    std::memset(target->data(), 0x5a, 256);
    regs.write64(EDU_DMA_SRC, EDU_DMA_BUFFER);
    regs.write64(EDU_DMA_DST, target->iova());
    regs.write64(EDU_DMA_COUNT, 256);
    regs.write64(EDU_DMA_CMD, 1 | 2);  // EDU -> RAM into a device-read-only mapping
    ASSERT_TRUE(wait_dma_idle());
    for (unsigned i = 0; i < 256; ++i)
        ASSERT_EQ(target->data()[i], 0x5a) << "byte " << i << " was written through a read-only mapping";
}

TEST_F(KernelGuest, UnmapReportsTheSizeTheKernelUnmapped) {
    auto buffer = vfio::HostBuffer::allocate(8192);
    ASSERT_TRUE(buffer.ok());
    const uint64_t iova = device->iova_allocator().allocate(8192, 28).value();
    ASSERT_TRUE(device->dma_map(iova, buffer->data(), 8192, vfio::DmaAccess::DeviceReadWrite).ok());
    const auto again = device->dma_map(iova, buffer->data(), 8192, vfio::DmaAccess::DeviceReadWrite);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, EEXIST);
    EXPECT_EQ(device->dma_unmap(iova, 8192).value(), 8192u);
    EXPECT_EQ(device->dma_unmap(iova, 8192).value(), 0u);
    EXPECT_TRUE(device->iova_allocator().free(iova, 8192).ok());
}

TEST_F(KernelGuest, MsiInterruptsSignalTheEventfd) {
    const vfio::IrqInfo msi = device->irq_info(vfio::IrqIndex::Msi).value();
    EXPECT_EQ(msi.count, 1u);
    ASSERT_TRUE(device->irq_enable(vfio::IrqIndex::Msi, 1).ok());
    EXPECT_TRUE(device->config_read16(vfio::cfg::COMMAND).value() & vfio::cfg::COMMAND_MASTER);
    EXPECT_EQ(device->irq_poll(0).value(), 0u);  // none yet
    EXPECT_EQ(raise_and_wait(0x1), 1u);
    EXPECT_EQ(raise_and_wait(0x2), 1u);
    ASSERT_TRUE(device->irq_disable(vfio::IrqIndex::Msi).ok());
    EXPECT_FALSE(device->irq_eventfd(0).ok());
    EXPECT_FALSE(device->irq_enable(vfio::IrqIndex::Msi, 2).ok());  // edu has one vector
}

TEST_F(KernelGuest, IntxNeedsUnmaskAfterEachInterrupt) {
    ASSERT_TRUE(device->irq_enable(vfio::IrqIndex::Intx, 1).ok());
    EXPECT_EQ(raise_and_wait(0x4), 1u);
    // Still masked by the kernel: the next interrupt waits until unmasked.
    regs.write32(EDU_IRQ_RAISE, 0x8);
    EXPECT_EQ(device->irq_wait(0, 300ms).error().code, ETIMEDOUT);
    ASSERT_TRUE(device->irq_unmask(0).ok());
    EXPECT_EQ(device->irq_wait(0, 2000ms).value(), 1u);
    regs.write32(EDU_IRQ_ACK, 0x8);
    ASSERT_TRUE(device->irq_unmask(0).ok());
    ASSERT_TRUE(device->irq_disable(vfio::IrqIndex::Intx).ok());
}

TEST_F(KernelGuest, BusyGroupNamesTheHolder) {
    vfio::KernelDeviceBus other(edu_options());
    const auto second = other.open(ids[0]);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().code, EBUSY);
    const std::string message = second.error().message();
    EXPECT_NE(message.find("is already open by"), std::string::npos) << message;
    EXPECT_NE(message.find("PID " + std::to_string(getpid())), std::string::npos) << message;
}

TEST_F(KernelGuest, DevicesShareOneContainerAndAllocator) {
    if (ids.size() < 2)
        GTEST_SKIP() << "one edu device only";
    auto second = bus.open_device(ids[1]);
    ASSERT_TRUE(second.ok()) << second.error().message();
    EXPECT_EQ(&(*second)->iova_allocator(), &device->iova_allocator());
    EXPECT_NE((*second)->group().number, device->group().number);
}

TEST_F(KernelGuest, ReopenAfterAllDevicesClosed) {
    // The kernel drops the IOMMU model with the container's last group: opening again must
    // set it again.
    device.reset();
    regs = vfio::RegisterWindow();
    auto again = bus.open_device(ids[0]);
    ASSERT_TRUE(again.ok()) << again.error().message();
    EXPECT_EQ((*again)->container_info().iommu_type, VFIO_TYPE1v2_IOMMU);
    EXPECT_TRUE((*again)->iova_allocator().allocate(4096).ok());
}

TEST_F(KernelGuest, ResetWhenSupported) {
    if (!(device->device_flags() & VFIO_DEVICE_FLAGS_RESET)) {
        const auto reset = device->reset();
        ASSERT_FALSE(reset.ok());
        EXPECT_EQ(reset.error().code, ENOTSUP);
        return;
    }
    ASSERT_TRUE(device->reset().ok());
    EXPECT_EQ(regs.read32(EDU_ID), 0x010000edu);
}
