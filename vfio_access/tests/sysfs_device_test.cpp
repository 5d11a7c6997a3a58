// vfio::SysfsDevice on a fake sysfs tree: the identity from config, a BAR mmap()ed from its
// resource file (written through to the file, as a BAR's memory), and every refusal: no such
// device, no such BAR, and DMA, interrupts and reset, which need VFIO.
#include <gtest/gtest.h>

#include "fake_sysfs_device.hpp"
#include "vfio_access/sysfs_device.hpp"

namespace {

const vfio::PciAddress kSysfsBdf = vfio::PciAddress::parse("0000:3b:00.0").value();

std::string sysfs_tree(const std::string& name) { return fake_sysfs::make_bram_device(testing::TempDir() + "/" + name); }

}  // namespace

TEST(SysfsDevice, ReadsTheIdentityFromConfigSpace) {
    auto device = vfio::SysfsDevice::open(sysfs_tree("sysfs_identity"), kSysfsBdf);
    ASSERT_TRUE(device.ok()) << device.error().message();
    const vfio::DeviceIdentity& id = (*device)->identity();
    EXPECT_EQ(id.vendor_id, 0x10ee);
    EXPECT_EQ(id.device_id, 0x9038);
    EXPECT_EQ(id.subsystem_vendor_id, 0x0002);
    EXPECT_EQ(id.subsystem_device_id, 0x00b0);
    EXPECT_EQ(id.class_code, 0x058000u);
    EXPECT_EQ(id.address.to_string(), "0000:3b:00.0");
}

TEST(SysfsDevice, ABarIsItsResourceFileMappedShared) {
    const std::string root = sysfs_tree("sysfs_bar");
    {
        auto device = vfio::SysfsDevice::open(root, kSysfsBdf);
        ASSERT_TRUE(device.ok());
        auto bar = (*device)->bar(0);
        ASSERT_TRUE(bar.ok()) << bar.error().message();
        EXPECT_EQ((*bar)->size(), 0x4000u);
        ASSERT_TRUE((*bar)->write(0x2008, 8, 0x1122334455667788ull).ok());
    }
    auto again = vfio::SysfsDevice::open(root, kSysfsBdf);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->bar(0).value()->read(0x2008, 8).value(), 0x1122334455667788ull) << "kept from one open to the next";
}

TEST(SysfsDevice, RefusesWhatItCannotDo) {
    const std::string root = sysfs_tree("sysfs_refusals");
    auto missing = vfio::SysfsDevice::open(root, vfio::PciAddress::parse("0000:3c:00.0").value());
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ENOENT);
    EXPECT_NE(missing.error().message().find("no such PCI device"), std::string::npos) << missing.error().message();
    auto device = vfio::SysfsDevice::open(root, kSysfsBdf);
    ASSERT_TRUE(device.ok());
    auto bar = (*device)->bar(2);
    ASSERT_FALSE(bar.ok());
    EXPECT_EQ(bar.error().code, ENODEV);
    EXPECT_NE(bar.error().message().find("BAR 2 does not exist on this device"), std::string::npos);
    EXPECT_EQ((*device)->bar(6).error().code, ENODEV);
    for (const pdt::Error& e : {(*device)->reset().error(), (*device)->dma_map(0, nullptr, 4096, vfio::DmaAccess::DeviceReadWrite).error(),
                                (*device)->irq_enable(vfio::IrqIndex::Msi, 1).error()}) {
        EXPECT_EQ(e.code, ENOTSUP);
        EXPECT_NE(e.message().find("reached through sysfs, not VFIO"), std::string::npos) << e.message();
    }
}
