// The kernel backend's parts that need no VFIO device: libpci scan (from an lspci -x dump),
// sysfs driver and group lookup, diagnostics, and the mapped-BAR accessors.
#include <gtest/gtest.h>
#include <linux/vfio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "temp_tree.hpp"
#include "vfio_access/kernel.hpp"
#include "vfio_access/pci_library.hpp"

namespace {

// Two devices in lspci -x format: QEMU edu (1234:11e8 rev 10, subsystem 1af4:1100, class ff0000)
// and an e1000 (8086:100e, class 020000).
const char* k_dump =
    "0000:00:02.0 Ethernet controller: Intel Corporation 82540EM Gigabit Ethernet Controller (rev 03)\n"
    "00: 86 80 0e 10 07 01 00 00 03 00 00 02 00 00 00 00\n"
    "10: 00 00 04 fe 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "20: 00 00 00 00 00 00 00 00 00 00 00 00 f4 1a 00 11\n"
    "30: 00 00 00 00 00 00 00 00 00 00 00 00 0b 01 00 00\n"
    "\n"
    "0000:00:03.0 Unclassified device [00ff]: Device 1234:11e8 (rev 10)\n"
    "00: 34 12 e8 11 03 01 10 00 10 00 00 ff 00 00 00 00\n"
    "10: 00 00 00 fd 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "20: 00 00 00 00 00 00 00 00 00 00 00 00 f4 1a 00 11\n"
    "30: 00 00 00 00 40 00 00 00 00 00 00 00 0a 01 00 00\n"
    "\n";

class KernelScan : public ::testing::Test {
protected:
    void SetUp() override {
        tree.write("dump.txt", k_dump);
        tree.mkdir("sys/bus/pci/drivers/vfio-pci");
        tree.mkdir("sys/bus/pci/drivers/e1000");
        device("0000:00:02.0", "e1000", 4);
        device("0000:00:03.0", "vfio-pci", 5);
        options.pci_dump_file = tree.path("dump.txt");
        options.sysfs_root = tree.path("sys");
        options.dev_vfio_root = tree.path("dev/vfio");
        options.proc_root = tree.path("proc");
    }
    void device(const std::string& bdf, const std::string& driver, int group) {
        const std::string dir = "sys/bus/pci/devices/" + bdf;
        tree.mkdir(dir);
        if (!driver.empty())
            tree.symlink("../../../bus/pci/drivers/" + driver, dir + "/driver");
        tree.symlink("../../../kernel/iommu_groups/" + std::to_string(group), dir + "/iommu_group");
        tree.symlink("../../../../bus/pci/devices/" + bdf, "sys/kernel/iommu_groups/" + std::to_string(group) + "/devices/" + bdf);
    }
    vfio::PciAddress address(const char* bdf) { return vfio::PciAddress::parse(bdf).value(); }

    TempTree tree;
    vfio::KernelOptions options;
};

}  // namespace

TEST_F(KernelScan, ScanReadsIdentityGroupAndDriver) {
    const auto devices = vfio::scan_pci_bus(options);
    ASSERT_TRUE(devices.ok()) << devices.error().message();
    ASSERT_EQ(devices->size(), 2u);
    const vfio::ScannedDevice& nic = (*devices)[0];
    const vfio::ScannedDevice& edu = (*devices)[1];
    EXPECT_EQ(nic.identity.address.to_string(), "0000:00:02.0");
    EXPECT_EQ(nic.driver, "e1000");
    EXPECT_FALSE(nic.bound_to_vfio());
    EXPECT_EQ(nic.identity.iommu_group, 4);
    EXPECT_EQ(nic.identity.class_code, 0x020000u);
    EXPECT_EQ(edu.identity.address.to_string(), "0000:00:03.0");
    EXPECT_EQ(edu.identity.vendor_id, 0x1234);
    EXPECT_EQ(edu.identity.device_id, 0x11e8);
    EXPECT_EQ(edu.identity.subsystem_vendor_id, 0x1af4);
    EXPECT_EQ(edu.identity.subsystem_device_id, 0x1100);
    EXPECT_EQ(edu.identity.revision, 0x10);
    EXPECT_EQ(edu.identity.class_code, 0xff0000u);
    EXPECT_EQ(edu.identity.iommu_group, 5);  // from the sysfs link: a dump has no groups
    EXPECT_TRUE(edu.bound_to_vfio());
}

