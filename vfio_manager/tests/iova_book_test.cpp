#include <gtest/gtest.h>

#include "vfio_manager/iova_book.hpp"

namespace vfio_manager {
namespace {

// Free IOVA 0x1000..0x1fffffff: below and above a 28-bit mask.
struct Book : ::testing::Test {
    vfio::IovaAllocator allocator{{{0x1000, 0x1fffffff}}, 4096};
    IovaBook book;
    void SetUp() override { book.attach(&allocator); }
};

TEST_F(Book, AllocationsHonourTheMaskAndNeverOverlap) {
    auto a = book.allocate(1, 0x0ff00000, 28);
    ASSERT_TRUE(a.ok()) << a.error().message();
    EXPECT_LE(*a + 0x0ff00000 - 1, 0x0fffffffu);
    auto b = book.allocate(2, 0x200000, 28);  // does not fit below 2^28 any more
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.error().code, ENOSPC);
    EXPECT_NE(b.error().message().find("28-bit DMA mask"), std::string::npos);
    auto c = book.allocate(2, 0x200000, 64);
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(*c >= *a + 0x0ff00000 || *c + 0x200000 <= *a);
    EXPECT_EQ(book.held_by(1), 1u);
    EXPECT_EQ(book.held_by(2), 1u);
}

TEST_F(Book, OnlyTheOwnerFreesAndOnlyTheExactRange) {
    const uint64_t a = *book.allocate(1, 100, 64);  // rounded to one page
    auto other = book.free(2, a, 4096);
    ASSERT_FALSE(other.ok());
    EXPECT_EQ(other.error().code, EPERM);
    EXPECT_NE(other.error().message().find("belongs to another client"), std::string::npos);
    auto wrong = book.free(1, a, 8192);
    ASSERT_FALSE(wrong.ok());
    EXPECT_EQ(wrong.error().code, ENOENT);
    EXPECT_TRUE(book.free(1, a, 100).ok());
    EXPECT_EQ(book.regions(), 0u);
    EXPECT_FALSE(book.free(1, a, 100).ok());
}

TEST_F(Book, QuarantinedRangesStayAllocatedUntilAttach) {
    const uint64_t a = *book.allocate(1, 0x10000000 - 0x1000, 28);  // everything below 2^28
    EXPECT_EQ(book.quarantine(1), 1u);
    EXPECT_EQ(book.quarantined(), 1u);
    EXPECT_EQ(book.held_by(1), 0u);
    auto freed = book.free(1, a, 0x10000000 - 0x1000);
    EXPECT_EQ(freed.error().code, EPERM);  // the client left: nobody may free it now
    auto again = book.allocate(2, 4096, 28);
    ASSERT_FALSE(again.ok()) << "a quarantined range was handed out again";
    vfio::IovaAllocator fresh{{{0x1000, 0x1fffffff}}, 4096};
    book.attach(&fresh);  // the container was recycled
    EXPECT_EQ(book.regions(), 0u);
    auto now = book.allocate(2, 4096, 28);
    ASSERT_TRUE(now.ok());
    EXPECT_EQ(*now, a);
}

TEST(IovaBookDetached, FailsNamingTheCause) {
    IovaBook book;
    auto a = book.allocate(1, 4096, 64);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.error().code, ENODEV);
    EXPECT_NE(a.error().message().find("not open"), std::string::npos);
}

}  // namespace
}  // namespace vfio_manager
