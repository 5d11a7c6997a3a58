#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "temp_tree.hpp"
#include "vfio_access/dma.hpp"

namespace {

bool all_zero(const void* data, uint64_t size) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (uint64_t i = 0; i < size; ++i)
        if (bytes[i] != 0)
            return false;
    return true;
}

}  // namespace

TEST(HostBuffer, SharedMemoryIsZeroedPageRoundedAndNamed) {
    auto buffer = vfio::HostBuffer::allocate(5000, vfio::BufferKind::SharedMemory);
    ASSERT_TRUE(buffer.ok()) << buffer.error().message();
    EXPECT_EQ(buffer->size(), 5000u);
    EXPECT_EQ(buffer->mapped_size(), 2 * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
    EXPECT_EQ(buffer->kind(), vfio::BufferKind::SharedMemory);
    EXPECT_TRUE(all_zero(buffer->data(), buffer->mapped_size()));
    ASSERT_EQ(buffer->shm_name().rfind("/pdt_dma_" + std::to_string(getpid()) + "_", 0), 0u) << buffer->shm_name();
    EXPECT_TRUE(std::filesystem::exists("/dev/shm" + buffer->shm_name()));
}

TEST(HostBuffer, SharedMemoryIsSharedWithAForkedChild) {
    auto buffer = vfio::HostBuffer::allocate(4096, vfio::BufferKind::SharedMemory);
    ASSERT_TRUE(buffer.ok()) << buffer.error().message();
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::memcpy(buffer->data(), "child", 6);
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_STREQ(static_cast<const char*>(buffer->data()), "child");
}

TEST(HostBuffer, SharedMemoryIsUnlinkedOnRelease) {
    std::string name;
    {
        auto buffer = vfio::HostBuffer::allocate(100, vfio::BufferKind::SharedMemory);
        ASSERT_TRUE(buffer.ok()) << buffer.error().message();
        name = buffer->shm_name();
        vfio::HostBuffer moved = std::move(buffer).value();  // the move must not unlink it
        EXPECT_TRUE(std::filesystem::exists("/dev/shm" + name));
        EXPECT_EQ(moved.shm_name(), name);
    }
    EXPECT_FALSE(std::filesystem::exists("/dev/shm" + name));
}

TEST(HostBuffer, NamesAreUniqueWithinAProcess) {
    auto a = vfio::HostBuffer::allocate(1, vfio::BufferKind::SharedMemory);
    auto b = vfio::HostBuffer::allocate(1, vfio::BufferKind::SharedMemory);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(a->shm_name(), b->shm_name());
}

TEST(HostBuffer, HugePagesAreRoundedOrFailClearly) {
    const auto huge = vfio::default_huge_page_size();
    ASSERT_TRUE(huge.ok()) << huge.error().message();
    auto buffer = vfio::HostBuffer::allocate(4096, vfio::BufferKind::HugePages);
    if (buffer.ok()) {
        EXPECT_EQ(buffer->mapped_size(), *huge);
        EXPECT_TRUE(all_zero(buffer->data(), buffer->mapped_size()));
        static_cast<uint8_t*>(buffer->data())[*huge - 1] = 1;
    } else {
        // No huge pages reserved on this machine: the error must say so and how to fix it.
        const std::string message = buffer.error().message();
        EXPECT_EQ(buffer.error().operation, "mmap MAP_HUGETLB");
        EXPECT_NE(message.find("huge pages"), std::string::npos) << message;
        EXPECT_NE(message.find("/proc/sys/vm/nr_hugepages"), std::string::npos) << message;
        EXPECT_NE(message.find("needs 1 huge page(s) of " + std::to_string(*huge / 1024) + " KiB"), std::string::npos) << message;
    }
}

TEST(HostBuffer, DefaultHugePageSizeComesFromMeminfo) {
    TempTree tree;
    tree.write("meminfo", "MemTotal: 1000 kB\nHugePages_Total: 0\nHugepagesize:    1048576 kB\n");
    EXPECT_EQ(vfio::default_huge_page_size(tree.path("meminfo")).value(), 1ull << 30);
    tree.write("nohuge", "MemTotal: 1000 kB\n");
    const auto missing = vfio::default_huge_page_size(tree.path("nohuge"));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message().find("no huge page support"), std::string::npos);
    EXPECT_FALSE(vfio::default_huge_page_size(tree.path("absent")).ok());
}

TEST(HostBuffer, AnonymousStillWorksAndZeroSizeIsRefused) {
    auto buffer = vfio::HostBuffer::allocate(10);
    ASSERT_TRUE(buffer.ok());
    EXPECT_TRUE(buffer->shm_name().empty());
    for (auto kind : {vfio::BufferKind::Anonymous, vfio::BufferKind::HugePages, vfio::BufferKind::SharedMemory}) {
        const auto zero = vfio::HostBuffer::allocate(0, kind);
        ASSERT_FALSE(zero.ok());
        EXPECT_EQ(zero.error().code, EINVAL);
    }
}
