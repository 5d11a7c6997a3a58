// memmapped_persistence --access sysfs (fpga_sio's memmapped_persistence_libpciaccess): the BAR
// mapped from a fake sysfs tree's resource file (PDT_SYSFS_ROOT), never through VFIO; the pattern
// written, then compared from a new process; the design known from the config file's IDs keeps
// its registers refused; the options that need VFIO or a kernel device refused.
#include <gtest/gtest.h>

#include "fake_sysfs_device.hpp"
#include "test_support/run_process.hpp"
#include "test_support/text.hpp"

namespace {

const std::string kSysfsDesignFile = std::string(PDT_SOURCE_DIR) + "/docs/examples/bram_bar_design.json";

test_support::Outcome persistence_through(const std::string& tool, const std::string& root, std::vector<std::string> args,
                                          const std::string& bdf = "0000:3b:00.0") {
    std::vector<std::string> all = {"--design_file", kSysfsDesignFile, "--device", bdf};
    all.insert(all.end(), args.begin(), args.end());
    test_support::RunOptions options;
    options.environment = {"PDT_SYSFS_ROOT=" + root};
    return test_support::run_process(tool, all, options);
}

std::string sysfs_root(const std::string& name) { return fake_sysfs::make_bram_device(testing::TempDir() + "/" + name); }

}  // namespace

TEST(SysfsPersistence, KeptInANewProcessWithoutVfio) {
    const std::string root = sysfs_root("sysfs_persistence_kept");
    const auto out = persistence_through(MEMMAPPED_PERSISTENCE, root,
                                         {"--access", "sysfs", "--bar", "0", "--offset", "0x2000", "--size", "0x2000", "--key", "5"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_TRUE(test_support::contains_all(
        out.output, {"memmapped_persistence 0000:3b:00.0 ", " BAR 0 offset 0x2000 size 0x2000 width 4 key 5",
                     "wrote 0x2000 bytes of key 5's pattern, read back in this process",
                     "0x2000 bytes compared, all kept",
                     "Verdict: PASS (content kept in a new process: 0x2000 bytes a device written and read back here"}))
        << out.output;
    EXPECT_FALSE(test_support::contains(out.output, "VFIO_DEVICE_RESET")) << out.output;
    // What the first run left: a second with another key compares and finds it differs.
    const auto other = persistence_through(MEMMAPPED_PERSISTENCE, root,
                                           {"--access", "sysfs", "--bar", "0", "--offset", "0x2000", "--size", "0x2000",
                                            "--key", "6", "--verify"});
    EXPECT_EQ(other.exit_code, 1) << other.output;
    EXPECT_TRUE(test_support::contains(other.output, "0x2000 bytes compared, 0x")) << other.output;
}

TEST(SysfsPersistence, TheLibpciaccessNameDefaultsToSysfs) {
    const std::string root = sysfs_root("sysfs_persistence_name");
    const auto out = persistence_through(PERSISTENCE_LIBPCIACCESS, root, {"--bar", "0", "--offset", "0x2000", "--size", "0x100"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_TRUE(test_support::contains(out.output, "sysfs mapping, so no device reset was tested")) << out.output;
}

TEST(SysfsPersistence, RefusalsNameWhy) {
    const std::string root = sysfs_root("sysfs_persistence_refusals");
    const auto registers = persistence_through(MEMMAPPED_PERSISTENCE, root,
                                               {"--access", "sysfs", "--bar", "0", "--offset", "0", "--size", "0x100"});
    EXPECT_EQ(registers.exit_code, 1) << registers.output;
    EXPECT_TRUE(test_support::contains(registers.output, "overlaps the Quad SPI registers at 0x0 of design example_bram_bar"))
        << registers.output;
    const auto missing = persistence_through(MEMMAPPED_PERSISTENCE, root,
                                             {"--access", "sysfs", "--bar", "0", "--offset", "0x2000", "--size", "8"}, "0000:3c:00.0");
    EXPECT_EQ(missing.exit_code, 1) << missing.output;
    EXPECT_TRUE(test_support::contains(missing.output, "no such PCI device")) << missing.output;
    const auto reset = persistence_through(MEMMAPPED_PERSISTENCE, root,
                                           {"--access", "sysfs", "--bar", "0", "--offset", "0x2000", "--size", "8", "--reset"});
    EXPECT_EQ(reset.exit_code, 2) << reset.output;
    EXPECT_TRUE(test_support::contains(reset.output, "Error: --reset is VFIO_DEVICE_RESET: not with --access sysfs"));
    const auto bogus = persistence_through(MEMMAPPED_PERSISTENCE, root,
                                           {"--access", "libpci", "--bar", "0", "--offset", "0x2000", "--size", "8"});
    EXPECT_EQ(bogus.exit_code, 2) << bogus.output;
    EXPECT_TRUE(test_support::contains(bogus.output, "Error: --access libpci: vfio or sysfs"));
    const auto simulated = persistence_through(MEMMAPPED_PERSISTENCE, root,
                                               {"--sim_design", "example_bram_bar", "--access", "sysfs", "--bar", "0", "--offset",
                                                "0x2000", "--size", "8"});
    EXPECT_EQ(simulated.exit_code, 2) << simulated.output;
    EXPECT_TRUE(test_support::contains(simulated.output, "name it with --device (a --sim_design has no sysfs files)"));
}
