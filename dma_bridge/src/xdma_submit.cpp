// XDMA engine: submit. Transfers are split into descriptors (pieces), checked against the DMA
// mask and the Alignments register, and written to the credits ring (then credited through
// Descriptor Credits, at once or coalesced) or to STOP-terminated lists.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "dma_bridge/xdma_descriptor.hpp"
#include "dma_bridge/xdma_engine.hpp"
#include "dma_bridge/xdma_registers.hpp"

namespace xdma {

void Engine::write_descriptor(size_t index, const Piece& piece, uint64_t next, unsigned adjacent) {
    const Descriptor d = Descriptor::make(piece.control, piece.length, piece.src, piece.dst, next, adjacent);
    store_descriptor(m_ring.data() + index * sizeof(Descriptor), d);
}

// A descriptor against the DMA mask (the host side within address_bits) and the channel's
// Alignments register (PG195 0x4C): source and destination addresses a multiple of the address
// alignment, the length a multiple of the length granularity. A C2H stream descriptor's source
// is its writeback record, not data.
bool Engine::piece_fits(const Piece& p) const {
    const uint64_t host = m_options.direction == Direction::H2C ? p.src : p.dst;
    if (host > m_host_limit || (p.length > 0 && p.length - 1 > m_host_limit - host))
        return false;
    const uint64_t align = m_info.address_alignment, granularity = m_info.length_granularity;
    return (align <= 1 || (p.src % align == 0 && p.dst % align == 0)) &&
           (granularity <= 1 || p.length % granularity == 0);
}

// The index of the first piece that does not fit; pieces.size() when all do.
size_t Engine::first_misfit(const std::vector<Piece>& pieces) const {
    for (size_t i = 0; i < pieces.size(); ++i)
        if (!piece_fits(pieces[i]))
            return i;
    return pieces.size();
}

// Why piece `i` of a transfer does not fit (piece_fits): the first rule it breaks.
pdt::Error Engine::piece_error(size_t i, const Piece& p) const {
    const uint64_t host = m_options.direction == Direction::H2C ? p.src : p.dst;
    if (host > m_host_limit || (p.length > 0 && p.length - 1 > m_host_limit - host)) {
        char hint[220];
        const std::string why = m_dma_mask_bits < m_options.dma_mask_bits
                                    ? "Alignments register address_bits " + std::to_string(m_info.address_bits)
                                    : std::string("the engine's dma_mask_bits");
        std::snprintf(hint, sizeof hint,
                      "descriptor %zu of the transfer: host address 0x%llx + 0x%x bytes reaches beyond the %u-bit "
                      "DMA mask (%s)",
                      i, static_cast<unsigned long long>(host), p.length, m_dma_mask_bits, why.c_str());
        return pdt::make_error("submit XDMA transfer", name(), EINVAL, hint);
    }
    const uint64_t align = std::max(m_info.address_alignment, 1u), granularity = std::max(m_info.length_granularity, 1u);
    const char* what = "length";
    const char* rule = "length granularity";
    uint64_t value = p.length, requirement = granularity;
    if (p.src % align != 0)
        what = "source address", value = p.src, requirement = align, rule = "address alignment";
    else if (p.dst % align != 0)
        what = "destination address", value = p.dst, requirement = align, rule = "address alignment";
    char hint[200];
    std::snprintf(hint, sizeof hint,
                  "descriptor %zu of the transfer: %s 0x%llx is not a multiple of the channel's %s of %llu bytes "
                  "(Alignments register)",
                  i, what, static_cast<unsigned long long>(value), rule, static_cast<unsigned long long>(requirement));
    return pdt::make_error("submit XDMA transfer", name(), EINVAL, hint);
}

pdt::Result<uint64_t> Engine::submit_memory(uint64_t host_iova, uint64_t card_address, uint64_t length) {
    if (m_info.stream)
        return fail(EINVAL, "submit_memory on an AXI4-Stream channel");
    std::vector<Piece>& pieces = m_scratch;  // reused: no allocation per transfer
    pieces.clear();
    const bool h2c = m_options.direction == Direction::H2C;
    for (uint64_t done = 0; done < length; done += m_options.max_descriptor_length) {
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(length - done, m_options.max_descriptor_length));
        const uint64_t host = host_iova + done, card = card_address + done;
        pieces.push_back(Piece{h2c ? host : card, h2c ? card : host, n, descriptor_control::COMPLETED});
    }
    return submit(pieces, length);
}

