#include "base/format.hpp"
#include <algorithm>
#include <cstdio>

#include "vfio_access/dma.hpp"

namespace vfio {
namespace {

uint64_t mask_limit(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

}  // namespace

IovaAllocator::IovaAllocator(std::vector<IovaRange> ranges, uint64_t page_size) : m_page_size(page_size ? page_size : 4096) {
    std::sort(ranges.begin(), ranges.end(), [](const IovaRange& a, const IovaRange& b) { return a.start < b.start; });
    for (const IovaRange& r : ranges) {
        // Trim each range to whole pages.
        const uint64_t start = (r.start + m_page_size - 1) / m_page_size * m_page_size;
        if (start < r.start || start > r.last || r.last - start + 1 < m_page_size)
            continue;
        const uint64_t last = start + ((r.last - start + 1) / m_page_size) * m_page_size - 1;
        if (!m_free.empty() && m_free.back().last + 1 >= start)
            m_free.back().last = std::max(m_free.back().last, last);
        else
            m_free.push_back({start, last});
    }
}

IovaAllocator IovaAllocator::unavailable(pdt::Error reason) {
    IovaAllocator allocator;
    allocator.m_unavailable = std::move(reason);
    return allocator;
}

IovaAllocator IovaAllocator::remote(uint64_t page_size, Remote functions) {
    IovaAllocator allocator({}, page_size);
    allocator.m_remote = std::make_shared<Remote>(std::move(functions));
    return allocator;
}

uint64_t IovaAllocator::round_up(uint64_t size) const { return (size + m_page_size - 1) / m_page_size * m_page_size; }

pdt::Result<uint64_t> IovaAllocator::allocate(uint64_t size, unsigned dma_mask_bits) {
    if (m_unavailable)
        return *m_unavailable;
    const uint64_t want = round_up(size);
    const uint64_t limit = mask_limit(dma_mask_bits);
    if (size == 0 || want < size)
        return pdt::make_error("allocate IOVA", pdt::hex(size) + " bytes", EINVAL, "size must be non-zero");
    if (m_remote)
        return m_remote->allocate(want, dma_mask_bits);
    size_t best = m_free.size();
    uint64_t best_unused = ~0ull;
    for (size_t i = 0; i < m_free.size(); ++i) {
        const IovaRange& r = m_free[i];
        if (r.start > limit)
            continue;
        const uint64_t usable_last = std::min(r.last, limit);
        const uint64_t usable = usable_last - r.start + 1;
        if (usable < want)
            continue;
        const uint64_t unused = usable - want;
        if (unused < best_unused) {
            best = i;
            best_unused = unused;
        }
    }
    if (best == m_free.size())
        return pdt::make_error("allocate IOVA", pdt::hex(want) + " bytes", ENOSPC,
                          "no free IOVA range below " + pdt::hex(limit) + " (" + std::to_string(dma_mask_bits) +
                              "-bit DMA mask) is large enough");
    const uint64_t iova = m_free[best].start;
    if (m_free[best].size() == want)
        m_free.erase(m_free.begin() + static_cast<std::ptrdiff_t>(best));
    else
        m_free[best].start += want;
    return iova;
}

pdt::Result<void> IovaAllocator::free(uint64_t iova, uint64_t size) {
    const uint64_t len = round_up(size);
    if (len == 0 || iova % m_page_size != 0 || iova + len - 1 < iova)
        return pdt::make_error("free IOVA", pdt::hex(iova) + "+" + pdt::hex(size), EINVAL, "not a page-aligned allocation");
    if (m_remote)
        return m_remote->free(iova, len);
    const IovaRange freed{iova, iova + len - 1};
    auto next = std::lower_bound(m_free.begin(), m_free.end(), freed,
                                 [](const IovaRange& a, const IovaRange& b) { return a.start < b.start; });
    const bool overlaps_next = next != m_free.end() && next->start <= freed.last;
    const bool overlaps_prev = next != m_free.begin() && std::prev(next)->last >= freed.start;
    if (overlaps_next || overlaps_prev)
        return pdt::make_error("free IOVA", pdt::hex(iova) + "+" + pdt::hex(size), EINVAL, "range is already free (double free?)");
    next = m_free.insert(next, freed);
    if (std::next(next) != m_free.end() && next->last + 1 == std::next(next)->start) {
        next->last = std::next(next)->last;
        m_free.erase(std::next(next));
    }
    if (next != m_free.begin() && std::prev(next)->last + 1 == next->start) {
        std::prev(next)->last = next->last;
        m_free.erase(next);
    }
    return {};
}

}  // namespace vfio
