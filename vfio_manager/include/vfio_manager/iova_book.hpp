// The manager's record of who holds which IOVA range of one container, on top of the
// container's allocator (which honours each request's DMA mask).
//
// Clients map and unmap DMA themselves through the container fd; the type1 IOMMU only lets the
// process that made a mapping unmap it. So the ranges of a client that left are quarantined:
// still allocated (its mappings may still be in the IOMMU, a device may still be writing
// them), never handed out again until the manager recycles the container (closes the groups,
// which drops every mapping) and attaches a fresh allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vfio_access/dma.hpp"

namespace vfio_manager {

inline constexpr uint32_t k_quarantined = 0;  // owner of a range whose client left; clients count from 1

struct IovaRecord {
    uint64_t iova = 0;
    uint64_t size = 0;
    uint32_t owner = 0;
};

class IovaBook {
public:
    // A fresh container's allocator (not owned; must outlive its use): forgets every record.
    void attach(vfio::IovaAllocator* allocator);
    pdt::Result<uint64_t> allocate(uint32_t client, uint64_t size, unsigned dma_mask_bits);
    // Only the exact range, and only by the client it was allocated to.
    pdt::Result<void> free(uint32_t client, uint64_t iova, uint64_t size);
    // The client left: its ranges become quarantined. Returns how many.
    size_t quarantine(uint32_t client);

    size_t held_by(uint32_t client) const;
    size_t quarantined() const { return held_by(k_quarantined); }
    size_t regions() const { return m_records.size(); }
    const std::vector<IovaRecord>& records() const { return m_records; }

private:
    vfio::IovaAllocator* m_allocator = nullptr;
    std::vector<IovaRecord> m_records;
};

}  // namespace vfio_manager
