// DMA memory: host buffers, the IOVA allocator and RAII IOMMU mappings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/physical_memory.hpp"

namespace vfio {

class Device;
class PhysicalPool;

// Direction flags from the device's point of view (VFIO_DMA_MAP_FLAG_READ / _WRITE).
// H2C sources are DeviceRead, C2H sinks DeviceWrite, so wrong-direction DMA faults.
enum class DmaAccess : uint32_t { DeviceRead = 1, DeviceWrite = 2, DeviceReadWrite = 3 };
inline bool allows_read(DmaAccess a) { return (static_cast<uint32_t>(a) & 1u) != 0; }
inline bool allows_write(DmaAccess a) { return (static_cast<uint32_t>(a) & 2u) != 0; }
const char* to_string(DmaAccess access);

// An inclusive IOVA range, as VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE reports them.
struct IovaRange {
    uint64_t start = 0;
    uint64_t last = 0;
    uint64_t size() const { return last - start + 1; }
};

// Best-fit allocator over the usable IOVA ranges of one container. Requests are rounded up to
// the page size; an allocation honours the device's DMA mask (any width: 28 for edu, 32, 64).
class IovaAllocator {
public:
    IovaAllocator() = default;
    IovaAllocator(std::vector<IovaRange> ranges, uint64_t page_size);
    // An allocator that can never allocate: allocate() returns `reason` (e.g. the kernel gave
    // no IOVA ranges, or a no-IOMMU container).
    static IovaAllocator unavailable(pdt::Error reason);
    // An allocator whose ranges are kept by another process (the VFIO manager): allocate()
    // and free() forward the page-rounded request to these functions.
    struct Remote {
        std::function<pdt::Result<uint64_t>(uint64_t size, unsigned dma_mask_bits)> allocate;
        std::function<pdt::Result<void>(uint64_t iova, uint64_t size)> free;
    };
    static IovaAllocator remote(uint64_t page_size, Remote functions);

    // dma_mask_bits: highest address the device can generate is 2^bits - 1.
    pdt::Result<uint64_t> allocate(uint64_t size, unsigned dma_mask_bits = 64);
    pdt::Result<void> free(uint64_t iova, uint64_t size);

    uint64_t page_size() const { return m_page_size; }
    const std::vector<IovaRange>& free_ranges() const { return m_free; }
    uint64_t round_up(uint64_t size) const;

private:
    std::vector<IovaRange> m_free;  // sorted, non-overlapping, merged
    uint64_t m_page_size = 4096;
    std::optional<pdt::Error> m_unavailable;
    std::shared_ptr<Remote> m_remote;
};

// Anonymous: private zeroed pages. HugePages: MAP_HUGETLB with the default huge page size,
// the mapping rounded up to it (needs reserved huge pages: /proc/sys/vm/nr_hugepages).
// SharedMemory: a POSIX shared memory object (visible as /dev/shm/<name> while the buffer
// lives, so another process can map it; survives fork()), unlinked on release.
enum class BufferKind { Anonymous, HugePages, SharedMemory };
const char* to_string(BufferKind kind);

// The default huge page size ("Hugepagesize:" of meminfo_path, normally /proc/meminfo).
pdt::Result<uint64_t> default_huge_page_size(const std::string& meminfo_path = "/proc/meminfo");

// Page-aligned host memory, zeroed on allocation, released on destruction.
class HostBuffer {
public:
    static pdt::Result<HostBuffer> allocate(uint64_t size, BufferKind kind = BufferKind::Anonymous);
    HostBuffer() = default;
    HostBuffer(HostBuffer&& other) noexcept;
    HostBuffer& operator=(HostBuffer&& other) noexcept;
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    ~HostBuffer();

    void* data() const { return m_data; }
    uint64_t size() const { return m_size; }  // the size asked for
    uint64_t mapped_size() const { return m_mapped_size; }  // rounded to the page size used
    BufferKind kind() const { return m_kind; }
    const std::string& shm_name() const { return m_shm_name; }  // SharedMemory: "/pdt_dma_<pid>_<n>"

private:
    static pdt::Result<void> map_huge_pages(HostBuffer& buffer);
    static pdt::Result<void> map_shared_memory(HostBuffer& buffer);
    void release();
    void* m_data = nullptr;
    uint64_t m_size = 0;
    uint64_t m_mapped_size = 0;
    BufferKind m_kind = BufferKind::Anonymous;
    std::string m_shm_name;
};

// A host buffer mapped for DMA at an IOVA of a device's container. Unmaps (checking the
// unmapped size) and returns the IOVA range on destruction.
// On a no-IOMMU device (Device::physical_pool(), physical_memory.hpp) the buffer is instead a
// zeroed, locked, physically contiguous run of huge pages inside the DMA mask, and iova() is its
// bus (physical) address; `access` and `kind` cannot be enforced there and are ignored.
class DmaRegion {
public:
    struct Options {
        DmaAccess access = DmaAccess::DeviceReadWrite;
        BufferKind kind = BufferKind::Anonymous;
        unsigned dma_mask_bits = 64;
    };
    static pdt::Result<DmaRegion> allocate(Device& device, uint64_t size, Options options);
    static pdt::Result<DmaRegion> allocate(Device& device, uint64_t size, DmaAccess access) {
        return allocate(device, size, Options{access, BufferKind::Anonymous, 64});
    }

    DmaRegion() = default;
    DmaRegion(DmaRegion&& other) noexcept;
    DmaRegion& operator=(DmaRegion&& other) noexcept;
    DmaRegion(const DmaRegion&) = delete;
    DmaRegion& operator=(const DmaRegion&) = delete;
    ~DmaRegion();

    // Explicit release that reports errors (the destructor can only log them).
    pdt::Result<void> release();

    uint8_t* data() const { return m_pool ? m_run.virt : static_cast<uint8_t*>(m_buffer.data()); }
    uint64_t size() const { return m_pool ? m_size : m_buffer.size(); }
    bool physical() const { return m_pool != nullptr; }  // no-IOMMU: iova() is a physical address
    uint64_t iova() const { return m_iova; }
    uint64_t mapped_size() const { return m_mapped_size; }
    DmaAccess access() const { return m_access; }

private:
    static pdt::Result<DmaRegion> allocate_physical(std::shared_ptr<PhysicalPool> pool, uint64_t size, Options options);
    Device* m_device = nullptr;
    HostBuffer m_buffer;
    std::shared_ptr<PhysicalPool> m_pool;  // no-IOMMU: the run comes from (and goes back to) it
    PhysicalRun m_run;
    uint64_t m_size = 0;
    uint64_t m_iova = 0;
    uint64_t m_mapped_size = 0;
    DmaAccess m_access = DmaAccess::DeviceReadWrite;
};

}  // namespace vfio