TEST_F(KernelScan, BusScanListsVfioBoundSelectedDevices) {
    vfio::KernelDeviceBus bus(options);
    const auto ids = bus.scan();
    ASSERT_TRUE(ids.ok()) << ids.error().message();
    ASSERT_EQ(ids->size(), 1u);
    EXPECT_EQ((*ids)[0].address.to_string(), "0000:00:03.0");

    options.include_unbound = true;
    EXPECT_EQ(vfio::KernelDeviceBus(options).scan()->size(), 2u);
}

TEST_F(KernelScan, IdentityFilterSelects) {
    options.include_unbound = true;
    options.selection.add_filter({0x8086, {}, {}, {}});
    const auto ids = vfio::KernelDeviceBus(options).scan();
    ASSERT_TRUE(ids.ok());
    ASSERT_EQ(ids->size(), 1u);
    EXPECT_EQ((*ids)[0].vendor_id, 0x8086);
}

TEST_F(KernelScan, NamedLocationIsListedEvenWhenNotBound) {
    ASSERT_TRUE(options.selection.add_location("0000:00:02.0").ok());
    vfio::KernelDeviceBus bus(options);
    const auto ids = bus.scan();
    ASSERT_TRUE(ids.ok());
    ASSERT_EQ(ids->size(), 1u);
    // ...so that open() can say why it cannot be used.
    tree.write("dev/vfio/vfio", "");
    const auto opened = bus.open((*ids)[0]);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, ENODEV);
    EXPECT_NE(opened.error().message().find("not bound to vfio-pci but to e1000"), std::string::npos)
        << opened.error().message();
}

TEST_F(KernelScan, MissingDumpFileIsAnError) {
    options.pci_dump_file = tree.path("no_such_dump");
    const auto devices = vfio::scan_pci_bus(options);
    ASSERT_FALSE(devices.ok());
    EXPECT_NE(devices.error().message().find("libpci"), std::string::npos) << devices.error().message();
    EXPECT_NE(devices.error().message().find("no_such_dump"), std::string::npos) << devices.error().message();
}

// The PCI access layer itself: what the scan and pcie_tools' libpci backend rest on.
TEST_F(KernelScan, PciLibraryReadsTheDumpAndTurnsLibpciFatalErrorsIntoFailures) {
    vfio::PciLibraryOptions library_options;
    library_options.dump_file = tree.path("dump.txt");
    auto library = vfio::PciLibrary::open(library_options);
    ASSERT_TRUE(library.ok()) << library.error().message();
    const std::vector<vfio::PciAddress> expected{address("0000:00:02.0"), address("0000:00:03.0")};
    EXPECT_EQ((*library)->functions(), expected);
    EXPECT_FALSE((*library)->has(address("0000:00:04.0")));
    const auto info = (*library)->info(address("0000:00:03.0"));
    ASSERT_TRUE(info.ok()) << info.error().message();
    EXPECT_EQ(info->vendor_id, 0x1234);
    EXPECT_EQ(info->device_id, 0x11e8);
    EXPECT_EQ(info->revision, 0x10);
    uint8_t bytes[4] = {};
    ASSERT_TRUE((*library)->read(address("0000:00:03.0"), 0x2c, bytes, 4));
    EXPECT_EQ(bytes[0], 0xf4);
    EXPECT_EQ(bytes[3], 0x11);
    EXPECT_FALSE((*library)->read(address("0000:00:04.0"), 0, bytes, 4));  // no such function
    // libpci's dump method reports a write as a fatal error (its callback must not return):
    // the layer turns it into a failed write, and the process goes on.
    EXPECT_FALSE((*library)->write(address("0000:00:03.0"), 0x04, bytes, 2));
    const auto missing = (*library)->info(address("0000:00:04.0"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ENODEV);
}

TEST_F(KernelScan, MissingDevVfioMeansNoVfioSupport) {
    vfio::KernelDeviceBus bus(options);
    const auto ids = bus.scan();
    ASSERT_TRUE(ids.ok());
    const auto opened = bus.open((*ids)[0]);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, ENODEV);
    EXPECT_NE(opened.error().message().find("no VFIO support"), std::string::npos) << opened.error().message();
    EXPECT_NE(opened.error().message().find(options.dev_vfio_root), std::string::npos);
    const auto info = bus.container_info();
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.error().message().find("no VFIO support"), std::string::npos);
}

