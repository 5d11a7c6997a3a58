// The checks before the runtime opens a card: device nodes, a busy card (naming the daemon
// mode), recovery mode, and the link read from sysfs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "etsoc1/runtime_card.hpp"
#include "test_support/text.hpp"

namespace {

namespace fs = std::filesystem;

struct TempDir {
    TempDir() {
        char name[] = "/tmp/etsoc1_preflight_XXXXXX";
        path = mkdtemp(name);
    }
    ~TempDir() { fs::remove_all(path); }
    void touch(const std::string& name) const { std::ofstream(path + "/" + name) << ""; }
    std::string path;
};

TEST(Preflight, NoDeviceNodeSaysTheDriverIsNotLoaded) {
    TempDir dev;
    auto r = etsoc1::preflight(dev.path, [](const std::string&) { return 0; });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ENODEV);
    EXPECT_NE(r.error().message().find("et-soc1.ko"), std::string::npos) << r.error().message();
}

TEST(Preflight, ABusyCardSaysSoNamingTheDaemonMode) {
    TempDir dev;
    dev.touch("et0_ops");
    dev.touch("et0_mgmt");
    auto r = etsoc1::preflight(dev.path, [](const std::string&) { return EBUSY; });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, EBUSY);
    EXPECT_TRUE(test_support::contains_all(
        r.error().message(), {"et0_ops", "card busy: another process holds it", "server --device_type=pcie",
                              "the runtime's socket /var/run/et_runtime/pcie.sock"}));
}

TEST(Preflight, OtherRefusalsGetTheirOwnMessages) {
    TempDir dev;
    dev.touch("et0_ops");
    dev.touch("et0_mgmt");
    dev.touch("et1_mgmt");
    auto recovery = etsoc1::preflight(dev.path, [](const std::string&) { return 0; });
    ASSERT_FALSE(recovery.ok());
    EXPECT_NE(recovery.error().message().find("recovery mode"), std::string::npos);
    dev.touch("et1_ops");
    auto reset = etsoc1::preflight(dev.path, [](const std::string& p) { return p.ends_with("et1_ops") ? EPERM : 0; });
    ASSERT_FALSE(reset.ok());
    EXPECT_NE(reset.error().message().find("being reset"), std::string::npos);
    for (const char* noise : {"et_ops", "etx2_ops", "et2_opsx", "et2_mgmt0", "et123_ops", "eth0"})
        dev.touch(noise);  // not device nodes of the driver's
    auto fine = etsoc1::preflight(dev.path, [](const std::string&) { return 0; });
    ASSERT_TRUE(fine.ok());
    EXPECT_EQ(fine->ops, (std::vector<int>{0, 1}));
}

TEST(Preflight, WithoutTheRuntimeTheBuildSaysSoAfterTheNodeChecks) {
    if (etsoc1::runtime_built())
        GTEST_SKIP() << "this build has the runtime binding";
    TempDir dev;
    etsoc1::RuntimeOptions options;
    options.dev_dir = dev.path;
    auto none = etsoc1::open_runtime_card(options);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message().find("et-soc1.ko"), std::string::npos);
    dev.touch("et0_ops");
    dev.touch("et0_mgmt");
    auto unbuilt = etsoc1::open_runtime_card(options);
    ASSERT_FALSE(unbuilt.ok());
    EXPECT_NE(unbuilt.error().message().find("this build has no ET-SoC-1 runtime binding"), std::string::npos);
    TempDir empty;  // the daemon mode opens no device node here
    options.dev_dir = empty.path;
    options.socket = etsoc1::kDaemonSocket;
    auto daemon = etsoc1::open_runtime_card(options);
    ASSERT_FALSE(daemon.ok());
    EXPECT_NE(daemon.error().message().find("this build has no ET-SoC-1 runtime binding"), std::string::npos);
}

TEST(SysfsInfo, ReadsThePciAddressAndLinkOfTheOpsNode) {
    TempDir sys;
    fs::create_directories(sys.path + "/class/misc/et0_ops");
    fs::create_directories(sys.path + "/bus/pci/devices/0000:41:00.0");
    fs::create_directory_symlink("../../../bus/pci/devices/0000:41:00.0", sys.path + "/class/misc/et0_ops/device");
    std::ofstream(sys.path + "/bus/pci/devices/0000:41:00.0/current_link_speed") << "16.0 GT/s PCIe\n";
    std::ofstream(sys.path + "/bus/pci/devices/0000:41:00.0/current_link_width") << "8\n";
    const auto info = etsoc1::sysfs_info(0, sys.path);
    EXPECT_EQ(info.pci_address, "0000:41:00.0");
    EXPECT_EQ(info.link_speed, "16.0 GT/s PCIe");
    EXPECT_EQ(info.link_width, "8");
    EXPECT_EQ(etsoc1::sysfs_info(1, sys.path).pci_address, "");
}

}  // namespace
