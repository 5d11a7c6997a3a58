// The messages a user without permission gets: which device file, which group to join, the
// vfio-setup command, and for DMA mappings the RLIMIT_MEMLOCK limit with the bytes needed.
#include "vfio_access/permission_hint.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "temp_tree.hpp"
#include "vfio_access/kernel.hpp"

namespace {

using vfio::DeviceFileAccess;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

DeviceFileAccess file(std::string group, unsigned mode, bool in_process, bool listed) {
    return DeviceFileAccess{"/dev/vfio/12", "root", std::move(group), mode, "alice", in_process, listed, false};
}

const std::vector<std::string> k_functions{"0000:01:00.0"};

TEST(GroupPermissionHint, RootOnlyFileNamesVfioSetupAndTheGroup) {
    const std::string hint = vfio::group_permission_hint("/dev/vfio/12", file("root", 0600, true, true), k_functions);
    EXPECT_TRUE(contains(hint, "no read/write permission on /dev/vfio/12 (owner root, group root, mode 0600)")) << hint;
    EXPECT_TRUE(contains(hint, "`sudo vfio-setup bind 0000:01:00.0`")) << hint;
    EXPECT_TRUE(contains(hint, "`sudo usermod -aG pcie-dma alice`, then log in again")) << hint;
    EXPECT_TRUE(contains(hint, "70-pcie-dma-toolkit-vfio.rules")) << hint;
}

TEST(GroupPermissionHint, RootOnlyFileForAMemberAsksOnlyForTheBinding) {
    DeviceFileAccess access = file("root", 0600, true, true);
    access.listed_in_user_group = true;
    const std::string hint = vfio::group_permission_hint("/dev/vfio/12", access, k_functions);
    EXPECT_TRUE(contains(hint, "`sudo vfio-setup bind 0000:01:00.0`")) << hint;
    EXPECT_TRUE(contains(hint, "user alice is in that group already")) << hint;
    EXPECT_FALSE(contains(hint, "usermod")) << hint;
}

// The hint for a device file that one thing keeps alice from opening, and what it tells her to do.
struct HintCase {
    const char* name;
    DeviceFileAccess access;
    const char* says;
};

const HintCase k_hint_cases[] = {
    {"UserOutsideTheGroupIsToldToJoinIt", file("pcie-dma", 0660, false, false),
     "(owner root, group pcie-dma, mode 0660): user alice is not in group pcie-dma: "
     "`sudo usermod -aG pcie-dma alice`, then log in again"},
    {"AnotherGrantingGroupIsTheOneToJoin", file("kvm", 0660, false, false),
     "user alice is not in group kvm: `sudo usermod -aG kvm alice`"},
    {"MemberSinceThisLoginIsToldToLogInAgain", file("pcie-dma", 0660, false, true),
     "user alice is a member of group pcie-dma but this process started before joining it: "
     "log in again (or run `newgrp pcie-dma`)"},
    {"GroupWithoutReadWriteIsToldToChmod", file("pcie-dma", 0640, true, true),
     "group pcie-dma lacks read/write: `sudo chmod 0660 /dev/vfio/12`"},
    {"RefusedDespiteTheGroupNamesSecurityModules", file("pcie-dma", 0660, true, true),
     "user alice holds group pcie-dma, yet the open was refused: a security module"},
};

class GroupPermissionHintCase : public ::testing::TestWithParam<HintCase> {};

TEST_P(GroupPermissionHintCase, SaysWhatToDo) {
    const std::string hint = vfio::group_permission_hint("/dev/vfio/12", GetParam().access, k_functions);
    EXPECT_TRUE(contains(hint, GetParam().says)) << hint;
}

INSTANTIATE_TEST_SUITE_P(GroupPermissionHint, GroupPermissionHintCase, ::testing::ValuesIn(k_hint_cases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GroupPermissionHint, UnknownFileStillSaysWhatToDo) {
    const std::string hint = vfio::group_permission_hint("/dev/vfio/12", std::nullopt, {});
    EXPECT_TRUE(contains(hint, "no read/write permission on /dev/vfio/12: as root run `sudo vfio-setup bind <bdf>`"))
        << hint;
    EXPECT_TRUE(contains(hint, "`sudo usermod -aG pcie-dma $USER`")) << hint;
}

TEST(DescribeDeviceFile, ReadsOwnerGroupModeAndMembership) {
    TempTree tree;
    tree.write("dev/vfio/7", "");
    ASSERT_EQ(::chmod(tree.path("dev/vfio/7").c_str(), 0640), 0);
    const auto access = vfio::describe_device_file(tree.path("dev/vfio/7"));
    ASSERT_TRUE(access.has_value());
    EXPECT_EQ(access->mode, 0640u);
    EXPECT_FALSE(access->owner.empty());
    EXPECT_EQ(access->owner, access->user);  // the test made the file
    EXPECT_TRUE(access->process_in_group);   // created with the process's group
    EXPECT_FALSE(vfio::describe_device_file(tree.path("dev/vfio/8")).has_value());
}

// The errno a group open got is simulated: group_open_error() is what Group::open() returns.
TEST(GroupOpenPermission, EaccesAndEpermNameTheFileTheGroupAndTheFunction) {
    TempTree tree;
    vfio::KernelOptions options;
    options.sysfs_root = tree.path("sys");
    options.proc_root = tree.path("proc");
    tree.mkdir("sys/kernel/iommu_groups/5/devices/0000:03:00.0");
    tree.write("dev/vfio/5", "");
    ASSERT_EQ(::chmod(tree.path("dev/vfio/5").c_str(), 0600), 0);
    for (const int code : {EACCES, EPERM}) {
        const pdt::Error error = vfio::group_open_error(options, tree.path("dev/vfio/5"), code);
        EXPECT_EQ(error.code, code);
        const std::string message = error.message();
        EXPECT_TRUE(contains(message, "no read/write permission on " + tree.path("dev/vfio/5") + " (owner ")) << message;
        EXPECT_TRUE(contains(message, "mode 0600")) << message;
        EXPECT_TRUE(contains(message, "`sudo vfio-setup bind 0000:03:00.0`")) << message;
        EXPECT_TRUE(contains(message, "sudo usermod -aG pcie-dma ")) << message;
    }
    // EPERM on a no-IOMMU group is the missing capability, not the group.
    EXPECT_TRUE(contains(vfio::group_open_error(options, tree.path("dev/vfio/noiommu-5"), EPERM).message(),
                         "cap_sys_rawio"));
}

TEST(GroupOpenPermission, ContainerNodeWithoutPermissionSaysChmod0666) {
    TempTree tree;
    tree.write("dev/vfio/vfio", "");
    const std::string hint = vfio::container_permission_hint(tree.path("dev/vfio/vfio"));
    EXPECT_TRUE(contains(hint, "no read/write permission on " + tree.path("dev/vfio/vfio") + " (owner ")) << hint;
    EXPECT_TRUE(contains(hint, "`sudo chmod 0666 " + tree.path("dev/vfio/vfio") + "`")) << hint;
}

TEST(MemlockHint, SmallLimitGivesLimitBytesNeededAndCommands) {
    const vfio::MemlockState state{65536, 61440, false};
    const std::string hint = vfio::memlock_hint(state, 2 * 1024 * 1024);
    EXPECT_TRUE(contains(hint, "RLIMIT_MEMLOCK (ulimit -l) is 65536 bytes (64 KiB)")) << hint;
    EXPECT_TRUE(contains(hint, "this mapping of 2097152 bytes (2048 KiB) needs 2158592 bytes (2108 KiB) locked in all "
                               "(61440 bytes already locked by this process)"))
        << hint;
    EXPECT_TRUE(contains(hint, "`ulimit -l 2108`")) << hint;
    EXPECT_TRUE(contains(hint, "`@pcie-dma - memlock unlimited` in /etc/security/limits.d/pcie-dma.conf")) << hint;
}

TEST(MemlockHint, LimitThatIsNotTheCauseSaysSo) {
    EXPECT_TRUE(contains(vfio::memlock_hint({std::nullopt, 0, false}, 4096), "RLIMIT_MEMLOCK is unlimited; so the "
                                                                             "container may have reached"));
    EXPECT_TRUE(contains(vfio::memlock_hint({1 << 20, 4096, false}, 4096), "within the limit"));
    const std::string cap = vfio::memlock_hint({4096, 0, true}, 1 << 20);
    EXPECT_TRUE(contains(cap, "CAP_IPC_LOCK, so RLIMIT_MEMLOCK does not limit it")) << cap;
    EXPECT_FALSE(contains(cap, "ulimit -l")) << cap;
}

TEST(MemlockHint, CurrentMemlockReadsTheLimitAndProcStatus) {
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &saved), 0);
    rlimit tiny = saved;
    tiny.rlim_cur = 8192;  // lowering the soft limit needs no privilege
    if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < tiny.rlim_cur)
        tiny.rlim_cur = saved.rlim_max;
    ASSERT_EQ(setrlimit(RLIMIT_MEMLOCK, &tiny), 0);
    const vfio::MemlockState state = vfio::current_memlock();
    ASSERT_EQ(setrlimit(RLIMIT_MEMLOCK, &saved), 0);
    ASSERT_TRUE(state.limit.has_value());
    EXPECT_EQ(*state.limit, tiny.rlim_cur);

    TempTree tree;
    tree.write("status", "Name:\ttool\nVmLck:\t      12 kB\nCapEff:\t0000000000004000\n");
    const vfio::MemlockState faked = vfio::current_memlock(tree.path("status"));
    EXPECT_EQ(faked.locked, 12u * 1024);
    EXPECT_TRUE(faked.ipc_lock);
}

