#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vfio_access/dma.hpp"

using vfio::IovaAllocator;
using vfio::IovaRange;

TEST(IovaAllocator, RoundsUpToPageAndAllocatesFromStart) {
    IovaAllocator allocator({{0x0, 0xfedfffff}, {0xfef00000, 0xffffffffffff}}, 4096);
    auto first = allocator.allocate(100);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(*first, 0u);
    auto second = allocator.allocate(4097);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(*second, 0x1000u);
    EXPECT_EQ(allocator.free_ranges().front().start, 0x3000u);
}

TEST(IovaAllocator, HonoursDmaMaskOfAnyWidth) {
    // The MSI hole splits the space; a 28-bit device (edu) must stay below 256 MiB.
    IovaAllocator allocator({{0x10000000, 0x1fffffff}, {0x0, 0x0fffffff}}, 4096);
    auto low = allocator.allocate(0x100000, 28);
    ASSERT_TRUE(low.ok());
    EXPECT_LT(*low + 0x100000 - 1, 1ull << 28);
    auto too_big = allocator.allocate(0x10000000, 28);
    ASSERT_FALSE(too_big.ok());
    EXPECT_EQ(too_big.error().code, ENOSPC);
    EXPECT_NE(too_big.error().message().find("28-bit DMA mask"), std::string::npos);
}

TEST(IovaAllocator, BestFitPrefersTheTightestHole) {
    IovaAllocator allocator({{0x0, 0xffff}, {0x100000, 0x101fff}}, 4096);
    auto iova = allocator.allocate(0x2000);
    ASSERT_TRUE(iova.ok());
    EXPECT_EQ(*iova, 0x100000u);
}

TEST(IovaAllocator, ExhaustionFailsThenFreeingMergesAgain) {
    IovaAllocator allocator({{0x0, 0x3fff}}, 4096);
    std::vector<uint64_t> got;
    for (int i = 0; i < 4; ++i)
        got.push_back(*allocator.allocate(4096));
    auto none = allocator.allocate(1);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, ENOSPC);
    // Free out of order: fragments until neighbours come back, then one range again.
    ASSERT_TRUE(allocator.free(got[1], 4096).ok());
    ASSERT_TRUE(allocator.free(got[3], 4096).ok());
    EXPECT_EQ(allocator.free_ranges().size(), 2u);
    EXPECT_FALSE(allocator.allocate(0x2000).ok()) << "two separate pages cannot hold 8 KiB";
    ASSERT_TRUE(allocator.free(got[2], 4096).ok());
    ASSERT_TRUE(allocator.free(got[0], 4096).ok());
    ASSERT_EQ(allocator.free_ranges().size(), 1u);
    EXPECT_EQ(allocator.free_ranges()[0].start, 0u);
    EXPECT_EQ(allocator.free_ranges()[0].last, 0x3fffu);
}

TEST(IovaAllocator, DoubleFreeIsRefused) {
    IovaAllocator allocator({{0x0, 0xffff}}, 4096);
    const uint64_t iova = *allocator.allocate(4096);
    ASSERT_TRUE(allocator.free(iova, 4096).ok());
    auto again = allocator.free(iova, 4096);
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.error().message().find("already free"), std::string::npos);
}

TEST(IovaAllocator, ZeroSizeIsRefused) {
    IovaAllocator allocator({{0x0, 0xffff}}, 4096);
    auto zero = allocator.allocate(0);
    ASSERT_FALSE(zero.ok());
    EXPECT_EQ(zero.error().code, EINVAL);
}

TEST(IovaAllocator, NoRangesMeansNoAllocation) {
    IovaAllocator allocator({}, 4096);
    EXPECT_FALSE(allocator.allocate(4096).ok());
}

// A remote allocator (the VFIO manager's) gets page-rounded requests with the DMA mask, and
// its errors reach the caller unchanged.
TEST(IovaAllocator, RemoteForwardsRoundedRequests) {
    std::vector<std::string> calls;
    IovaAllocator::Remote remote{
        [&](uint64_t size, unsigned bits) -> pdt::Result<uint64_t> {
            calls.push_back("allocate " + std::to_string(size) + " " + std::to_string(bits));
            if (size > 8192)
                return pdt::make_error("allocate IOVA", "manager", ENOSPC, "full");
            return uint64_t{0x40000};
        },
        [&](uint64_t iova, uint64_t size) -> pdt::Result<void> {
            calls.push_back("free " + std::to_string(iova) + " " + std::to_string(size));
            return {};
        }};
    IovaAllocator allocator = IovaAllocator::remote(4096, remote);
    auto iova = allocator.allocate(100, 28);
    ASSERT_TRUE(iova.ok());
    EXPECT_EQ(*iova, 0x40000u);
    EXPECT_TRUE(allocator.free(0x40000, 100).ok());
    auto full = allocator.allocate(3 * 4096, 32);
    ASSERT_FALSE(full.ok());
    EXPECT_EQ(full.error().code, ENOSPC);
    EXPECT_FALSE(allocator.allocate(0).ok());  // refused locally, never sent
    EXPECT_EQ(calls, (std::vector<std::string>{"allocate 4096 28", "free 262144 4096", "allocate 12288 32"}));
}