pdt::Result<uint64_t> Engine::submit_stream(uint64_t host_iova, uint64_t length, bool end_of_packet) {
    if (!m_info.stream)
        return fail(EINVAL, "submit_stream on a memory-mapped channel");
    std::vector<Piece>& pieces = m_scratch;
    pieces.clear();
    for (uint64_t done = 0; done < length; done += m_options.max_descriptor_length) {
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(length - done, m_options.max_descriptor_length));
        if (m_options.direction == Direction::H2C)
            pieces.push_back(Piece{host_iova + done, 0, n, descriptor_control::COMPLETED});
        else
            pieces.push_back(Piece{0 /* its writeback record, set when placed */, host_iova + done, n,
                                   descriptor_control::COMPLETED});
    }
    if (end_of_packet && m_options.direction == Direction::H2C && !pieces.empty())
        pieces.back().control |= descriptor_control::EOP;
    return submit(pieces, length);
}

pdt::Result<uint64_t> Engine::submit(std::vector<Piece>& pieces, uint64_t length) {
    if (m_stopped)
        PDT_CHECK(initialise());  // the first transfer after stop() re-arms the channel
    if (m_failure)
        return *m_failure;
    const size_t n = pieces.size();
    if (const size_t bad = first_misfit(pieces); bad < n)
        return piece_error(bad, pieces[bad]);
    if (length == 0 || n > free_descriptors())
        return refuse_submit(n, length);
    claim_writes();
    const uint64_t id = m_next_id++;
    if (m_options.mode == RunMode::StopList) {
        for (const Piece& piece : pieces)
            m_waiting_pieces.push_back(piece);
        m_transfers.push_back(Transfer{id, m_started, length, static_cast<uint32_t>(n), true});
        if (m_list_count == 0)
            PDT_CHECK(start_list());
        return id;
    }
    m_transfers.push_back(Transfer{id, m_started, length, static_cast<uint32_t>(n), false});
    write_to_ring(pieces);
    return id;
}

// Why a transfer of `descriptors` pieces is refused: zero length, more descriptors than the
// ring holds, or no room in the ring now (EAGAIN).
pdt::Error Engine::refuse_submit(size_t n, uint64_t length) const {
    if (length == 0)
        return pdt::make_error("submit XDMA transfer", name(), EINVAL, "zero-length transfer");
    if (n > m_options.ring_descriptors)
        return pdt::make_error("submit XDMA transfer", name(), EINVAL,
                               "transfer of " + std::to_string(length) + " bytes needs " + std::to_string(n) +
                                   " descriptors; the ring holds " + std::to_string(m_options.ring_descriptors));
    return pdt::make_error("submit XDMA transfer", name(), EAGAIN,
                           "ring full: " + std::to_string(m_options.ring_descriptors - free_descriptors()) +
                               " descriptors in flight; wait for completions first");
}

// Credits: the pieces into the ring after the last descriptor started, each linked to the next
// slot, then their credits: written to Descriptor Credits now, or held for a coalesced write.
void Engine::write_to_ring(std::vector<Piece>& pieces) {
    const size_t ring = m_options.ring_descriptors;
    size_t index = m_next_slot;
    for (Piece& piece : pieces) {
        const size_t next = index + 1 == ring ? 0 : index + 1;
        if (c2h_stream()) {
            piece.src = writeback_iova(index);
            *stream_writeback(index) = C2hStreamWriteback{};
        }
        write_descriptor(index, piece, descriptor_iova(next), 0);
        index = next;
    }
    m_next_slot = index;
    m_started += pieces.size();
    m_held_credits += static_cast<uint32_t>(pieces.size());
    if (!m_options.coalesce_credits || m_held_credits >= m_options.coalesce_limit)
        flush_credits();
}

