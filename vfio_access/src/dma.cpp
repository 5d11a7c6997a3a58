#include "vfio_access/dma.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <utility>

#include "vfio_access/device.hpp"

namespace vfio {

const char* to_string(DmaAccess access) {
    switch (access) {
    case DmaAccess::DeviceRead: return "device-read";
    case DmaAccess::DeviceWrite: return "device-write";
    case DmaAccess::DeviceReadWrite: return "device-read-write";
    }
    return "?";
}

const char* to_string(BufferKind kind) {
    switch (kind) {
    case BufferKind::Anonymous: return "anonymous";
    case BufferKind::HugePages: return "huge pages";
    case BufferKind::SharedMemory: return "shared memory";
    }
    return "?";
}

Result<HostBuffer> HostBuffer::allocate(uint64_t size, BufferKind kind) {
    if (size == 0)
        return make_error("allocate host buffer", "0 bytes", EINVAL, "size must be non-zero");
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    HostBuffer buffer;
    buffer.m_kind = kind;
    buffer.m_size = size;
    buffer.m_mapped_size = (size + page - 1) / page * page;
    if (kind != BufferKind::Anonymous)
        return make_error("allocate host buffer", to_string(kind), ENOTSUP, "not implemented yet");
    void* p = mmap(nullptr, buffer.m_mapped_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return errno_error("mmap", std::to_string(buffer.m_mapped_size) + " bytes");
    buffer.m_data = p;  // anonymous pages are zero-filled
    return buffer;
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept { *this = std::move(other); }

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_mapped_size = std::exchange(other.m_mapped_size, 0);
        m_kind = other.m_kind;
        m_shm_name = std::move(other.m_shm_name);
    }
    return *this;
}

HostBuffer::~HostBuffer() { release(); }

void HostBuffer::release() {
    if (m_data != nullptr)
        munmap(m_data, m_mapped_size);
    m_data = nullptr;
}

Result<DmaRegion> DmaRegion::allocate(Device& device, uint64_t size, Options options) {
    HostBuffer buffer = PDT_TRY(HostBuffer::allocate(size, options.kind));
    IovaAllocator& allocator = device.iova_allocator();
    const uint64_t mapped = allocator.round_up(buffer.mapped_size());
    const uint64_t iova = PDT_TRY(allocator.allocate(mapped, options.dma_mask_bits));
    auto mapped_ok = device.dma_map(iova, buffer.data(), mapped, options.access);
    if (!mapped_ok) {
        (void)allocator.free(iova, mapped);
        return std::move(mapped_ok).error();
    }
    DmaRegion region;
    region.m_device = &device;
    region.m_buffer = std::move(buffer);
    region.m_iova = iova;
    region.m_mapped_size = mapped;
    region.m_access = options.access;
    return region;
}

DmaRegion::DmaRegion(DmaRegion&& other) noexcept { *this = std::move(other); }

DmaRegion& DmaRegion::operator=(DmaRegion&& other) noexcept {
    if (this != &other) {
        (void)release();
        m_device = std::exchange(other.m_device, nullptr);
        m_buffer = std::move(other.m_buffer);
        m_iova = other.m_iova;
        m_mapped_size = other.m_mapped_size;
        m_access = other.m_access;
    }
    return *this;
}

DmaRegion::~DmaRegion() {
    auto released = release();
    if (!released)
        std::fprintf(stderr, "Warning: %s\n", released.error().message().c_str());
}

Result<void> DmaRegion::release() {
    if (m_device == nullptr)
        return {};
    Device* device = std::exchange(m_device, nullptr);
    const uint64_t unmapped = PDT_TRY(device->dma_unmap(m_iova, m_mapped_size));
    if (unmapped != m_mapped_size) {
        char object[64];
        std::snprintf(object, sizeof object, "IOVA 0x%llx", static_cast<unsigned long long>(m_iova));
        return make_error("VFIO_IOMMU_UNMAP_DMA", object, EIO,
                          "unmapped " + std::to_string(unmapped) + " of " + std::to_string(m_mapped_size) +
                              " bytes; was the mapping made by another process?");
    }
    PDT_CHECK(device->iova_allocator().free(m_iova, m_mapped_size));
    m_buffer = HostBuffer();
    return {};
}

}  // namespace vfio
