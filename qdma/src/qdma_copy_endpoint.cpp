// streams::CopyEndpoint over QDMA MM queue pairs (model: dma_bridge's xdma_copy_endpoint).
#include "qdma/qdma_copy_endpoint.hpp"
#include "base/format.hpp"
#include "qdma/qdma_interrupt_ring.hpp"
#include "qdma/qdma_queue.hpp"
#include "streams/vfio_host_buffers.hpp"

#include <algorithm>
#include <cerrno>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace qdma {
namespace {

using streams::Direction;
using streams::HostMemory;
using pdt::hex;

struct Copy {
    uint64_t sequence = 0;
    Direction direction = Direction::H2C;
    uint64_t host_iova = 0, card_address = 0, bytes = 0;
    uint32_t pieces = 0, pieces_done = 0;
    bool submitted = false;
};

struct Pair {
    std::unique_ptr<Queue> queues[2];  // [0] H2C, [1] C2H
    std::deque<Copy> copies;           // issue order; the submitted ones are a prefix of one direction
    uint64_t next_sequence = 0, completed_before = 0;
    Queue& queue(Direction d) { return *queues[d == Direction::H2C ? 0 : 1]; }
};

class QdmaCopyEndpoint final : public streams::VfioCopyEndpoint {
public:
    QdmaCopyEndpoint(std::unique_ptr<Function> function, const CopyEndpointConfig& config)
        : VfioCopyEndpoint(config.dma_mask_bits), m_function(std::move(function)), m_config(config) {}
    pdt::Result<void> open();
    pdt::Result<streams::Ticket> issue(Direction direction, unsigned queue, streams::HostBuffer& host,
                                       uint64_t host_offset, uint64_t card_offset, uint64_t bytes) override;
    pdt::Result<void> wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) override;
    pdt::Result<void> reset_queues() override;

private:
    vfio::Device& dma_device() const override { return m_function->device(); }
    uint32_t pieces(uint64_t bytes) const { return static_cast<uint32_t>((bytes + m_config.piece_bytes - 1) / m_config.piece_bytes); }
    pdt::Result<void> pump(Pair& pair);
    pdt::Result<void> submit(Queue& queue, const Copy& copy);

    pdt::Result<void> sleep_on_interrupt(Pair& pair, std::chrono::steady_clock::time_point deadline);

    std::unique_ptr<Function> m_function;  // destroyed after the queues (declared first)
    std::unique_ptr<InterruptRing> m_ring;  // likewise: the queues' contexts name it
    std::mutex m_ring_mutex;                // queues of several threads share the ring
    CopyEndpointConfig m_config;
    std::vector<Pair> m_pairs;
};

pdt::Result<void> QdmaCopyEndpoint::open() {
    const Capabilities& caps = m_function->capabilities();
    if (caps.h2c_mm_engines == 0 || caps.c2h_mm_engines == 0)
        return pdt::make_error("open QDMA copy endpoint", m_function->name(), ENODEV,
                               "QDMA_GLBL2_CHANNEL_MDMA reports " + std::to_string(caps.h2c_mm_engines) + " H2C_ENG and " +
                                   std::to_string(caps.c2h_mm_engines) + " C2H_ENG: no memory-mapped queue pair");
    PDT_CHECK(m_function->start_mm_channel(QueueDirection::H2C));
    PDT_CHECK(m_function->start_mm_channel(QueueDirection::C2H));
    if (m_config.interrupts)
        m_ring = PDT_TRY(InterruptRing::open(*m_function, m_config.interrupt_ring, m_config.msi_vector));
    m_pairs.resize(m_config.queues);
    for (unsigned q = 0; q < m_config.queues; ++q) {
        for (QueueDirection d : {QueueDirection::H2C, QueueDirection::C2H}) {
            QueueOptions options;
            options.qid = m_config.qid_first + q;
            options.direction = d;
            options.kind = QueueKind::MemoryMapped;
            options.ring_entries = m_config.ring_entries;
            options.dma_mask_bits = m_config.dma_mask_bits;
            options.warn = m_config.warn;
            if (m_ring)
                options.interrupt_ring = m_ring->index();
            m_pairs[q].queues[d == QueueDirection::H2C ? 0 : 1] = PDT_TRY(Queue::open(*m_function, options));
        }
    }
    const uint32_t capacity = m_pairs[0].queues[0]->capacity();
    m_info.name = streams::endpoint_name(m_config.name, m_function->device());
    m_info.pci_address = m_function->device().identity().address.to_string();
    m_info.card_memory_bytes = m_config.card_memory_size;
    m_info.max_copy_bytes = std::min<uint64_t>(m_config.card_memory_size, uint64_t{capacity} * m_config.piece_bytes);
    m_info.queues = m_config.queues;
    m_info.max_in_flight = std::max(1u, std::min<unsigned>(m_config.max_in_flight, capacity));
    // engine_mode and completion stay empty: they spell XDMA's --engine_mode / --completion.
    return {};
}

