#include "vfio_manager/iova_book.hpp"
#include "base/format.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>

namespace vfio_manager {
namespace {

using pdt::hex;  // "0x1f" (base/format.hpp)

}  // namespace

void IovaBook::attach(vfio::IovaAllocator* allocator) {
    m_allocator = allocator;
    m_records.clear();
}

pdt::Result<uint64_t> IovaBook::allocate(uint32_t client, uint64_t size, unsigned dma_mask_bits) {
    if (m_allocator == nullptr)
        return pdt::make_error("allocate IOVA", hex(size) + " bytes", ENODEV, "the container is not open");
    const uint64_t rounded = m_allocator->round_up(size);
    const uint64_t iova = PDT_TRY(m_allocator->allocate(rounded, dma_mask_bits));
    m_records.push_back({iova, rounded, client});
    return iova;
}

pdt::Result<void> IovaBook::free(uint32_t client, uint64_t iova, uint64_t size) {
    const std::string object = "IOVA " + hex(iova) + " size " + hex(size);
    if (m_allocator == nullptr)
        return pdt::make_error("free IOVA", object, ENODEV, "the container is not open");
    const uint64_t rounded = m_allocator->round_up(size);
    auto it = std::find_if(m_records.begin(), m_records.end(),
                           [&](const IovaRecord& r) { return r.iova == iova && r.size == rounded; });
    if (it == m_records.end())
        return pdt::make_error("free IOVA", object, ENOENT, "no such allocation in this container");
    if (it->owner != client)
        return pdt::make_error("free IOVA", object, EPERM, "the range belongs to another client");
    PDT_CHECK(m_allocator->free(iova, rounded));
    m_records.erase(it);
    return {};
}

size_t IovaBook::quarantine(uint32_t client) {
    size_t n = 0;
    for (IovaRecord& r : m_records)
        if (r.owner == client && client != k_quarantined) {
            r.owner = k_quarantined;
            ++n;
        }
    return n;
}

size_t IovaBook::held_by(uint32_t client) const {
    return static_cast<size_t>(std::count_if(m_records.begin(), m_records.end(),
                                             [&](const IovaRecord& r) { return r.owner == client; }));
}

}  // namespace vfio_manager
