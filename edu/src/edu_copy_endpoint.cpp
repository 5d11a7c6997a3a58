#include "edu/edu_copy_endpoint.hpp"

#include <optional>
#include <thread>
#include <vector>

#include "streams/vfio_host_buffers.hpp"
#include "vfio_access/dma.hpp"

namespace edu {
namespace {

using streams::Direction;
using streams::HostMemory;

class EduCopyEndpoint final : public streams::VfioCopyEndpoint {
public:
    EduCopyEndpoint(EduDevice edu, const CopyEndpointConfig& config)
        : VfioCopyEndpoint(DMA_MASK_BITS), m_edu(std::move(edu)), m_config(config) {
        m_info.name = config.name.empty() ? m_edu.name() : config.name;
        if (config.report_pci_address)
            m_info.pci_address = m_edu.device().identity().address.to_string();
        m_info.card_memory_bytes = DMA_MAX_END;  // offset + count <= 4095: QEMU 7.2 aborts at byte 4096
        m_info.max_copy_bytes = DMA_MAX_END;
        m_info.queues = 1;
        m_info.max_in_flight = 1;  // edu ignores a command while a transfer runs
    }

    pdt::Result<streams::Ticket> issue(Direction direction, unsigned queue, streams::HostBuffer& host,
                                       uint64_t host_offset, uint64_t card_offset, uint64_t bytes) override;
    pdt::Result<void> wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) override;
    pdt::Result<void> reset_queues() override;

private:
    vfio::Device& dma_device() const override { return m_edu.device(); }
    pdt::Error unusable(const std::string& operation) const {
        return streams::unusable_until_reset(operation, m_info.name, *m_broken);
    }

    EduDevice m_edu;
    CopyEndpointConfig m_config;
    uint64_t m_next_sequence = 0;
    uint64_t m_completed_before = 0;     // every sequence below this completed
    bool m_busy = false;                 // edu is moving copy m_running
    uint64_t m_running = 0;
};

pdt::Result<streams::Ticket> EduCopyEndpoint::issue(Direction direction, unsigned queue, streams::HostBuffer& host,
                                                    uint64_t host_offset, uint64_t card_offset, uint64_t bytes) {
    const std::string operation = std::string("issue ") + to_string(direction) + " copy of " + std::to_string(bytes) +
                                  " bytes at card offset " + std::to_string(card_offset) + " on";
    auto refuse = [&](int code, const std::string& why) { return pdt::make_error(operation, m_info.name, code, why); };
    if (m_broken)
        return unusable(operation);
    if (queue != 0)
        return refuse(EINVAL, "edu has 1 queue, numbered 0 (queue " + std::to_string(queue) + " asked for)");
    const streams::RegisteredBuffer* registered = streams::registered_by(host, this);
    if (host.memory() == HostMemory::Pageable)
        return refuse(EINVAL, "the host buffer is pageable: edu's DMA reaches only IOMMU-mapped memory");
    if (registered == nullptr)
        return refuse(EINVAL, "the host buffer was not allocated by this endpoint (not mapped for edu's DMA)");
    if (bytes == 0)
        return refuse(EINVAL, "a copy moves at least one byte (QEMU 7.2's edu aborts the VM on a 0-byte DMA)");
    if (host_offset > host.size() || bytes > host.size() - host_offset)
        return refuse(ERANGE, "beyond the host buffer of " + std::to_string(host.size()) + " bytes");
    if (card_offset > m_info.card_memory_bytes || bytes > m_info.card_memory_bytes - card_offset)
        return refuse(ERANGE, "beyond edu's card window of " + std::to_string(m_info.card_memory_bytes) +
                                  " bytes (QEMU 7.2's edu aborts the VM on a DMA reaching byte 4096 of its buffer)");
    if (m_busy && !m_edu.dma_busy())
        m_completed_before = m_running + 1, m_busy = false;
    if (m_busy)
        return refuse(EBUSY, "copy " + std::to_string(m_running) + " is still running: edu moves one at a time");
    const DmaRequest request{direction == Direction::H2C ? DmaDirection::ToEdu : DmaDirection::FromEdu,
                             registered->iova() + host_offset, static_cast<uint32_t>(card_offset),
                             static_cast<uint32_t>(bytes)};
    PDT_CHECK(m_edu.start_dma(request, false));
    m_running = m_next_sequence++;
    m_busy = true;
    return streams::Ticket{0, m_running};
}

pdt::Result<void> EduCopyEndpoint::wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) {
    const std::string operation = "wait for copy " + std::to_string(ticket.sequence) + " of";
    if (m_broken)
        return unusable(operation);
    if (ticket.queue != 0 || ticket.sequence >= m_next_sequence)
        return streams::unknown_ticket_error(operation, m_info.name, ticket);
    if (ticket.sequence < m_completed_before)
        return {};
    auto waited = m_edu.wait_dma(Wait::Poll, timeout);
    if (!waited) {
        pdt::Error error = std::move(waited).error();
        error.operation = "wait for copy " + std::to_string(ticket.sequence) + ": " + error.operation;
        m_broken = error;
        return error;
    }
    m_completed_before = ticket.sequence + 1;  // the one copy in flight
    m_busy = false;
    return {};
}

pdt::Result<void> EduCopyEndpoint::reset_queues() {
    // edu cannot abort a transfer: a running one is let end (it does ~100 ms after its command).
    const auto deadline = std::chrono::steady_clock::now() + m_config.drain_timeout;
    while (m_busy && m_edu.dma_busy()) {
        if (std::chrono::steady_clock::now() > deadline)
            return pdt::make_error("reset queues of", m_info.name, ETIMEDOUT,
                                   "copy " + std::to_string(m_running) + " still running after " +
                                       std::to_string(m_config.drain_timeout.count()) +
                                       " ms (edu cannot abort a transfer)");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    m_busy = false;
    m_completed_before = m_next_sequence;
    m_broken.reset();
    return {};
}

}  // namespace

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_copy_endpoint(vfio::Device& device,
                                                                       const CopyEndpointConfig& config) {
    PDT_TRY(device.enable_bus_master());  // without Bus Master, edu's DMA reads zeros
    EduDevice edu = PDT_TRY(EduDevice::attach(device));
    return std::unique_ptr<streams::CopyEndpoint>(std::make_unique<EduCopyEndpoint>(std::move(edu), config));
}

}  // namespace edu