TEST_F(KernelScan, MissingContainerNodeMeansNoVfioSupport) {
    tree.mkdir("dev/vfio");
    const auto available = vfio::check_vfio_available(options.dev_vfio_root);
    ASSERT_FALSE(available.ok());
    EXPECT_NE(available.error().message().find("/dev/vfio/vfio does not exist"), std::string::npos);
}

TEST_F(KernelScan, UnreadableContainerNodeIsAPermissionError) {
    if (geteuid() == 0)
        GTEST_SKIP() << "root bypasses file permissions";
    tree.write("dev/vfio/vfio", "");
    std::filesystem::permissions(tree.path("dev/vfio/vfio"), std::filesystem::perms::none);
    const auto available = vfio::check_vfio_available(options.dev_vfio_root);
    ASSERT_FALSE(available.ok());
    EXPECT_EQ(available.error().code, EACCES);
    EXPECT_NE(available.error().message().find("no read/write permission"), std::string::npos);
}

TEST_F(KernelScan, ContainerThatIsNotVfioFailsTheApiCheck) {
    tree.write("dev/vfio/vfio", "");  // a plain file: VFIO_GET_API_VERSION fails
    vfio::KernelDeviceBus bus(options);
    const auto info = bus.container_info();
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.error().operation, "VFIO_GET_API_VERSION");
    EXPECT_NE(info.error().message().find("expected 0"), std::string::npos) << info.error().message();
}

TEST_F(KernelScan, DriverChecksNameTheDriver) {
    EXPECT_TRUE(vfio::check_bound_to_vfio(options.sysfs_root, address("0000:00:03.0")).ok());
    const auto other = vfio::check_bound_to_vfio(options.sysfs_root, address("0000:00:02.0"));
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.error().message().find("not bound to vfio-pci but to e1000"), std::string::npos);
    EXPECT_NE(other.error().message().find("bind it: echo 0000:00:02.0 | sudo tee /sys/bus/pci/devices/0000:00:02.0/"
                                           "driver/unbind; echo vfio-pci | sudo tee /sys/bus/pci/devices/0000:00:02.0/"
                                           "driver_override; echo 0000:00:02.0 | sudo tee /sys/bus/pci/drivers/vfio-pci/bind"),
              std::string::npos)
        << other.error().message();
    device("0000:00:04.0", "", 6);
    const auto none = vfio::check_bound_to_vfio(options.sysfs_root, address("0000:00:04.0"));
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message().find("not bound to vfio-pci (no driver bound)"), std::string::npos);
    EXPECT_NE(none.error().message().find("driver_override"), std::string::npos);
    EXPECT_EQ(none.error().message().find("unbind"), std::string::npos) << none.error().message();
    const auto absent = vfio::check_bound_to_vfio(options.sysfs_root, address("0000:09:00.0"));
    ASSERT_FALSE(absent.ok());
    EXPECT_NE(absent.error().message().find("no such PCI device"), std::string::npos);
}

TEST_F(KernelScan, DeviceWithoutIommuGroupIsRefused) {
    tree.mkdir("sys/bus/pci/devices/0000:00:05.0");
    tree.symlink("../../../bus/pci/drivers/vfio-pci", "sys/bus/pci/devices/0000:00:05.0/driver");
    tree.write("dev/vfio/vfio", "");
    EXPECT_EQ(vfio::sysfs_iommu_group(options.sysfs_root, address("0000:00:05.0")), -1);
    vfio::DeviceIdentity id;
    id.address = address("0000:00:05.0");
    const auto opened = vfio::KernelDeviceBus(options).open(id);
    ASSERT_FALSE(opened.ok());
    EXPECT_NE(opened.error().message().find("no IOMMU group"), std::string::npos) << opened.error().message();
}

