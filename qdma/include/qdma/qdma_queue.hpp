// One QDMA queue of one direction (PG302): its descriptor ring in host memory with the status
// descriptor in its last entry, its contexts, its PIDX doorbell; for a C2H stream queue also
// its completion ring (color bit) and its CMPT_CIDX doorbell.
//
// Set-up follows PG302 "Queue Setup" in order: clear the software, hardware and credit
// descriptor contexts, set up the software context (ring base, rngsz_idx, dsc_sz, is_mm,
// wbk_en, wbi_chk, qen, fnc_id); for a C2H stream queue then clear the prefetch and completion
// contexts, set up the completion context, give the initial CMPT CIDX update, and set up the
// prefetch context. A queue found enabled (qen) by an earlier process is reported through
// options.warn, naming the qid and function, and invalidated before it is set up again.
// Tear-down (destructor, restart) follows PG302 "Queue Teardown": C2H stream queues clear
// their prefetch and completion contexts first; every queue then invalidates (qen cleared) and
// clears its software context; C2H stream queues last invalidate their timer context.
//
// Ring arithmetic: a ring of N entries (one of QDMA_GLBL_RNG_SZ_1..16) holds N - 1 descriptors
// and the status descriptor; PIDX and CIDX count modulo N - 1, and at most N - 2 descriptors
// are outstanding so that a full ring is not read as empty.
//
// DMA safety (vfio_access/dma_fence.hpp): from the doorbell that hands the queue descriptors
// until none is outstanding (the status descriptor's cidx, or the completion entries, say so) or
// the tear-down's context invalidation completed, the queue holds a claim on its device's DMA
// fence; a queue destroyed without either abandons it, and the device's buffers stay mapped.
//
// Completion is polled: the status descriptor's cidx (descriptor queues), the completion
// entries' color bit (C2H stream). A cidx that moves backwards or past what was posted, or an
// err field set, latches an error: every later call returns it until restart().
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qdma/qdma_function.hpp"
#include "vfio_access/dma.hpp"
#include "vfio_access/dma_fence.hpp"

namespace qdma {

struct QueueOptions {
    uint32_t qid = 0;  // the function's queue (logical qid)
    QueueDirection direction = QueueDirection::H2C;
    QueueKind kind = QueueKind::MemoryMapped;
    uint32_t ring_entries = 65;         // a QDMA_GLBL_RNG_SZ value: the descriptor ring
    uint32_t completion_entries = 65;   // C2H stream: a QDMA_GLBL_RNG_SZ value, the completion ring
    uint32_t c2h_buffer_bytes = 4096;   // C2H stream: a QDMA_C2H_BUF_SZ value
    unsigned dma_mask_bits = 64;
    // Interrupts through this interrupt aggregation ring (qdma_interrupt_ring.hpp): the software
    // context gets irq_en, int_aggr and vec = the ring; arm() asks for the next one.
    std::optional<unsigned> interrupt_ring;
    // Where a queue found enabled by an earlier process is reported (default: stderr).
    std::function<void(const std::string&)> warn;
};

// A context the set-up wrote (QDMA_CTXT_WR): its selector and the eight data words.
struct WrittenContext {
    uint32_t sel = 0;
    std::array<uint32_t, 8> words{};
};

// A packet a C2H stream queue received: its completion entry.
struct Packet {
    uint32_t length = 0;   // bytes (the completion entry's length)
    uint32_t buffers = 0;  // C2H descriptors (buffers) it filled, in ring order
};

class Queue {
public:
    static pdt::Result<std::unique_ptr<Queue>> open(Function& function, const QueueOptions& options);
    ~Queue();
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;

    std::string name() const;  // "0000:15:00.0 QDMA function 0 H2C MM queue 3"
    const QueueOptions& options() const { return m_options; }
    uint32_t capacity() const { return m_slots - 1; }  // descriptors outstanding at most
    uint32_t outstanding() const { return m_outstanding; }
    uint32_t hw_qid() const { return m_hw_qid; }
    // What the last set-up wrote, in its order (the software context; a C2H stream queue's
    // completion and prefetch contexts).
    const std::vector<WrittenContext>& written_contexts() const { return m_written; }
    RingView descriptor_ring() const;
    RingView completion_ring() const;  // C2H stream queues; entries 0 otherwise

    // Writes one descriptor at PIDX (the doorbell waits for commit()). EINVAL for a length the
    // descriptor cannot hold (0, or past 64K-1: lengthInByte / len), EBUSY when the ring is full.
    pdt::Result<void> post_mm(uint64_t src_addr, uint64_t dst_addr, uint32_t length);
    pdt::Result<void> post_h2c_stream(uint64_t addr, uint32_t length);
    pdt::Result<void> post_c2h_stream(uint64_t addr);
    // Writes PIDX to the queue's QDMA_DMAP_SEL_H2C_DSC_PIDX / C2H_DSC_PIDX (with irq_arm when
    // the queue interrupts).
    void commit();
    // Writes the PIDX doorbell again with irq_arm: the next writeback also interrupts.
    void arm();

    // Descriptor queues (not C2H stream): descriptors completed since the last call, from the
    // status descriptor's cidx.
    pdt::Result<uint32_t> reap();
    // C2H stream: the next packet if its completion entry has the expected color; its buffers
    // are released and CMPT_CIDX updated.
    pdt::Result<std::optional<Packet>> next_packet();

    // Tears the queue down and sets it up again, empty (the latched error cleared).
    pdt::Result<void> restart();
    // The contexts and status as read now, for timeout messages.
    std::string describe_state();

private:
    Queue(Function& function, const QueueOptions& options) : m_function(function), m_options(options) {}
    pdt::Result<void> allocate();
    pdt::Result<void> set_up();
    pdt::Result<void> set_up_c2h_stream(uint16_t fnc_id);
    pdt::Result<void> tear_down();
    pdt::Result<void> write_context(uint32_t sel, const std::array<uint32_t, 8>& words);
    pdt::Error fail(const std::string& why);
    // What every post checks, in order: a failed queue stays failed; a descriptor length outside
    // 1..max_length (where the descriptor has one; `bound` names the field) is refused; so is a
    // full ring. Then write_descriptor puts the descriptor at the PIDX (commit() rings).
    pdt::Result<void> check_post(std::optional<uint32_t> length, uint64_t max_length, const char* bound) const;
    void write_descriptor(const void* descriptor, size_t bytes);
    uint64_t status_raw() const;
    uint32_t sel_sw() const;

    Function& m_function;
    QueueOptions m_options;
    uint32_t m_hw_qid = 0;
    unsigned m_rngsz_idx = 0, m_cmpt_idx = 0, m_bufsz_idx = 0;
    uint32_t m_slots = 0;      // N - 1 descriptors
    uint32_t m_desc_bytes = 0;
    uint32_t m_pidx = 0, m_cidx = 0, m_outstanding = 0;
    uint32_t m_cmpt_slots = 0, m_cmpt_cidx = 0;
    bool m_color = true;
    bool m_set_up = false;
    std::optional<pdt::Error> m_error;
    std::vector<WrittenContext> m_written;
    vfio::DmaRegion m_ring, m_cmpt_ring;
    vfio::DmaFence::Claim m_claim;  // while descriptors are outstanding (destroyed before the rings)
};

}  // namespace qdma