pdt::Result<streams::Ticket> QdmaCopyEndpoint::issue(Direction direction, unsigned queue, streams::HostBuffer& host,
                                                     uint64_t host_offset, uint64_t card_offset, uint64_t bytes) {
    const streams::RegisteredBuffer* registered = PDT_TRY(
        admit_copy(direction, queue, m_pairs.size(), host, host_offset, card_offset, bytes, "the QDMA queues"));
    Pair& pair = m_pairs[queue];
    if (pair.copies.size() >= m_info.max_in_flight)
        return streams::copy_issue_error(m_info.name, direction, queue, host_offset, card_offset, bytes, EBUSY,
                                         std::to_string(pair.copies.size()) +
                                             " copies already in flight, the most one queue holds");
    const streams::Ticket ticket{queue, pair.next_sequence++};
    pair.copies.push_back(Copy{ticket.sequence, direction, registered->iova() + host_offset,
                               m_config.card_memory_base + card_offset, bytes, pieces(bytes), 0, false});
    PDT_CHECK(pump(pair));
    return ticket;
}

pdt::Result<void> QdmaCopyEndpoint::submit(Queue& queue, const Copy& copy) {
    for (uint64_t done = 0; done < copy.bytes; done += m_config.piece_bytes) {
        const auto length = static_cast<uint32_t>(std::min<uint64_t>(m_config.piece_bytes, copy.bytes - done));
        if (copy.direction == Direction::H2C)
            PDT_CHECK(queue.post_mm(copy.host_iova + done, copy.card_address + done, length));
        else
            PDT_CHECK(queue.post_mm(copy.card_address + done, copy.host_iova + done, length));
    }
    return {};
}

// Credits completed descriptors to the submitted copies in order, then submits what may start.
pdt::Result<void> QdmaCopyEndpoint::pump(Pair& pair) {
    if (!pair.copies.empty() && pair.copies.front().submitted) {
        uint32_t done = PDT_TRY(pair.queue(pair.copies.front().direction).reap());
        while (!pair.copies.empty() && pair.copies.front().submitted) {
            Copy& front = pair.copies.front();
            const uint32_t take = std::min(done, front.pieces - front.pieces_done);
            front.pieces_done += take;
            done -= take;
            if (front.pieces_done < front.pieces)
                break;
            pair.completed_before = front.sequence + 1;
            pair.copies.pop_front();
        }
    }
    bool posted = false;
    Direction direction = Direction::H2C;
    for (Copy& copy : pair.copies) {
        if (copy.submitted)
            continue;
        Queue& queue = pair.queue(copy.direction);
        if (copy.direction != pair.copies.front().direction || queue.capacity() - queue.outstanding() < copy.pieces)
            break;
        PDT_CHECK(submit(queue, copy));
        copy.submitted = posted = true;
        direction = copy.direction;
    }
    if (posted)
        pair.queue(direction).commit();  // one PIDX doorbell for what was posted
    return {};
}

// A copy the card reports failed, like a timeout, leaves the endpoint unusable until reset_queues.
pdt::Result<void> QdmaCopyEndpoint::wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) {
    auto timed_out = [&](Pair& pair) {
        const Copy& oldest = pair.copies.front();
        return streams::oldest_copy_timeout(ticket, m_info.name, timeout, oldest, pair.queue(oldest.direction));
    };
    auto idle = [this](Pair& pair, std::chrono::steady_clock::time_point deadline) -> pdt::Result<void> {
        if (m_ring)
            return sleep_on_interrupt(pair, deadline);
        std::this_thread::yield();
        return {};
    };
    return streams::wait_in_issue_order(m_pairs, ticket, timeout, m_info.name, m_broken,
                                        streams::AfterFailedCopy::Unusable, [this](Pair& pair) { return pump(pair); },
                                        timed_out, idle);
}

// Arms the oldest copy's queue, looks once more (a completion before the arm raises nothing),
// then sleeps on the ring's vector for a short slice: another thread's queue may take the MSI.
pdt::Result<void> QdmaCopyEndpoint::sleep_on_interrupt(Pair& pair, std::chrono::steady_clock::time_point deadline) {
    pair.queue(pair.copies.front().direction).arm();
    const uint64_t before = pair.completed_before;
    PDT_CHECK(pump(pair));
    if (pair.completed_before != before)
        return {};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    std::lock_guard lock(m_ring_mutex);
    PDT_TRY(m_ring->wait(std::clamp(left, std::chrono::milliseconds(0), std::chrono::milliseconds(5))));
    return {};
}

pdt::Result<void> QdmaCopyEndpoint::reset_queues() {
    return streams::reset_issue_queues(m_pairs, m_broken, [](Pair& pair) -> auto& { return pair.queues; },
                                       [](Queue& queue) { return queue.restart(); });
}

}  // namespace

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_copy_endpoint(vfio::Device& device,
                                                                       const CopyEndpointConfig& config) {
    const std::string object = streams::endpoint_name(config.name, device);
    if (config.card_memory_size == 0)
        return pdt::usage_error("open QDMA copy endpoint", object, "the design states no card memory");
    if (config.queues == 0)
        return pdt::usage_error("open QDMA copy endpoint", object, "queues must be 1 or more");
    if (config.piece_bytes == 0 || config.piece_bytes > 0xFFFF)
        return pdt::make_error("open QDMA copy endpoint", object, EINVAL,
                               "piece_bytes " + hex(config.piece_bytes) + ": the MM descriptor's lengthInByte holds 1..64K-1");
    PDT_CHECK(device.enable_bus_master());
    auto function = PDT_TRY(Function::open(device, config.function));
    auto endpoint = std::make_unique<QdmaCopyEndpoint>(std::move(function), config);
    PDT_CHECK(endpoint->open());
    return std::unique_ptr<streams::CopyEndpoint>(std::move(endpoint));
}

}  // namespace qdma
