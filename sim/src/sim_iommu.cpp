#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "sim/sim_device.hpp"

namespace sim {
namespace {

std::string iova_text(uint64_t iova, uint64_t length) {
    char text[64];
    std::snprintf(text, sizeof text, "IOVA 0x%llx length 0x%llx", static_cast<unsigned long long>(iova),
                  static_cast<unsigned long long>(length));
    return text;
}

std::atomic<uint64_t> g_released_accesses{0};
thread_local unsigned t_lying_writes = 0;

// At exit: a process whose simulated devices wrote or read released IOVAs fails, whatever its
// verdict said (a static destructor, so it runs after main returned).
struct ReleasedAccessCheck {
    ~ReleasedAccessCheck() {
        if (const uint64_t n = g_released_accesses.load()) {
            std::fprintf(stderr, "sim IOMMU: %llu DMA access(es) to IOVAs after the driver unmapped them: a buffer "
                                 "was released while an engine could still use it; failing the process\n",
                         static_cast<unsigned long long>(n));
            std::fflush(nullptr);
            std::_Exit(1);
        }
    }
} g_released_access_check;

}  // namespace

uint64_t SimIommu::released_iova_accesses() { return g_released_accesses.load(); }
void SimIommu::forgive_released_iova_accesses() { g_released_accesses.store(0); }
SimIommu::LyingWriteScope::LyingWriteScope() { ++t_lying_writes; }
SimIommu::LyingWriteScope::~LyingWriteScope() { --t_lying_writes; }

bool SimIommu::released(uint64_t iova) const {
    auto it = m_released.upper_bound(iova);
    return it != m_released.begin() && std::prev(it)->second > iova;
}

pdt::Result<void> SimIommu::map(uint64_t iova, void* vaddr, uint64_t size, vfio::DmaAccess access) {
    std::unique_lock lock(m_mutex);
    auto next = m_mappings.lower_bound(iova);
    const bool overlaps_next = next != m_mappings.end() && next->first < iova + size;
    const bool overlaps_prev = next != m_mappings.begin() && std::prev(next)->first + std::prev(next)->second.size > iova;
    if (size == 0 || overlaps_next || overlaps_prev)
        return pdt::make_error("VFIO_IOMMU_MAP_DMA", iova_text(iova, size), EEXIST, "overlaps an existing mapping");
    m_mappings.emplace(iova, Mapping{static_cast<uint8_t*>(vaddr), size, access});
    return {};
}

uint64_t SimIommu::unmap(uint64_t iova, uint64_t size) {
    std::unique_lock lock(m_mutex);
    uint64_t unmapped = 0;
    for (auto it = m_mappings.lower_bound(iova); it != m_mappings.end() && it->first + it->second.size <= iova + size;) {
        uint64_t start = it->first, end = it->first + it->second.size;
        unmapped += it->second.size;
        it = m_mappings.erase(it);
        // Remembered, merged with the released ranges it touches.
        auto r = m_released.upper_bound(start);
        if (r != m_released.begin() && std::prev(r)->second >= start)
            --r;
        while (r != m_released.end() && r->first <= end) {
            start = std::min(start, r->first);
            end = std::max(end, r->second);
            r = m_released.erase(r);
        }
        m_released.emplace(start, end);
    }
    return unmapped;
}

pdt::Result<void> SimIommu::fault(uint64_t iova, uint64_t length, bool write, const char* reason) {
    if (std::strcmp(reason, "unmapped") == 0 && released(iova)) {
        reason = "released";
        const bool lie = t_lying_writes > 0;
        if (!lie)
            g_released_accesses.fetch_add(1);
        std::fprintf(stderr, "sim IOMMU: DMA %s of %s after the driver unmapped it%s\n", write ? "write" : "read",
                     iova_text(iova, length).c_str(), lie ? " (a lying engine's late write)" : "");
    }
    {
        std::lock_guard lock(m_fault_mutex);
        m_faults.push_back(DmaFault{iova, length, write, reason});
    }
    return pdt::make_error(write ? "DMA write" : "DMA read", iova_text(iova, length), EFAULT,
                           std::string("IOMMU fault: ") + reason);
}

namespace {

// Walks [iova, iova + length) over the mappings, handing each mapped piece to
// copy(host address, offset in the transfer, bytes). The first byte that is unmapped, or mapped
// without the access the transfer needs, stops the walk: its IOVA and why are returned.
template <typename Mappings, typename Copy>
std::optional<std::pair<uint64_t, const char*>> walk(const Mappings& mappings, uint64_t iova, uint64_t length,
                                                     bool write, Copy copy) {
    for (uint64_t done = 0; done < length;) {
        const uint64_t at = iova + done;
        auto it = mappings.upper_bound(at);
        if (it == mappings.begin() || std::prev(it)->first + std::prev(it)->second.size <= at)
            return std::pair{at, "unmapped"};
        const auto& [base, m] = *std::prev(it);
        if (write ? !vfio::allows_write(m.access) : !vfio::allows_read(m.access))
            return std::pair{at, write ? "not writable by the device" : "not readable by the device"};
        const uint64_t chunk = std::min(length - done, base + m.size - at);
        copy(m.vaddr + (at - base), done, chunk);
        done += chunk;
    }
    return std::nullopt;
}

}  // namespace

pdt::Result<void> SimIommu::read(uint64_t iova, void* dst, uint64_t length) {
    std::shared_lock lock(m_mutex);
    uint8_t* out = static_cast<uint8_t*>(dst);
    const auto stop = walk(m_mappings, iova, length, false,
                           [&](const uint8_t* host, uint64_t done, uint64_t n) { std::memcpy(out + done, host, n); });
    if (stop)
        return fault(stop->first, iova + length - stop->first, false, stop->second);
    return {};
}

pdt::Result<void> SimIommu::write(uint64_t iova, const void* src, uint64_t length) {
    std::shared_lock lock(m_mutex);
    const uint8_t* in = static_cast<const uint8_t*>(src);
    const auto stop = walk(m_mappings, iova, length, true,
                           [&](uint8_t* host, uint64_t done, uint64_t n) { std::memcpy(host, in + done, n); });
    if (stop)
        return fault(stop->first, iova + length - stop->first, true, stop->second);
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
