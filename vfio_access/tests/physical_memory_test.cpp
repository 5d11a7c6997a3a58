// No-IOMMU DMA memory (physical_memory.hpp) on fake files: pagemap decoding and reading, the
// contiguous runs and their allocator, the hugetlbfs mount list, the pool on a fake "hugetlbfs"
// (a temporary folder with 16 KiB "huge pages") whose pagemap entries the test writes, every
// error with the fix it names, and DmaRegion on a no-IOMMU device.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <unistd.h>

#include <cstring>

#include "../src/kernel_internal.hpp"
#include "temp_tree.hpp"
#include "test_support/failed_with.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/physical_memory.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace physical_memory_test {

namespace {

using test_support::failed_with;

constexpr uint64_t kPresent = 1ull << 63;
constexpr uint64_t kPage = 16 * 1024;  // the fake huge page

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Writes pagemap entry `raw` for the 4 KiB page at virtual address `virt` into `path`.
void write_entry(const std::string& path, uintptr_t virt, uint64_t raw) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, &raw, sizeof raw, static_cast<off_t>(virt / 4096 * 8)), 8);
    ::close(fd);
}

TEST(Pagemap, DecodesPresentSwappedAndFrame) {
    const auto entry = vfio::decode_pagemap_entry(kPresent | (1ull << 55) | (1ull << 61) | 0x12345);
    EXPECT_TRUE(entry.present);
    EXPECT_FALSE(entry.swapped);
    EXPECT_EQ(entry.frame, 0x12345u);  // soft-dirty (55) and file (61) bits are not frame bits
    const auto swapped = vfio::decode_pagemap_entry(kPresent | (1ull << 62) | 0x777);
    EXPECT_TRUE(swapped.swapped);
    EXPECT_EQ(swapped.frame, 0u);  // bits 0-4 are the swap type then, not a frame
    EXPECT_FALSE(vfio::decode_pagemap_entry(0x12345).present);
}

TEST(Pagemap, ReadsOneAddressPerHugePage) {
    TempTree tree;
    const std::string pagemap = tree.path("pagemap");
    write_entry(pagemap, 0x200000, kPresent | 0x8000);   // huge page 1 at 0x8000000
    write_entry(pagemap, 0x400000, kPresent | 0x9000);   // huge page 2 at 0x9000000
    auto phys = vfio::read_physical_addresses(pagemap, 0x200000, 0x200000, 2);
    ASSERT_TRUE(phys.ok()) << phys.error().message();
    ASSERT_EQ(phys->size(), 2u);
    EXPECT_EQ((*phys)[0], 0x8000000u);
    EXPECT_EQ((*phys)[1], 0x9000000u);
}

TEST(Pagemap, ZeroFrameNumbersNeedCapSysAdmin) {
    TempTree tree;
    const std::string pagemap = tree.path("pagemap");
    write_entry(pagemap, 0x200000, kPresent);  // what an unprivileged reader sees
    auto phys = vfio::read_physical_addresses(pagemap, 0x200000, 0x200000, 1);
    EXPECT_TRUE(failed_with(phys, EPERM, "frame number 0: reading frame numbers needs CAP_SYS_ADMIN"));
}

TEST(Pagemap, PageNotPresentSwappedOrFileShort) {
    TempTree tree;
    const std::string pagemap = tree.path("pagemap");
    write_entry(pagemap, 0x200000, 0x8000);                    // not present
    write_entry(pagemap, 0x400000, kPresent | (1ull << 62));   // swapped
    auto absent = vfio::read_physical_addresses(pagemap, 0x200000, 0x200000, 1);
    EXPECT_TRUE(failed_with(absent, EFAULT, "not present: DMA buffers must be populated and locked"));
    auto swapped = vfio::read_physical_addresses(pagemap, 0x400000, 0x200000, 1);
    ASSERT_FALSE(swapped.ok());
    EXPECT_TRUE(contains(swapped.error().message(), "swapped out"));
    auto past = vfio::read_physical_addresses(pagemap, 0x800000, 0x200000, 1);
    ASSERT_FALSE(past.ok());
    EXPECT_TRUE(contains(past.error().message(), "short read")) << past.error().message();
    auto missing = vfio::read_physical_addresses(tree.path("none"), 0x200000, 0x200000, 1);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ENOENT);
}

