#include <gtest/gtest.h>

#include "temp_tree.hpp"
#include "vfio_access/proc_holders.hpp"

TEST(FileHolders, FindsProcessHoldingTheFileThroughFdOrTask) {
    TempTree proc;
    proc.symlink("/usr/bin/qemu-system-x86_64", "1234/exe");
    proc.symlink("/dev/null", "1234/fd/0");
    proc.symlink("/dev/vfio/12", "1234/fd/17");
    proc.symlink("/opt/tools/test_dma_bridge", "77/exe");
    proc.mkdir("77/fd");
    proc.symlink("/dev/vfio/12", "77/task/78/fd/5");  // only a thread's table shows it
    proc.symlink("/usr/bin/bash", "500/exe");
    proc.symlink("/dev/vfio/13", "500/fd/3");  // another group
    proc.write("self", "not a process directory");
    const auto holders = vfio::find_file_holders(proc.root(), "/dev/vfio/12");
    ASSERT_EQ(holders.size(), 2u);
    EXPECT_EQ(holders[0].pid, 77);
    EXPECT_EQ(holders[0].executable, "/opt/tools/test_dma_bridge");
    EXPECT_EQ(holders[1].pid, 1234);
    EXPECT_EQ(holders[1].executable, "/usr/bin/qemu-system-x86_64");
    EXPECT_EQ(vfio::describe_file_holders("/dev/vfio/12", holders),
              "/dev/vfio/12 is already open by /opt/tools/test_dma_bridge PID 77, /usr/bin/qemu-system-x86_64 PID 1234");
}

TEST(FileHolders, ProcessListedOnceAndUnknownExecutable) {
    TempTree proc;
    proc.symlink("/dev/vfio/3", "42/fd/4");
    proc.symlink("/dev/vfio/3", "42/fd/9");
    proc.symlink("/dev/vfio/3", "42/task/42/fd/4");
    const auto holders = vfio::find_file_holders(proc.root(), "/dev/vfio/3");
    ASSERT_EQ(holders.size(), 1u);
    EXPECT_EQ(holders[0].executable, "<unknown>");
}

TEST(FileHolders, NoneFoundSaysSo) {
    TempTree proc;
    proc.symlink("/dev/null", "1/fd/0");
    EXPECT_TRUE(vfio::find_file_holders(proc.root(), "/dev/vfio/3").empty());
    EXPECT_TRUE(vfio::find_file_holders(proc.path("missing"), "/dev/vfio/3").empty());
    EXPECT_EQ(vfio::describe_file_holders("/dev/vfio/3", {}, "/proc"),
              "/dev/vfio/3 is already open by another process (not visible in /proc)");
}

TEST(FileHolders, RealProcFindsThisProcess) {
    // This process holds a file open: the walk over the real /proc must find it.
    TempTree tree;
    tree.write("held", "x");
    std::FILE* held = std::fopen(tree.path("held").c_str(), "r");
    ASSERT_NE(held, nullptr);
    const auto holders = vfio::find_file_holders("/proc", tree.path("held"));
    std::fclose(held);
    ASSERT_EQ(holders.size(), 1u);
    EXPECT_EQ(holders[0].pid, getpid());
}
