// What the backends over this machine's functions share (SysfsSpace, SysfsBackend): a read past
// the bytes readable names the reason, and a function sysfs does not know gets its parent from
// the scan of the bus.
#include "sysfs_backend.hpp"

#include <gtest/gtest.h>

namespace pcie {
namespace {

// A domain no machine has, so that sysfs knows none of its functions.
const PciAddress kNowhere = *PciAddress::parse("fffe:fe:1f.7");

struct Space : SysfsSpace {
    using SysfsSpace::SysfsSpace;
    Result<void> read(uint32_t offset, void*, uint32_t length) override { return check_read(offset, length); }
};

TEST(SysfsSpace, PastTheUnprivilegedBytesIsEperm) {
    Space space(kNowhere, 64, false);
    EXPECT_TRUE(space.read(60, nullptr, 4).ok());
    const auto past = space.read(64, nullptr, 4);
    ASSERT_FALSE(past.ok());
    EXPECT_EQ(past.error().code, EPERM);
    EXPECT_NE(past.error().message().find("only 64 bytes are readable without CAP_SYS_ADMIN; run as root"),
              std::string::npos)
        << past.error().message();
}

TEST(SysfsSpace, PastTheEndIsEio) {
    Space space(kNowhere, 256, false);
    EXPECT_TRUE(space.read(252, nullptr, 4).ok());
    const auto past = space.read(254, nullptr, 4);
    ASSERT_FALSE(past.ok());
    EXPECT_EQ(past.error().code, EIO);
}

// A bus whose scan fails: SysfsBackend falls back to it for a function sysfs does not know.
struct UnlistedBus : SysfsBackend {
    std::string name() const override { return "unlisted"; }
    Result<std::vector<PciAddress>> devices() override {
        return vfio::make_error("list functions", "unlisted", EIO, "the scan");
    }
    Result<ConfigSpace*> open(const PciAddress& address) override {
        return vfio::make_error("open config space", address.to_string(), ENODEV);
    }
};

TEST(SysfsBackend, AFunctionSysfsDoesNotKnowGetsItsParentFromTheScan) {
    UnlistedBus bus;
    const auto parent = bus.parent(kNowhere);
    ASSERT_FALSE(parent.ok());
    EXPECT_EQ(parent.error().code, EIO);
    EXPECT_EQ(parent.error().operation, "list functions");
}

TEST(SysfsConfigSize, AFunctionSysfsDoesNotKnowHas256Bytes) { EXPECT_EQ(sysfs_config_size(kNowhere), 256u); }

}  // namespace
}  // namespace pcie