TEST(ContiguousRuns, JoinsPhysicallyConsecutivePages) {
    auto* base = reinterpret_cast<uint8_t*>(0x10000000);
    const auto runs = vfio::contiguous_runs(base, {0x400000, 0x600000, 0x200000, 0xa00000, 0xc00000}, 0x200000);
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].phys, 0x400000u);
    EXPECT_EQ(runs[0].size, 0x400000u);
    EXPECT_EQ(runs[0].virt, base);
    EXPECT_EQ(runs[1].phys, 0x200000u);
    EXPECT_EQ(runs[1].virt, base + 0x400000);
    EXPECT_EQ(runs[2].size, 0x400000u);
}

vfio::PhysicalRun run(uintptr_t virt, uint64_t phys, uint64_t size) {
    return {reinterpret_cast<uint8_t*>(virt), phys, size};
}

TEST(RunAllocator, BestFitInsideOneRunAndJoinsOnFree) {
    vfio::RunAllocator allocator;
    allocator.add(run(0x10000000, 0x100000, 0x10000));  // 64 KiB
    allocator.add(run(0x20000000, 0x400000, 0x4000));   // 16 KiB: the best fit for 5000 bytes
    auto a = allocator.allocate(5000, 64);
    ASSERT_TRUE(a.ok()) << a.error().message();
    EXPECT_EQ(a->phys, 0x400000u);
    EXPECT_EQ(a->size, 8192u);  // rounded to 4 KiB
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->virt), 0x20000000u);
    auto b = allocator.allocate(0x8000, 64);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->phys, 0x100000u);
    auto too_big = allocator.allocate(0x9000, 64);
    EXPECT_TRUE(failed_with(too_big, ENOMEM, "largest free physically contiguous run is 32768 bytes"));
    allocator.free(*b);
    allocator.free(*a);
    ASSERT_EQ(allocator.free_runs().size(), 2u);
    EXPECT_EQ(allocator.largest_free(), 0x10000u);
    EXPECT_FALSE(allocator.allocate(0, 64).ok());
}

TEST(RunAllocator, DoesNotJoinRunsContiguousOnlyPhysically) {
    vfio::RunAllocator allocator;
    allocator.add(run(0x10000000, 0x100000, 0x1000));
    allocator.add(run(0x30000000, 0x101000, 0x1000));  // physically next, virtually elsewhere
    EXPECT_EQ(allocator.free_runs().size(), 2u);
    EXPECT_FALSE(allocator.allocate(0x2000, 64).ok());
}

TEST(RunAllocator, BufferAboveTheDmaMaskIsAnErrorNeverTruncated) {
    vfio::RunAllocator allocator;
    allocator.add(run(0x10000000, 0x10000000, 0x200000));  // at 256 MiB: above edu's 28 bits
    auto above = allocator.allocate(4096, 28);
    EXPECT_TRUE(failed_with(above, ERANGE, "above the device's DMA mask (28 bits, up to 0xfffffff)"));
    allocator.add(run(0x20000000, 0xffff000, 0x2000));  // straddles the mask: one page fits below
    auto below = allocator.allocate(4096, 28);
    ASSERT_TRUE(below.ok()) << below.error().message();
    EXPECT_EQ(below->phys, 0xffff000u);
    EXPECT_FALSE(allocator.allocate(4096, 28).ok());
    EXPECT_TRUE(allocator.allocate(4096, 64).ok());
}

