// Host buffers of the copy endpoints that DMA through VFIO (XDMA, QDMA, edu): a registered buffer is
// a vfio::DmaRegion mapped in the endpoint's device container, owned by that endpoint; a
// pageable one is plain memory for the host's own use (a staged copy's user buffer), never
// given to a DMA engine.
#pragma once

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "streams/copy_endpoint.hpp"
#include "vfio_access/device.hpp"
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

// The name of an endpoint over `device` (EndpointInfo::name): the configured one, else the
// device's PCI address.
inline std::string endpoint_name(const std::string& configured, const vfio::Device& device) {
    return configured.empty() ? device.identity().address.to_string() : configured;
}

// CopyEndpoint::allocate for an endpoint `owner` (named `name` in errors) that DMAs through
// `device` with a DMA mask of `dma_mask_bits`.
inline pdt::Result<std::unique_ptr<HostBuffer>> allocate_vfio_buffer(vfio::Device& device, uint64_t bytes,
                                                                     HostMemory memory, unsigned dma_mask_bits,
                                                                     const void* owner, const std::string& name) {
    if (bytes == 0)
        return pdt::make_error("allocate host buffer", name, EINVAL, "size 0");
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

// The base of a CopyEndpoint whose engines DMA through VFIO to the host buffers it registered
// itself (XDMA, QDMA, edu): its EndpointInfo, and allocate() of buffers mapped in dma_device()'s
// container within the DMA mask (m_dma_mask_bits), owned by the endpoint.
class VfioCopyEndpoint : public CopyEndpoint {
public:
    const EndpointInfo& info() const override { return m_info; }
    pdt::Result<std::unique_ptr<HostBuffer>> allocate(uint64_t bytes, HostMemory memory) override {
        // The owner is the whole endpoint, as the derived class's `this` names it to registered_by.
        return allocate_vfio_buffer(dma_device(), bytes, memory, m_dma_mask_bits, dynamic_cast<const void*>(this),
                                    m_info.name);
    }

protected:
    explicit VfioCopyEndpoint(unsigned dma_mask_bits) : m_dma_mask_bits(dma_mask_bits) {}
    virtual vfio::Device& dma_device() const = 0;

    // What issue() on one of `queues` queue pairs refuses first, in this order: the endpoint
    // unusable until reset_queues (m_broken), a queue past the last, what mapped_copy_refusal finds
    // (`engines` names the DMA: "the XDMA engines"). Else the host buffer as registered here.
    pdt::Result<const RegisteredBuffer*> admit_copy(Direction direction, unsigned queue, size_t queues,
                                                    const HostBuffer& host, uint64_t host_offset, uint64_t card_offset,
                                                    uint64_t bytes, const std::string& engines) const;

    EndpointInfo m_info;
    unsigned m_dma_mask_bits;
    std::optional<pdt::Error> m_broken;  // a wait timed out (or a copy failed): unusable until reset_queues
};

// For issue() of an endpoint whose DMA reaches only the buffers it mapped itself (`engines` names
// what moves the data: "the XDMA engines"): why the copy cannot be made (a pageable or another
// endpoint's buffer, range_refusal's reasons, more than one copy may move), or nothing.
inline std::optional<CopyRefusal> mapped_copy_refusal(const EndpointInfo& info, const HostBuffer& host, const void* owner,
                                                      const std::string& engines, uint64_t host_offset,
                                                      uint64_t card_offset, uint64_t bytes) {
    if (host.memory() == HostMemory::Pageable)
        return CopyRefusal{EINVAL, "the host buffer is pageable: " + engines + " reach only IOMMU-mapped memory"};
    if (registered_by(host, owner) == nullptr)
        return CopyRefusal{EINVAL, "the host buffer was not allocated by this endpoint (not mapped for its DMA)"};
    if (auto refusal = range_refusal(info, host, host_offset, card_offset, bytes))
        return refusal;
    if (bytes > info.max_copy_bytes)
        return CopyRefusal{EINVAL, "more than the " + pdt::hex(info.max_copy_bytes) + " bytes one copy may move"};
    return std::nullopt;
}

inline pdt::Result<const RegisteredBuffer*> VfioCopyEndpoint::admit_copy(Direction direction, unsigned queue, size_t queues,
                                                                         const HostBuffer& host, uint64_t host_offset,
                                                                         uint64_t card_offset, uint64_t bytes,
                                                                         const std::string& engines) const {
    auto refuse = [&](int code, const std::string& why) {
        return copy_issue_error(m_info.name, direction, queue, host_offset, card_offset, bytes, code, why);
    };
    const void* owner = dynamic_cast<const void*>(this);
    if (m_broken)
        return refuse(EIO, "the endpoint is unusable until reset_queues after: " + m_broken->message());
    if (queue >= queues)
        return refuse(EINVAL, "the endpoint has " + std::to_string(queues) + " queue(s), numbered from 0");
    if (auto refusal = mapped_copy_refusal(m_info, host, owner, engines, host_offset, card_offset, bytes))
        return refuse(refusal->code, refusal->why);
    return registered_by(host, owner);
}

}  // namespace streams
