// The no-IOMMU buffer pool (physical_memory.hpp): hugetlbfs pages mapped, locked and translated
// to physical addresses through pagemap, handed out by the run allocator.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "base/format.hpp"
#include "vfio_access/dma.hpp"
#include "vfio_access/permission_hint.hpp"
#include "vfio_access/physical_memory.hpp"

namespace vfio {

namespace {

std::atomic<bool> physical_used{false};  // a buffer was handed out: process_dma_addressing()

std::string kib(uint64_t bytes) { return std::to_string(bytes >> 10) + " kB"; }

std::string reserve_hint(const PhysicalPoolOptions& options, uint64_t page_size, uint64_t pages) {
    const std::string dir = options.hugepages_sysfs + "/hugepages-" + std::to_string(page_size >> 10) + "kB";
    return "reserve them: echo <total> > " + dir + "/nr_hugepages (adding at least " + std::to_string(pages) +
           "), or hugepagesz=" + std::to_string(page_size >> 20) + "M hugepages=<n> on the kernel command line";
}

}  // namespace

DmaAddressing process_dma_addressing() {
    return physical_used.load() ? DmaAddressing::Physical : DmaAddressing::Iommu;
}

pdt::Result<std::shared_ptr<PhysicalPool>> PhysicalPool::create(PhysicalPoolOptions options) {
    auto default_size = default_huge_page_size(options.meminfo_path);
    std::shared_ptr<PhysicalPool> pool(new PhysicalPool(std::move(options)));
    pool->m_mounts = PDT_TRY(hugetlbfs_mounts(pool->m_options.mounts_path, default_size ? *default_size : 0));
    return pool;
}

PhysicalPool::~PhysicalPool() {
    for (const Mapping& mapping : m_mappings)
        ::munmap(mapping.base, mapping.size);
}

pdt::Result<PhysicalPool::Mapping> PhysicalPool::map_pages(const HugetlbfsMount& mount, uint64_t pages) {
    std::string name = mount.path + "/pdt_dma_XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
        return pdt::errno_error("create", name, "a file in the hugetlbfs mount holds the buffer pages: is it writable?");
    ::unlink(name.c_str());  // the mapping keeps the pages; nothing is left behind
    Mapping mapping;
    mapping.size = pages * mount.page_size;
    if (::ftruncate(fd, static_cast<off_t>(mapping.size)) != 0) {
        const pdt::Error error = pdt::errno_error("ftruncate", name + " to " + std::to_string(mapping.size) + " bytes");
        ::close(fd);
        return error;
    }
    void* base = ::mmap(nullptr, mapping.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    const int code = errno;
    ::close(fd);
    if (base == MAP_FAILED)
        return pdt::make_error("mmap", std::to_string(pages) + " huge page(s) of " + kib(mount.page_size) + " in " + mount.path,
                          code, code == ENOMEM ? "not enough free huge pages: " +
                                                     reserve_hint(m_options, mount.page_size, pages)
                                               : "");
    mapping.base = base;
    if (::mlock(base, mapping.size) != 0) {
        const pdt::Error error = pdt::make_error("mlock", std::to_string(mapping.size) + " bytes of huge pages", errno,
                                       memlock_hint(current_memlock(), mapping.size));
        ::munmap(base, mapping.size);
        return error;
    }
    return mapping;
}

pdt::Result<void> PhysicalPool::grow(uint64_t size) {
    const HugetlbfsMount* chosen = nullptr;
    uint64_t pages = 0;
    // The smallest page that holds the buffer alone; else the largest pages, several of them.
    for (const HugetlbfsMount& mount : m_mounts)
        if (!chosen && mount.page_size >= size && available_huge_pages(m_options.hugepages_sysfs, mount.page_size) != 0)
            chosen = &mount, pages = 1;
    for (auto it = m_mounts.rbegin(); !chosen && it != m_mounts.rend(); ++it) {
        const uint64_t need = (size + it->page_size - 1) / it->page_size;
        const long long available = available_huge_pages(m_options.hugepages_sysfs, it->page_size);
        if (available < 0 || static_cast<uint64_t>(available) >= need)
            chosen = &*it, pages = need;
    }
    if (!chosen) {
        const HugetlbfsMount& mount = m_mounts.front();
        const uint64_t need = (size + mount.page_size - 1) / mount.page_size;
        return pdt::make_error("allocate no-IOMMU buffer", std::to_string(size) + " bytes", ENOMEM,
                          "no free huge pages: " + std::to_string(need) + " page(s) of " + kib(mount.page_size) +
                              " needed, " + std::to_string(available_huge_pages(m_options.hugepages_sysfs, mount.page_size)) +
                              " free; " + reserve_hint(m_options, mount.page_size, need));
    }
    const Mapping mapping = PDT_TRY(map_pages(*chosen, pages));
    const auto virt = reinterpret_cast<uintptr_t>(mapping.base);
    if (m_options.on_map)
        m_options.on_map(virt, mapping.size);
    auto phys = read_physical_addresses(m_options.pagemap_path, virt, chosen->page_size, pages);
    if (!phys) {
        ::munmap(mapping.base, mapping.size);
        return std::move(phys).error();
    }
    m_mappings.push_back(mapping);
    for (const PhysicalRun& run : contiguous_runs(static_cast<uint8_t*>(mapping.base), *phys, chosen->page_size))
        m_runs.add(run);
    return {};
}

pdt::Result<PhysicalRun> PhysicalPool::allocate_locked(uint64_t size, unsigned dma_mask_bits) {
    auto first = m_runs.allocate(size, dma_mask_bits);
    if (first || first.error().code == EINVAL)
        return first;
    // Huge pages come from wherever the kernel's free list gives them: pages above the mask are
    // kept unused and more are taken, a bounded number of times, until a run below it fits.
    const uint64_t grow_by = (size + RunAllocator::kAlignment - 1) / RunAllocator::kAlignment * RunAllocator::kAlignment;
    auto second = m_runs.allocate(size, dma_mask_bits);
    for (unsigned tries = 0; tries < kMaxGrowthsPastTheMask; ++tries) {
        if (auto grown = grow(grow_by); !grown)
            return second.error().code == ERANGE ? std::move(second) : pdt::Result<PhysicalRun>(std::move(grown).error());
        second = m_runs.allocate(size, dma_mask_bits);
        if (second || second.error().code != ERANGE)
            break;
    }
    if (second || second.error().code != ENOMEM)
        return second;
    pdt::Error error = std::move(second).error();
    error.hint += ": a buffer must be one physically contiguous run; use smaller transfers, or 1 GiB pages "
                  "(hugepagesz=1G hugepages=<n> on the kernel command line, mount -t hugetlbfs -o pagesize=1G "
                  "nodev /dev/hugepages1G)";
    return error;
}

pdt::Result<PhysicalRun> PhysicalPool::allocate(uint64_t size, unsigned dma_mask_bits) {
    std::lock_guard lock(m_mutex);
    const PhysicalRun run = PDT_TRY(allocate_locked(size, dma_mask_bits));
    std::memset(run.virt, 0, run.size);
    physical_used = true;
    return run;
}

void PhysicalPool::free(PhysicalRun run) {
    std::lock_guard lock(m_mutex);
    m_runs.free(run);
}

}  // namespace vfio