TEST(HugetlbfsMounts, ListsEachMountWithItsPageSize) {
    TempTree tree;
    tree.write("mounts", "proc /proc proc rw 0 0\n"
                         "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=1024M 0 0\n"
                         "none /mnt/huge hugetlbfs rw,relatime,pagesize=2M 0 0\n"
                         "none /mnt/default hugetlbfs rw 0 0\n");
    auto mounts = vfio::hugetlbfs_mounts(tree.path("mounts"), 2u << 20);
    ASSERT_TRUE(mounts.ok()) << mounts.error().message();
    ASSERT_EQ(mounts->size(), 3u);
    EXPECT_EQ((*mounts)[0].page_size, 2u << 20);
    EXPECT_EQ((*mounts)[2].path, "/dev/hugepages");
    EXPECT_EQ((*mounts)[2].page_size, 1u << 30);
}

TEST(HugetlbfsMounts, NoneMountedNamesTheMountCommand) {
    TempTree tree;
    tree.write("mounts", "proc /proc proc rw 0 0\n");
    auto mounts = vfio::hugetlbfs_mounts(tree.path("mounts"), 2u << 20);
    ASSERT_TRUE(failed_with(mounts, ENOENT, "no hugetlbfs is mounted"));
    EXPECT_TRUE(contains(mounts.error().message(), "mount -t hugetlbfs nodev /dev/hugepages"));
}

// A fake machine: "hugetlbfs" of 16 KiB pages in a temporary folder, its page counts, and a
// pagemap the pool's on_map hook fills with `frame(page index)`.
struct FakeHuge {
    TempTree tree;
    vfio::PhysicalPoolOptions options;
    uint64_t next_page = 0;
    std::function<uint64_t(uint64_t)> frame = [](uint64_t page) { return kPresent | (0x1000 + page * 4); };

    explicit FakeHuge(int free_pages = 8) {
        tree.mkdir("huge");
        tree.write("mounts", "none " + tree.path("huge") + " hugetlbfs rw,pagesize=16K 0 0\n");
        tree.write("sys/hugepages-16kB/free_hugepages", std::to_string(free_pages) + "\n");
        tree.write("sys/hugepages-16kB/resv_hugepages", "0\n");
        tree.write("meminfo", "Hugepagesize:       2048 kB\n");
        options.mounts_path = tree.path("mounts");
        options.hugepages_sysfs = tree.path("sys");
        options.meminfo_path = tree.path("meminfo");
        options.pagemap_path = tree.path("pagemap");
        options.on_map = [this](uintptr_t virt, uint64_t bytes) {
            for (uint64_t at = 0; at < bytes; at += kPage)
                write_entry(tree.path("pagemap"), virt + at, frame(next_page++));
        };
    }
    // One allocation from a pool opened on this fake (it must open), for the tests of a refusal:
    // the pool is closed on return, so only an error is worth reading.
    pdt::Result<vfio::PhysicalRun> allocation(uint64_t size, unsigned dma_mask_bits) {
        auto pool = vfio::PhysicalPool::create(options);
        EXPECT_TRUE(pool.ok()) << pool.error().message();
        if (!pool.ok())
            return pool.error();
        return (*pool)->allocate(size, dma_mask_bits);
    }
};

TEST(PhysicalPool, BuffersComeFromContiguousRunsWithTheirPhysicalAddresses) {
    FakeHuge fake;
    auto pool = vfio::PhysicalPool::create(fake.options);
    ASSERT_TRUE(pool.ok()) << pool.error().message();
    auto a = (*pool)->allocate(100, 28);
    ASSERT_TRUE(a.ok()) << a.error().message();
    EXPECT_EQ(a->phys, 0x1000000u);  // frame 0x1000 of the first page
    EXPECT_EQ(a->size, 4096u);
    // From the first physical buffer on, every result of the process names the mode.
    EXPECT_EQ(vfio::process_dma_addressing(), vfio::DmaAddressing::Physical);
    EXPECT_EQ(vfio::dma_addressing_line(), "DMA addressing: no-iommu (physical addresses)");
    std::memset(a->virt, 0xa5, a->size);
    auto b = (*pool)->allocate(8192, 28);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->phys, 0x1001000u);  // the rest of the same page
    (*pool)->free(*a);
    auto again = (*pool)->allocate(4096, 28);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->phys, 0x1000000u);
    EXPECT_EQ(again->virt[0], 0);  // zeroed when handed out again
    // 32 KiB: two fake pages, physically consecutive (frames 4 apart = 16 KiB): one run.
    auto big = (*pool)->allocate(32768, 28);
    ASSERT_TRUE(big.ok()) << big.error().message();
    EXPECT_EQ(big->size, 32768u);
}

