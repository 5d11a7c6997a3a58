// Host buffers of the copy endpoints that DMA through VFIO (XDMA, edu): a registered buffer is
// a vfio::DmaRegion mapped in the endpoint's device container, owned by that endpoint; a
// pageable one is plain memory for the host's own use (a staged copy's user buffer), never
// given to a DMA engine.
#pragma once

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "streams/copy_endpoint.hpp"
#include "vfio_access/dma.hpp"

namespace streams {

class RegisteredBuffer final : public HostBuffer {
public:
    RegisteredBuffer(vfio::DmaRegion region, HostMemory memory, const void* owner)
        : m_region(std::move(region)), m_memory(memory), m_owner(owner) {}
    uint8_t* data() override { return m_region.data(); }
    uint64_t size() const override { return m_region.size(); }
    HostMemory memory() const override { return m_memory; }
    uint64_t iova() const { return m_region.iova(); }
    const void* owner() const { return m_owner; }

private:
    vfio::DmaRegion m_region;
    HostMemory m_memory;
    const void* m_owner;
};

class PageableBuffer final : public HostBuffer {
public:
    explicit PageableBuffer(uint64_t bytes) : m_data(bytes) {}
    uint8_t* data() override { return m_data.data(); }
    uint64_t size() const override { return m_data.size(); }
    HostMemory memory() const override { return HostMemory::Pageable; }

private:
    std::vector<uint8_t> m_data;
};

// CopyEndpoint::allocate for an endpoint `owner` (named `name` in errors) that DMAs through
// `device` with a DMA mask of `dma_mask_bits`.
inline vfio::Result<std::unique_ptr<HostBuffer>> allocate_vfio_buffer(vfio::Device& device, uint64_t bytes,
                                                                      HostMemory memory, unsigned dma_mask_bits,
                                                                      const void* owner, const std::string& name) {
    if (bytes == 0)
        return vfio::make_error("allocate host buffer", name, EINVAL, "size 0");
    if (memory == HostMemory::Pageable)
        return std::unique_ptr<HostBuffer>(std::make_unique<PageableBuffer>(bytes));
    vfio::DmaRegion::Options options;
    options.access = vfio::DmaAccess::DeviceReadWrite;
    options.kind = memory == HostMemory::RegisteredHugePages ? vfio::BufferKind::HugePages : vfio::BufferKind::Anonymous;
    options.dma_mask_bits = dma_mask_bits;
    auto region = PDT_TRY(vfio::DmaRegion::allocate(device, bytes, options));
    return std::unique_ptr<HostBuffer>(std::make_unique<RegisteredBuffer>(std::move(region), memory, owner));
}

// The registered buffer of `owner` that `host` is, or nullptr (pageable, or another endpoint's).
inline const RegisteredBuffer* registered_by(const HostBuffer& host, const void* owner) {
    const auto* registered = dynamic_cast<const RegisteredBuffer*>(&host);
    return registered != nullptr && registered->owner() == owner ? registered : nullptr;
}

}  // namespace streams