// The ENOMEM of VFIO_IOMMU_MAP_DMA is simulated: dma_map_error() is what KernelDevice::dma_map() returns.
TEST(DmaMapError, EnomemCarriesTheMemlockHint) {
    const pdt::Error error =
        vfio::dma_map_error("IOVA 0x100000 size 0x2000 for 0000:01:00.0", ENOMEM, 8192, {4096, 0, false});
    EXPECT_EQ(error.operation, "VFIO_IOMMU_MAP_DMA");
    EXPECT_EQ(error.code, ENOMEM);
    const std::string message = error.message();
    EXPECT_TRUE(contains(message, "VFIO_IOMMU_MAP_DMA IOVA 0x100000 size 0x2000 for 0000:01:00.0: Cannot allocate memory "
                                  "(pinned memory counts against RLIMIT_MEMLOCK: RLIMIT_MEMLOCK (ulimit -l) is 4096 "
                                  "bytes (4 KiB); this mapping of 8192 bytes (8 KiB) needs 8192 bytes (8 KiB)"))
        << message;
    EXPECT_TRUE(contains(message, "`ulimit -l 8`")) << message;
    EXPECT_EQ(vfio::dma_map_error("x", EEXIST, 8192, {}).hint, "overlaps an existing mapping");
}

}  // namespace
