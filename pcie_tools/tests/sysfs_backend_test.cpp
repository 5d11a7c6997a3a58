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

// A read-only space of `size` readable bytes reads its last four, and refuses four bytes at `offset` with `code`.
// Returns the refusal's message ("" where the read succeeded).
std::string refused_read(uint32_t size, uint32_t offset, int code) {
    Space space(kNowhere, size, false);
    EXPECT_TRUE(space.read(size - 4, nullptr, 4).ok());
    const auto past = space.read(offset, nullptr, 4);
    EXPECT_FALSE(past.ok());
    if (past.ok())
        return "";
    EXPECT_EQ(past.error().code, code);
    return past.error().message();
}

TEST(SysfsSpace, PastTheUnprivilegedBytesIsEperm) {
    const std::string message = refused_read(64, 64, EPERM);
    EXPECT_NE(message.find("only 64 bytes are readable without CAP_SYS_ADMIN; run as root"), std::string::npos)
        << message;
}

TEST(SysfsSpace, PastTheEndIsEio) { refused_read(256, 254, EIO); }

// A bus whose scan fails: SysfsBackend falls back to it for a function sysfs does not know.
struct UnlistedBus : SysfsBackend {
    std::string name() const override { return "unlisted"; }
    Result<std::vector<PciAddress>> devices() override {
        return pdt::make_error("list functions", "unlisted", EIO, "the scan");
    }
    Result<ConfigSpace*> open(const PciAddress& address) override {
        return pdt::make_error("open config space", address.to_string(), ENODEV);
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