TEST_F(KernelScan, GroupOpenErrorsNameTheCause) {
    const std::string path = "/dev/vfio/5";
    EXPECT_NE(vfio::group_open_error(options, path, ENOENT).message().find("is the device bound to vfio-pci"),
              std::string::npos);
    EXPECT_NE(vfio::group_open_error(options, path, EACCES).message().find("no read/write permission on /dev/vfio/5"),
              std::string::npos);
    EXPECT_NE(vfio::group_open_error(options, "/dev/vfio/noiommu-5", EPERM).message().find("cap_sys_rawio"), std::string::npos);
    tree.symlink("/usr/bin/qemu-system-x86_64", "proc/4242/exe");
    tree.symlink(path, "proc/4242/task/4243/fd/12");
    const pdt::Error busy = vfio::group_open_error(options, path, EBUSY);
    EXPECT_EQ(busy.code, EBUSY);
    EXPECT_NE(busy.message().find("/dev/vfio/5 is already open by /usr/bin/qemu-system-x86_64 PID 4242"),
              std::string::npos)
        << busy.message();
}

TEST_F(KernelScan, NotViableGroupNamesTheOtherDriver) {
    device("0000:00:03.1", "snd_hda_intel", 5);  // shares group 5 with edu
    const pdt::Error error = vfio::group_not_viable_error(options.sysfs_root, 5, "/dev/vfio/5");
    EXPECT_EQ(error.operation, "VFIO_GROUP_GET_STATUS");
    EXPECT_NE(error.message().find("IOMMU group 5 is not viable"), std::string::npos) << error.message();
    EXPECT_NE(error.message().find("0000:00:03.1 is bound to snd_hda_intel"), std::string::npos) << error.message();
    EXPECT_EQ(error.message().find("0000:00:03.0 is bound"), std::string::npos) << error.message();
}

TEST(RegionInfo, NamesFollowVfioPciIndexes) {
    vfio::RegionInfo region;
    const char* names[] = {"BAR0", "BAR1", "BAR2", "BAR3", "BAR4", "BAR5", "ROM", "CONFIG", "VGA", "region 9"};
    for (uint32_t i = 0; i < 10; ++i) {
        region.index = i;
        EXPECT_EQ(region.name(), names[i]);
    }
    region.flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_MMAP;
    EXPECT_TRUE(region.readable());
    EXPECT_FALSE(region.writable());
    EXPECT_TRUE(region.mmappable());
}

TEST(MappedMmio, AccessesOfEachWidthAndBounds) {
    const uint64_t size = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(base, MAP_FAILED);
    vfio::Bar bar(2, vfio::make_mapped_mmio(base, size));
    EXPECT_EQ(bar.size(), size);
    ASSERT_TRUE(bar.write(0x10, 8, 0x1122334455667788ull).ok());
    EXPECT_EQ(bar.read(0x10, 8).value(), 0x1122334455667788ull);
    EXPECT_EQ(bar.read(0x10, 4).value(), 0x55667788u);
    EXPECT_EQ(bar.read(0x14, 2).value(), 0x3344u);
    EXPECT_EQ(bar.read(0x17, 1).value(), 0x11u);
    ASSERT_TRUE(bar.write(0x20, 1, 0xab).ok());
    ASSERT_TRUE(bar.write(0x22, 2, 0xcdef).ok());
    EXPECT_EQ(bar.read(0x20, 4).value(), 0xcdef00abu);
    EXPECT_FALSE(bar.read(size - 4, 8).ok());  // past the end
    EXPECT_FALSE(bar.read(0x11, 4).ok());      // misaligned
    const auto window = bar.window(0x1000 - 0x100, 0x100, vfio::Access64::SplitLowHigh);
    ASSERT_TRUE(window.ok());
    window->write64(0x8, 0xdeadbeefcafef00dull);
    EXPECT_EQ(window->read64(0x8), 0xdeadbeefcafef00dull);
    EXPECT_EQ(bar.read(0xf0c, 4).value(), 0xdeadbeefu);
    EXPECT_TRUE(window->contains(0xfc, 4));
    EXPECT_FALSE(window->contains(0xfc, 8));
    EXPECT_FALSE(bar.window(0x800, size).ok());
}