void Engine::flush_credits() {
    if (m_held_credits == 0)
        return;
    std::atomic_thread_fence(std::memory_order_release);  // descriptors before the credit write
    set_sgdma(sgdma_reg::DESCRIPTOR_CREDITS, m_held_credits);
    ++m_counters.credits_writes;
    m_counters.descriptors_started += m_held_credits;
    m_held_credits = 0;
}

// Writes every waiting transfer that fits into one STOP-terminated list and starts it. PG195:
// an engine that stopped at a STOP descriptor may be restarted only once Status.busy clears;
// until then the list waits (poll() retries), for options.idle_wait at most.
pdt::Result<void> Engine::start_list() {
    if (m_waiting_pieces.empty())
        return {};
    if (const uint32_t value = read_status(); value & status::busy) {
        const auto now = std::chrono::steady_clock::now();
        if (!m_restart_deadline) {
            m_restart_deadline = now + m_options.idle_wait;
        } else if (now > *m_restart_deadline) {
            m_restart_deadline.reset();
            return fail(ETIMEDOUT, "Status.busy still set " + std::to_string(m_options.idle_wait.count()) +
                                       " ms after the last list completed: the engine cannot be restarted");
        }
        return {};
    }
    m_restart_deadline.reset();
    const size_t k = write_list();
    if (k == 0)
        return {};
    m_list_base = m_started;
    m_list_count = k;
    m_list_stopped_seen = false;
    m_count_seen_at.reset();
    m_started += k;
    m_counters.descriptors_started += k;
    ++m_counters.lists_started;
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(m_ring.data() + m_count_wb_offset)).store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    set_sgdma(sgdma_reg::DESCRIPTOR_LOW_ADDRESS, static_cast<uint32_t>(descriptor_iova(0)));
    set_sgdma(sgdma_reg::DESCRIPTOR_HIGH_ADDRESS, static_cast<uint32_t>(descriptor_iova(0) >> 32));
    set_sgdma(sgdma_reg::DESCRIPTOR_ADJACENT, adjacent_after(0, k));
    if (auto cleared = m_run.clear_run(); !cleared)
        return fail(cleared.error().code, cleared.error().hint);
    return start_engine();  // reads Status clear first: the previous list's stop is logged
}

// The waiting transfers, oldest first, as many as the ring holds, written from descriptor 0 as
// one list: Nxt_adj for contiguous blocks, STOP on the last. Returns its length.
size_t Engine::write_list() {
    size_t k = 0;
    size_t first_waiting = 0;
    while (first_waiting < m_transfers.size() && !m_transfers[first_waiting].waiting)
        ++first_waiting;
    size_t end = first_waiting;
    for (; end < m_transfers.size() && k + m_transfers[end].count <= m_options.ring_descriptors; ++end)
        k += m_transfers[end].count;
    for (size_t i = 0, t = first_waiting; t < end; ++t) {
        Transfer& transfer = m_transfers[t];
        transfer.first = m_started + i;
        transfer.waiting = false;
        for (size_t j = 0; j < transfer.count; ++j, ++i) {
            Piece piece = m_waiting_pieces.front();
            m_waiting_pieces.pop_front();
            if (c2h_stream()) {
                piece.src = writeback_iova(i);
                *stream_writeback(i) = C2hStreamWriteback{};
            }
            const bool last = i + 1 == k;
            if (last)
                piece.control |= descriptor_control::STOP;
            write_descriptor(i, piece, last ? 0 : descriptor_iova(i + 1), last ? 0 : adjacent_after(i + 1, k));
        }
    }
    return k;
}

}  // namespace xdma
