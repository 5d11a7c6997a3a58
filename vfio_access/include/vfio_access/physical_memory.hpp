// DMA with physical addresses, for devices in no-IOMMU VFIO groups (vfio.ko loaded with
// enable_unsafe_noiommu_mode=1). Without an IOMMU the device is given bus addresses, which on
// x86 are the physical addresses of the host's RAM: any address it is given can reach all of
// RAM. Buffers therefore come only from here:
//
//   - hugetlbfs pages (2 MiB, 1 GiB where mounted), mapped MAP_SHARED | MAP_POPULATE and locked,
//     so the kernel never moves or swaps them;
//   - their physical addresses read from /proc/self/pagemap (frame numbers need CAP_SYS_ADMIN:
//     without it the kernel reports them as 0, which is refused, never used);
//   - an allocator that gives each buffer one physically and virtually contiguous run, inside
//     the device's DMA mask (a buffer above the mask is an error, never a truncated address).
//
// The VFIO layer uses this pool when (and only when) a device's group is no-IOMMU and the
// caller opted in (KernelOptions::no_iommu, the tools' --no_iommu); vfio::DmaRegion::iova()
// then is the bus address. Every path is injectable so the tests run on fake files.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace vfio {

// The text every tool prints once (stderr) before its first buffer in no-IOMMU mode.
extern const char* const kNoIommuDanger;
// How results name the addressing of a run's DMA ("iommu", "no-iommu (physical addresses)").
enum class DmaAddressing { Iommu, Physical };
const char* to_string(DmaAddressing addressing);
// Physical once this process was handed a no-IOMMU buffer: every result of the run then names
// the mode ("DMA addressing: no-iommu (physical addresses)", JSON "dma_addressing").
DmaAddressing process_dma_addressing();
// The result line, or "" while the process used no physical addresses.
std::string dma_addressing_line();

// One 64-bit entry of /proc/<pid>/pagemap (Documentation/admin-guide/mm/pagemap.rst): bit 63
// present, bit 62 swapped, bits 0-54 the page frame number when present.
struct PagemapEntry {
    bool present = false;
    bool swapped = false;
    uint64_t frame = 0;
};
PagemapEntry decode_pagemap_entry(uint64_t raw);

// The physical address of each of `pages` pages of `page_size` bytes from `virt`, read from
// `pagemap_path` (its entry of the first 4 KiB page of each). Errors: a short file, a page not
// present or swapped, and frame number 0 (no CAP_SYS_ADMIN), each naming the fix.
pdt::Result<std::vector<uint64_t>> read_physical_addresses(const std::string& pagemap_path, uintptr_t virt,
                                                      uint64_t page_size, size_t pages);

// Memory that is contiguous both virtually and physically.
struct PhysicalRun {
    uint8_t* virt = nullptr;
    uint64_t phys = 0;
    uint64_t size = 0;
    uint64_t phys_last() const { return phys + size - 1; }
};
// Joins the pages at `base` (physical addresses `phys`, one per page) into the longest runs.
std::vector<PhysicalRun> contiguous_runs(uint8_t* base, const std::vector<uint64_t>& phys, uint64_t page_size);

// Best fit over free runs: each allocation lies inside one run, 4 KiB aligned, ends at or below
// 2^dma_mask_bits - 1. ENOMEM when no free run is large enough (naming the largest), ERANGE
// when the only runs large enough lie above the mask.
class RunAllocator {
public:
    static constexpr uint64_t kAlignment = 4096;
    void add(PhysicalRun run);
    pdt::Result<PhysicalRun> allocate(uint64_t size, unsigned dma_mask_bits);
    void free(PhysicalRun run);
    const std::vector<PhysicalRun>& free_runs() const { return m_free; }
    uint64_t largest_free() const;

private:
    std::vector<PhysicalRun> m_free;  // sorted by phys, joined where contiguous both ways
};

// A mounted hugetlbfs and its page size ("pagesize=" of the mount options, else the default).
struct HugetlbfsMount {
    std::string path;
    uint64_t page_size = 0;
};
// The hugetlbfs mounts listed in `mounts_path` (/proc/mounts format). ENOENT, with the mount
// command, when there are none.
pdt::Result<std::vector<HugetlbfsMount>> hugetlbfs_mounts(const std::string& mounts_path, uint64_t default_page_size);

// Pages of `page_size` bytes free for a new mapping: free_hugepages - resv_hugepages of
// <sysfs>/hugepages-<kB>kB; -1 when the size is unknown there.
long long available_huge_pages(const std::string& hugepages_sysfs, uint64_t page_size);

struct PhysicalPoolOptions {
    std::string mounts_path = "/proc/mounts";
    std::string pagemap_path = "/proc/self/pagemap";
    std::string hugepages_sysfs = "/sys/kernel/mm/hugepages";
    std::string meminfo_path = "/proc/meminfo";
    // Tests: called with each new mapping before its pagemap entries are read (to write them
    // into a fake pagemap file at the mapping's offsets).
    std::function<void(uintptr_t virt, uint64_t bytes)> on_map;
};

// Locked hugetlbfs memory with known physical addresses, grown a mapping at a time as buffers
// are asked for. Shared by every no-IOMMU device of a container; chunks keep it alive.
class PhysicalPool {
public:
    // Finds the hugetlbfs mounts (ENOENT naming the fix when none). Maps nothing yet.
    static pdt::Result<std::shared_ptr<PhysicalPool>> create(PhysicalPoolOptions options);
    ~PhysicalPool();
    PhysicalPool(const PhysicalPool&) = delete;
    PhysicalPool& operator=(const PhysicalPool&) = delete;

    // A zeroed run of at least `size` bytes (rounded up to 4 KiB) below the mask; maps more huge
    // pages when no free run fits. Errors name the fix (pages to reserve, 1 GiB pages, mask).
    pdt::Result<PhysicalRun> allocate(uint64_t size, unsigned dma_mask_bits);
    void free(PhysicalRun run);
    const std::vector<HugetlbfsMount>& mounts() const { return m_mounts; }

private:
    struct Mapping {
        void* base = nullptr;
        uint64_t size = 0;
    };
    explicit PhysicalPool(PhysicalPoolOptions options) : m_options(std::move(options)) {}
    pdt::Result<void> grow(uint64_t size);
    // Growths a buffer may take while every new run lies above the DMA mask.
    static constexpr unsigned kMaxGrowthsPastTheMask = 16;
    pdt::Result<PhysicalRun> allocate_locked(uint64_t size, unsigned dma_mask_bits);
    pdt::Result<Mapping> map_pages(const HugetlbfsMount& mount, uint64_t pages);

    PhysicalPoolOptions m_options;
    std::mutex m_mutex;  // buffers may be allocated and released from several threads
    std::vector<HugetlbfsMount> m_mounts;  // sorted by page size
    std::vector<Mapping> m_mappings;
    RunAllocator m_runs;
};

}  // namespace vfio