TEST(PhysicalPool, PagesNotContiguousForABigBufferNameOneGibPages) {
    FakeHuge fake;
    fake.frame = [](uint64_t page) { return kPresent | (0x1000 + page * 64); };  // 256 KiB apart
    auto big = fake.allocation(32768, 64);
    ASSERT_TRUE(failed_with(big, ENOMEM, "one physically contiguous run"));
    EXPECT_TRUE(contains(big.error().message(), "hugepagesz=1G"));
}

TEST(PhysicalPool, ZeroFrameNumbersAreRefusedNamingCapSysAdmin) {
    FakeHuge fake;
    fake.frame = [](uint64_t) { return kPresent; };
    auto a = fake.allocation(4096, 64);
    ASSERT_TRUE(failed_with(a, EPERM, "CAP_SYS_ADMIN"));
}

TEST(PhysicalPool, NoFreeHugePagesNamesNrHugepages) {
    FakeHuge fake(0);
    auto a = fake.allocation(4096, 64);
    ASSERT_TRUE(failed_with(a, ENOMEM, "no free huge pages: 1 page(s) of 16 kB needed, 0 free"));
    EXPECT_TRUE(contains(a.error().message(), "hugepages-16kB/nr_hugepages"));
}

TEST(PhysicalPool, PagesAboveTheMaskAreAnError) {
    FakeHuge fake;
    fake.frame = [](uint64_t page) { return kPresent | (0x10000 + page * 4); };  // from 256 MiB
    auto a = fake.allocation(4096, 28);
    ASSERT_TRUE(failed_with(a, ERANGE, "DMA mask (28 bits"));
}

// The kernel may hand out a huge page above the mask first: the pool keeps it unused and takes
// another, and the buffer lies below the mask.
TEST(PhysicalPool, APageAboveTheMaskIsSkippedForOneBelowIt) {
    FakeHuge fake;
    fake.frame = [](uint64_t page) { return kPresent | (page < 2 ? 0x10000 + page * 4 : 0x1000 + page * 4); };
    auto pool = vfio::PhysicalPool::create(fake.options);
    ASSERT_TRUE(pool.ok());
    auto a = (*pool)->allocate(4096, 28);
    ASSERT_TRUE(a.ok()) << a.error().message();
    EXPECT_LT(a->phys, 1ull << 28);
}

TEST(PhysicalPool, NoHugetlbfsMounted) {
    FakeHuge fake;
    fake.tree.write("mounts", "sysfs /sys sysfs rw 0 0\n");
    auto pool = vfio::PhysicalPool::create(fake.options);
    ASSERT_FALSE(pool.ok());
    EXPECT_TRUE(contains(pool.error().message(), "no hugetlbfs is mounted"));
}

// A no-IOMMU device: DMA buffers come from its pool, or its refusal; nothing is mapped.
class NoIommuDevice final : public vfio::Device {
public:
    explicit NoIommuDevice(pdt::Result<std::shared_ptr<vfio::PhysicalPool>> pool) : m_pool(std::move(pool)) {}
    const vfio::DeviceIdentity& identity() const override { return m_identity; }
    pdt::Result<void> config_read(uint32_t, void*, uint32_t) override { return refused(); }
    pdt::Result<void> config_write(uint32_t, const void*, uint32_t) override { return refused(); }
    pdt::Result<vfio::Bar*> bar(unsigned) override { return refused().error(); }
    pdt::Result<void> dma_map(uint64_t, void*, uint64_t, vfio::DmaAccess) override {
        ++maps;
        return refused();
    }
    pdt::Result<uint64_t> dma_unmap(uint64_t, uint64_t) override { return refused().error(); }
    vfio::IovaAllocator& iova_allocator() override { return m_iova; }
    pdt::Result<std::shared_ptr<vfio::PhysicalPool>> physical_pool() override { return m_pool; }
    pdt::Result<vfio::IrqInfo> irq_info(vfio::IrqIndex) override { return refused().error(); }
    pdt::Result<void> irq_enable(vfio::IrqIndex, unsigned) override { return refused(); }
    pdt::Result<void> irq_disable(vfio::IrqIndex) override { return refused(); }
    pdt::Result<int> irq_eventfd(unsigned) override { return refused().error(); }
    pdt::Result<void> reset() override { return refused(); }
    int maps = 0;

private:
    static pdt::Result<void> refused() { return pdt::make_error("fake", "device", ENOTSUP); }
    pdt::Result<std::shared_ptr<vfio::PhysicalPool>> m_pool;
    vfio::DeviceIdentity m_identity;
    vfio::IovaAllocator m_iova = vfio::IovaAllocator({{0x100000, 0xffffff}}, 4096);
};

