#include <cstdio>
#include <cstring>

#include "sim/sim_device.hpp"

namespace sim {
namespace {

std::string iova_text(uint64_t iova, uint64_t length) {
    char text[64];
    std::snprintf(text, sizeof text, "IOVA 0x%llx length 0x%llx", static_cast<unsigned long long>(iova),
                  static_cast<unsigned long long>(length));
    return text;
}

}  // namespace

vfio::Result<void> SimIommu::map(uint64_t iova, void* vaddr, uint64_t size, vfio::DmaAccess access) {
    std::unique_lock lock(m_mutex);
    auto next = m_mappings.lower_bound(iova);
    const bool overlaps_next = next != m_mappings.end() && next->first < iova + size;
    const bool overlaps_prev = next != m_mappings.begin() && std::prev(next)->first + std::prev(next)->second.size > iova;
    if (size == 0 || overlaps_next || overlaps_prev)
        return vfio::make_error("VFIO_IOMMU_MAP_DMA", iova_text(iova, size), EEXIST, "overlaps an existing mapping");
    m_mappings.emplace(iova, Mapping{static_cast<uint8_t*>(vaddr), size, access});
    return {};
}

uint64_t SimIommu::unmap(uint64_t iova, uint64_t size) {
    std::unique_lock lock(m_mutex);
    uint64_t unmapped = 0;
    for (auto it = m_mappings.lower_bound(iova); it != m_mappings.end() && it->first + it->second.size <= iova + size;) {
        unmapped += it->second.size;
        it = m_mappings.erase(it);
    }
    return unmapped;
}

vfio::Result<void> SimIommu::fault(uint64_t iova, uint64_t length, bool write, const char* reason) {
    {
        std::lock_guard lock(m_fault_mutex);
        m_faults.push_back(DmaFault{iova, length, write, reason});
    }
    return vfio::make_error(write ? "DMA write" : "DMA read", iova_text(iova, length), EFAULT,
                            std::string("IOMMU fault: ") + reason);
}

vfio::Result<void> SimIommu::read(uint64_t iova, void* dst, uint64_t length) {
    std::shared_lock lock(m_mutex);
    uint8_t* out = static_cast<uint8_t*>(dst);
    uint64_t done = 0;
    while (done < length) {
        const uint64_t at = iova + done;
        auto it = m_mappings.upper_bound(at);
        if (it == m_mappings.begin() || std::prev(it)->first + std::prev(it)->second.size <= at)
            return fault(at, length - done, false, "unmapped");
        const auto& [base, m] = *std::prev(it);
        if (!vfio::allows_read(m.access))
            return fault(at, length - done, false, "not readable by the device");
        const uint64_t chunk = std::min(length - done, base + m.size - at);
        std::memcpy(out + done, m.vaddr + (at - base), chunk);
        done += chunk;
    }
    return {};
}

vfio::Result<void> SimIommu::write(uint64_t iova, const void* src, uint64_t length) {
    std::shared_lock lock(m_mutex);
    const uint8_t* in = static_cast<const uint8_t*>(src);
    uint64_t done = 0;
    while (done < length) {
        const uint64_t at = iova + done;
        auto it = m_mappings.upper_bound(at);
        if (it == m_mappings.begin() || std::prev(it)->first + std::prev(it)->second.size <= at)
            return fault(at, length - done, true, "unmapped");
        const auto& [base, m] = *std::prev(it);
        if (!vfio::allows_write(m.access))
            return fault(at, length - done, true, "not writable by the device");
        const uint64_t chunk = std::min(length - done, base + m.size - at);
        std::memcpy(m.vaddr + (at - base), in + done, chunk);
        done += chunk;
    }
    return {};
}

std::vector<DmaFault> SimIommu::faults() const {
    std::lock_guard lock(m_fault_mutex);
    return m_faults;
}

size_t SimIommu::mapping_count() const {
    std::shared_lock lock(m_mutex);
    return m_mappings.size();
}

}  // namespace sim
