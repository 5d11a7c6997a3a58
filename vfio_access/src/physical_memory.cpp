// Pagemap decoding, contiguous runs, the run allocator and the hugetlbfs mount list
// (physical_memory.hpp). The pool that maps the pages is in physical_pool.cpp.
#include "vfio_access/physical_memory.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "base/format.hpp"
#include "base/spellings.hpp"
#include "base/text_file.hpp"
#include "vfio_access/unique_fd.hpp"

namespace vfio {

const char* const kNoIommuDanger =
    "DANGER: no-IOMMU mode, by the no-IOMMU opt-in. The device is given physical addresses and nothing checks "
    "what it does with them: any address it is given can reach all of RAM, and a wrong one can "
    "overwrite the kernel or any process. Buffers are locked huge pages inside the device's DMA mask.";

namespace {

constexpr pdt::Spelling<DmaAddressing> kAddressingNames[] = {{DmaAddressing::Iommu, "iommu"},
                                                        {DmaAddressing::Physical, "no-iommu (physical addresses)"}};
constexpr uint64_t kPagemapPage = 4096;  // pagemap has one entry per base page
constexpr uint64_t kFrameMask = (1ull << 55) - 1;

uint64_t mask_limit(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

std::string mask_text(unsigned bits) { return std::to_string(bits) + " bits, up to " + pdt::hex(mask_limit(bits)); }

// "2M" -> 2 MiB, "1G", "1024M", "2048K", "2097152".
uint64_t parse_page_size(const std::string& text) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (end == text.c_str())
        return 0;
    switch (*end) {
    case '\0': return value;
    case 'K': case 'k': return value << 10;
    case 'M': case 'm': return value << 20;
    case 'G': case 'g': return value << 30;
    default: return 0;
    }
}

}  // namespace

const char* to_string(DmaAddressing addressing) { return pdt::spelling(addressing, kAddressingNames); }

std::string dma_addressing_line() {
    if (process_dma_addressing() != DmaAddressing::Physical)
        return "";
    return std::string("DMA addressing: ") + to_string(DmaAddressing::Physical);
}

PagemapEntry decode_pagemap_entry(uint64_t raw) {
    PagemapEntry entry;
    entry.present = (raw >> 63) & 1;
    entry.swapped = (raw >> 62) & 1;
    entry.frame = entry.present && !entry.swapped ? raw & kFrameMask : 0;
    return entry;
}

pdt::Result<std::vector<uint64_t>> read_physical_addresses(const std::string& pagemap_path, uintptr_t virt,
                                                      uint64_t page_size, size_t pages) {
    UniqueFd fd(::open(pagemap_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return pdt::errno_error("open", pagemap_path, "physical addresses come from pagemap (Linux 2.6.25 and later)");
    std::vector<uint64_t> phys;
    for (size_t i = 0; i < pages; ++i) {
        const uintptr_t page = virt + i * page_size;
        uint64_t raw = 0;
        const off_t offset = static_cast<off_t>(page / kPagemapPage * sizeof raw);
        const ssize_t got = ::pread(fd.get(), &raw, sizeof raw, offset);
        const std::string where = pagemap_path + " entry of " + pdt::hex(page);
        if (got < 0)
            return pdt::errno_error("read", where);
        if (got != static_cast<ssize_t>(sizeof raw))
            return pdt::make_error("read", where, EIO, "short read: " + std::to_string(got) + " of 8 bytes");
        const PagemapEntry entry = decode_pagemap_entry(raw);
        if (!entry.present || entry.swapped)
            return pdt::make_error("read physical address", where, EFAULT,
                              entry.swapped ? "the page is swapped out: DMA buffers must be locked"
                                            : "the page is not present: DMA buffers must be populated and locked");
        if (entry.frame == 0)
            return pdt::make_error("read physical address", where, EPERM,
                              "pagemap gives frame number 0: reading frame numbers needs CAP_SYS_ADMIN (run as root, "
                              "or sudo setcap cap_sys_admin,cap_sys_rawio=ep <executable>)");
        phys.push_back(entry.frame * kPagemapPage + (page % kPagemapPage));
    }
    return phys;
}

std::vector<PhysicalRun> contiguous_runs(uint8_t* base, const std::vector<uint64_t>& phys, uint64_t page_size) {
    std::vector<PhysicalRun> runs;
    for (size_t i = 0; i < phys.size(); ++i) {
        if (!runs.empty() && runs.back().phys + runs.back().size == phys[i]) {
            runs.back().size += page_size;
            continue;
        }
        runs.push_back({base + i * page_size, phys[i], page_size});
    }
    return runs;
}

void RunAllocator::add(PhysicalRun run) { free(run); }

uint64_t RunAllocator::largest_free() const {
    uint64_t largest = 0;
    for (const PhysicalRun& run : m_free)
        largest = std::max(largest, run.size);
    return largest;
}

pdt::Result<PhysicalRun> RunAllocator::allocate(uint64_t size, unsigned dma_mask_bits) {
    const uint64_t want = (size + kAlignment - 1) / kAlignment * kAlignment;
    if (size == 0 || want < size)
        return pdt::make_error("allocate physical buffer", std::to_string(size) + " bytes", EINVAL, "size must be non-zero");
    const uint64_t limit = mask_limit(dma_mask_bits);
    size_t best = m_free.size();
    bool fits_above_mask = false;
    for (size_t i = 0; i < m_free.size(); ++i) {
        const PhysicalRun& run = m_free[i];
        if (run.size < want)
            continue;
        if (run.phys > limit || limit - run.phys < want - 1) {
            fits_above_mask = true;  // lower addresses are taken first: the start is the best here
            continue;
        }
        if (best == m_free.size() || run.size < m_free[best].size)
            best = i;
    }
    const std::string what = std::to_string(want) + " bytes";
    if (best == m_free.size()) {
        if (fits_above_mask)
            return pdt::make_error("allocate physical buffer", what, ERANGE,
                              "every free contiguous run large enough lies above the device's DMA mask (" +
                                  mask_text(dma_mask_bits) + "); a truncated address would reach other memory. "
                                  "Give the machine less memory or reserve huge pages at boot (hugepages= on the kernel "
                                  "command line) so that they lie low");
        return pdt::make_error("allocate physical buffer", what, ENOMEM,
                          "the largest free physically contiguous run is " + std::to_string(largest_free()) + " bytes");
    }
    PhysicalRun& run = m_free[best];
    PhysicalRun taken{run.virt, run.phys, want};
    run.virt += want;
    run.phys += want;
    run.size -= want;
    if (run.size == 0)
        m_free.erase(m_free.begin() + static_cast<std::ptrdiff_t>(best));
    return taken;
}

void RunAllocator::free(PhysicalRun run) {
    if (run.size == 0)
        return;
    auto at = std::lower_bound(m_free.begin(), m_free.end(), run,
                               [](const PhysicalRun& a, const PhysicalRun& b) { return a.phys < b.phys; });
    at = m_free.insert(at, run);
    auto joins = [](const PhysicalRun& a, const PhysicalRun& b) {
        return a.phys + a.size == b.phys && a.virt + a.size == b.virt;
    };
    if (at + 1 != m_free.end() && joins(*at, *(at + 1))) {
        at->size += (at + 1)->size;
        m_free.erase(at + 1);
    }
    if (at != m_free.begin() && joins(*(at - 1), *at)) {
        (at - 1)->size += at->size;
        m_free.erase(at);
    }
}

pdt::Result<std::vector<HugetlbfsMount>> hugetlbfs_mounts(const std::string& mounts_path, uint64_t default_page_size) {
    const std::string text = PDT_TRY(pdt::read_text_file(mounts_path, "open", "read", "the mount table"));
    std::vector<HugetlbfsMount> mounts;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream fields(line);
        std::string device, path, type, options;
        if (!(fields >> device >> path >> type >> options) || type != "hugetlbfs")
            continue;
        HugetlbfsMount mount{path, default_page_size};
        std::istringstream opts(options);
        for (std::string opt; std::getline(opts, opt, ',');)
            if (opt.rfind("pagesize=", 0) == 0)
                mount.page_size = parse_page_size(opt.substr(9));
        if (mount.page_size != 0)
            mounts.push_back(mount);
    }
    if (mounts.empty())
        return pdt::make_error("find hugetlbfs", mounts_path, ENOENT,
                          "no hugetlbfs is mounted: no-IOMMU DMA buffers are huge pages. mkdir -p /dev/hugepages && "
                          "mount -t hugetlbfs nodev /dev/hugepages, and reserve pages: echo 64 > /proc/sys/vm/nr_hugepages");
    std::sort(mounts.begin(), mounts.end(),
              [](const HugetlbfsMount& a, const HugetlbfsMount& b) { return a.page_size < b.page_size; });
    return mounts;
}

long long available_huge_pages(const std::string& hugepages_sysfs, uint64_t page_size) {
    const std::string dir = hugepages_sysfs + "/hugepages-" + std::to_string(page_size >> 10) + "kB/";
    auto number = [&](const char* name) -> long long {
        auto text = pdt::read_text_file(dir + name, "open", "read", "");
        return text ? std::strtoll(text->c_str(), nullptr, 10) : -1;
    };
    const long long free_pages = number("free_hugepages");
    const long long reserved = number("resv_hugepages");
    if (free_pages < 0)
        return -1;
    return std::max(0ll, free_pages - std::max(0ll, reserved));
}

}  // namespace vfio