TEST(PhysicalDmaRegion, IovaIsThePhysicalAddressAndNothingIsMapped) {
    FakeHuge fake;
    NoIommuDevice device(vfio::PhysicalPool::create(fake.options));
    auto region = vfio::DmaRegion::allocate(device, 3000, {vfio::DmaAccess::DeviceRead, vfio::BufferKind::Anonymous, 28});
    ASSERT_TRUE(region.ok()) << region.error().message();
    EXPECT_TRUE(region->physical());
    EXPECT_EQ(region->iova(), 0x1000000u);
    EXPECT_EQ(region->size(), 3000u);
    EXPECT_EQ(region->mapped_size(), 4096u);
    region->data()[2999] = 1;
    EXPECT_EQ(device.maps, 0);
    ASSERT_TRUE(region->release().ok());
    auto next = vfio::DmaRegion::allocate(device, 4096, {vfio::DmaAccess::DeviceWrite, vfio::BufferKind::Anonymous, 28});
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(next->iova(), 0x1000000u);  // released to the pool
    EXPECT_EQ(next->data()[2999], 0);
}

TEST(PhysicalDmaRegion, TheDevicesRefusalStopsTheBuffer) {
    NoIommuDevice device(pdt::make_error("allocate DMA buffer", "0000:01:00.0", EPERM, "refused: pass --no_iommu"));
    auto region = vfio::DmaRegion::allocate(device, 4096, vfio::DmaAccess::DeviceReadWrite);
    ASSERT_FALSE(region.ok());
    EXPECT_TRUE(contains(region.error().message(), "refused: pass --no_iommu"));
    EXPECT_EQ(device.maps, 0);
}

TEST(DmaAddressing, Names) {
    EXPECT_STREQ(vfio::to_string(vfio::DmaAddressing::Iommu), "iommu");
    EXPECT_STREQ(vfio::to_string(vfio::DmaAddressing::Physical), "no-iommu (physical addresses)");
    EXPECT_TRUE(contains(vfio::kNoIommuDanger, "can reach all of RAM"));
}

}  // namespace

namespace {

// A no-IOMMU container that a group behind an IOMMU joins (and the reverse): refused before any
// ioctl, naming the fix. The containers are adopted over /dev/null (set_iommu's check comes first).
TEST(MixedContainer, NoIommuAndIommuGroupsDoNotShareOne) {
    for (const bool noiommu_first : {true, false}) {
        vfio::UniqueFd fd(::open("/dev/null", O_RDWR | O_CLOEXEC));
        ASSERT_TRUE(fd.valid());
        auto container = vfio::Container::adopt(std::move(fd), "/dev/vfio/vfio",
                                                noiommu_first ? VFIO_NOIOMMU_IOMMU : VFIO_TYPE1v2_IOMMU,
                                                vfio::IovaAllocator());
        auto joined = container->set_iommu(!noiommu_first);
        ASSERT_TRUE(failed_with(joined, EINVAL, "cannot mix no-IOMMU and IOMMU groups in one container"));
        EXPECT_TRUE(
            contains(joined.error().message(), "run the no-IOMMU device on its own through the device selection"));
    }
}

}  // namespace

}  // namespace physical_memory_test
