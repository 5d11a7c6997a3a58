#include "stream_tools/qdma_card_dma.hpp"

#include <algorithm>
#include <cerrno>
#include <thread>

#include "base/format.hpp"
#include "stream_tools/stream_tools.hpp"

namespace stream_tools {

using streams::Direction;

// One direction of a run: the next piece to post (chunk, offset in it) and the completions
// credited so far (whole chunks, and pieces of the chunk after them), in ring order.
struct QdmaCardDma::Lane {
    qdma::Queue& queue;
    const vfio::DmaRegion* host;
    Direction direction;
    size_t next_chunk = 0;
    uint64_t next_offset = 0;
    size_t done = 0;
    size_t done_pieces = 0;
};

pdt::Result<std::unique_ptr<QdmaCardDma>> QdmaCardDma::open(vfio::Device& device, const Options& options) {
    if (options.piece_bytes == 0 || options.piece_bytes > 0xFFFF)
        return pdt::make_error("open QDMA card-memory DMA", device.identity().address.to_string(), EINVAL,
                               "piece_bytes " + pdt::hex(options.piece_bytes) +
                                   ": the MM descriptor's lengthInByte holds 1..64K-1 (PG302)");
    qdma::FunctionOptions function;
    function.bar = options.bar;
    function.function = options.function;
    function.qid_base = options.qid_base;
    function.queues = options.function_queues;
    std::unique_ptr<QdmaCardDma> dma(new QdmaCardDma(options));
    dma->m_function = PDT_TRY(qdma::Function::open(device, function));
    const qdma::Capabilities& caps = dma->m_function->capabilities();
    if (caps.h2c_mm_engines == 0 || caps.c2h_mm_engines == 0)
        return pdt::make_error("open QDMA card-memory DMA", dma->m_function->name(), ENODEV,
                               "QDMA_GLBL2_CHANNEL_MDMA reports " + std::to_string(caps.h2c_mm_engines) + " H2C_ENG and " +
                                   std::to_string(caps.c2h_mm_engines) + " C2H_ENG: no memory-mapped queue pair");
    PDT_CHECK(dma->m_function->start_mm_channel(qdma::QueueDirection::H2C));
    PDT_CHECK(dma->m_function->start_mm_channel(qdma::QueueDirection::C2H));
    qdma::QueueOptions queue;
    if (options.interrupts) {
        dma->m_ring = PDT_TRY(qdma::InterruptRing::open(*dma->m_function, options.interrupt_ring, options.msi_vector));
        queue.interrupt_ring = dma->m_ring->index();
    }
    queue.kind = qdma::QueueKind::MemoryMapped;
    queue.ring_entries = options.ring_entries;
    queue.dma_mask_bits = options.dma_mask_bits;
    queue.qid = options.h2c_queue;
    queue.direction = qdma::QueueDirection::H2C;
    dma->m_h2c = PDT_TRY(qdma::Queue::open(*dma->m_function, queue));
    queue.qid = options.c2h_queue;
    queue.direction = qdma::QueueDirection::C2H;
    dma->m_c2h = PDT_TRY(qdma::Queue::open(*dma->m_function, queue));
    return dma;
}

std::string QdmaCardDma::name(Direction direction) const {
    return std::string(streams::to_string(direction)) + " queue " +
           std::to_string(direction == Direction::H2C ? m_options.h2c_queue : m_options.c2h_queue);
}

pdt::Result<void> QdmaCardDma::stop() {
    auto h2c = m_h2c->restart();
    auto c2h = m_c2h->restart();
    PDT_CHECK(std::move(h2c));
    return c2h;
}

// Posts the pieces of chunks [next, limit) while the ring has room; one doorbell for them.
// H2C descriptors read the host and write the card; C2H ones the other way round.
pdt::Result<void> QdmaCardDma::post(Lane& lane, const std::vector<Chunk>& chunks, size_t limit) {
    bool posted = false;
    while (lane.next_chunk < limit && lane.queue.outstanding() < lane.queue.capacity()) {
        const Chunk& c = chunks[lane.next_chunk];
        const auto length = static_cast<uint32_t>(std::min<uint64_t>(m_options.piece_bytes, c.length - lane.next_offset));
        const uint64_t host = lane.host->iova() + c.host_offset + lane.next_offset;
        const uint64_t card = c.card_address + lane.next_offset;
        if (lane.direction == Direction::H2C)
            PDT_CHECK(lane.queue.post_mm(host, card, length));
        else
            PDT_CHECK(lane.queue.post_mm(card, host, length));
        posted = true;
        lane.next_offset += length;
        if (lane.next_offset >= c.length) {
            ++lane.next_chunk;
            lane.next_offset = 0;
        }
    }
    if (posted)
        lane.queue.commit();
    return {};
}

// Credits the descriptors completed since the last look (status descriptor cidx) to the chunks
// in order; true when any completed.
pdt::Result<bool> QdmaCardDma::reap(Lane& lane, const std::vector<Chunk>& chunks) {
    uint32_t completed = PDT_TRY(lane.queue.reap());
    const bool progress = completed > 0;
    while (completed > 0 && lane.done < chunks.size()) {
        const size_t need = descriptors_for(lane.direction, chunks[lane.done].length) - lane.done_pieces;
        const size_t take = std::min<size_t>(completed, need);
        lane.done_pieces += take;
        completed -= static_cast<uint32_t>(take);
        if (take == need) {
            ++lane.done;
            lane.done_pieces = 0;
        }
    }
    return progress;
}

// Interrupt completion: arms the queues with descriptors outstanding, looks once more (a
// completion before the arm raises nothing), then sleeps on the ring's vector for a short slice
// so that the deadline is seen. True when a descriptor completed.
pdt::Result<bool> QdmaCardDma::sleep_on_interrupt(Lane& h2c, Lane& c2h, const std::vector<Chunk>& chunks) {
    for (Lane* lane : {&h2c, &c2h})
        if (lane->queue.outstanding() > 0)
            lane->queue.arm();
    bool progress = false;
    for (Lane* lane : {&h2c, &c2h})
        if (lane->done < chunks.size() && lane->queue.outstanding() > 0)
            progress = PDT_TRY(reap(*lane, chunks)) || progress;
    if (progress)
        return true;
    PDT_TRY(m_ring->wait(std::chrono::milliseconds(2)));
    for (Lane* lane : {&h2c, &c2h})
        if (lane->done < chunks.size() && lane->queue.outstanding() > 0)
            progress = PDT_TRY(reap(*lane, chunks)) || progress;
    return progress;
}

// H2C keeps its ring as full as it allows; a C2H chunk is posted only once the H2C chunk that
// wrote it completed (when both directions take part). No completion for the transfer
// timeout fails, naming the stuck queue and its contexts as read.
pdt::Result<void> QdmaCardDma::run(const vfio::DmaRegion* h2c_host, const vfio::DmaRegion* c2h_host,
                                   const std::vector<Chunk>& chunks) {
    const size_t n = chunks.size();
    Lane h2c{*m_h2c, h2c_host, Direction::H2C}, c2h{*m_c2h, c2h_host, Direction::C2H};
    if (!h2c_host)
        h2c.done = h2c.next_chunk = n;
    if (!c2h_host)
        c2h.done = c2h.next_chunk = n;
    auto last_progress = std::chrono::steady_clock::now();
    while (h2c.done < n || c2h.done < n) {
        if (stop_requested())
            return stopped_early(m_h2c->name());
        if (h2c.done < n)
            PDT_CHECK(post(h2c, chunks, n));
        if (c2h.done < n)
            PDT_CHECK(post(c2h, chunks, h2c.done));
        bool progress = false;
        if (h2c.done < n)
            progress = PDT_TRY(reap(h2c, chunks));
        if (c2h.done < n && c2h.queue.outstanding() > 0)
            progress = PDT_TRY(reap(c2h, chunks)) || progress;
        if (!progress && m_ring)
            progress = PDT_TRY(sleep_on_interrupt(h2c, c2h, chunks));
        const auto now = std::chrono::steady_clock::now();
        if (progress) {
            last_progress = now;
        } else if (now - last_progress > m_options.timeout) {
            qdma::Queue& stuck = h2c.done < n ? *m_h2c : *m_c2h;
            return pdt::make_error("memory-mapped DMA", stuck.name(), ETIMEDOUT,
                                   "no descriptor completed within the transfer timeout of " +
                                       std::to_string(m_options.timeout.count()) + " ms: " + stuck.describe_state());
        } else if (!m_ring) {
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }
    return {};
}

}  // namespace stream_tools
