// QDMA model engines (PG302): descriptor rings, MM H2C/C2H, ST H2C/C2H with the completion
// ring, the status descriptors, errors that stop a queue, and the lying engine (streams/lie.hpp).
// A ring of N entries (GLBL_RNG_SZ) holds N - 1 descriptors; the PIDX and CIDX run 0..N-2 and
// the status descriptor sits in entry N - 1.
#include <algorithm>
#include <cstring>

#include "model_support.hpp"
#include "qdma_internal.hpp"

namespace sim::qdma_impl {

using namespace qdma_csr;

namespace {

CtxtSel sw_sel(bool c2h) { return c2h ? CtxtSel::SW_C2H : CtxtSel::SW_H2C; }
CtxtSel hw_sel(bool c2h) { return c2h ? CtxtSel::HW_C2H : CtxtSel::HW_H2C; }

uint64_t le64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
uint32_t le32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// raw_write to `impl`: how held-back bytes land.
auto raw_writer(Impl& impl) {
    return [&impl](bool card, uint64_t address, const uint8_t* data, uint64_t n) { impl.raw_write(card, address, data, n); };
}

// Error bits of the status descriptor and the SW context err field.
constexpr unsigned kDmaError = 1u << 0;
constexpr unsigned kDescriptorError = 1u << 1;

}  // namespace

bool Impl::take_fault(Queue& q, QdmaFault fault) { return model_support::take_armed_fault(q.faults, fault); }

// PG302 Writeback Status Structure: err [1:0], cidx [31:16], pidx [47:32], in the descriptor
// ring's last entry.
void Impl::write_ring_status(bool c2h_side, unsigned qid, unsigned err) {
    const Words* w = find(sw_sel(c2h_side), qid);
    if (!w)
        return;
    const SwContext sw(*w);
    const Words* hw = find(hw_sel(c2h_side), qid);
    const uint32_t entries = ring_entries(sw.rng_sz());
    const uint64_t status = (err & 3) | uint64_t(hw ? hw_cidx(*hw) : 0) << 16 | uint64_t(sw.pidx()) << 32;
    const uint64_t address = sw.dsc_base() + uint64_t(entries - 1) * (8u << sw.dsc_sz());
    (void)device.dma_write(address, &status, sizeof status);  // posted: the IOMMU may refuse it
}

// PG302 Completion Status Structure: pidx [15:0], cidx [31:16], color [32], int_state [34:33],
// error [36:35], in the completion ring's last entry.
void Impl::write_cmpt_status(unsigned qid, unsigned err) {
    Words* w = find(CtxtSel::CMPT, qid);
    if (!w)
        return;
    CmptContext cmpt(*w);
    const uint32_t entries = ring_entries(cmpt.qsize_ix());
    if (entries < 2)
        return;
    const uint64_t status = cmpt.pidx() | uint64_t(cmpt.cidx()) << 16 | uint64_t(cmpt.color()) << 32 |
                            uint64_t(cmpt.int_st()) << 33 | uint64_t(err & 3) << 35;
    (void)device.dma_write(cmpt.base() + uint64_t(entries - 1) * cmpt.entry_bytes(), &status, sizeof status);
}

void Impl::stop_queue(bool c2h_side, unsigned qid, unsigned err_bit, uint32_t sts_bit) {
    Words& sw = context(sw_sel(c2h_side), qid);
    sw[1] = with_field(sw[1], 27, 26, field(sw[1], 27, 26) | err_bit);
    const Words* hw = find(hw_sel(c2h_side), qid);
    log_dsc_error(sts_bit, c2h_side, qid, hw ? hw_cidx(*hw) : 0);
    if (SwContext(sw).wbk_en())
        write_ring_status(c2h_side, qid, err_bit);
    ring_interrupt(c2h_side, qid);
}

// ---- the lying engine: every data write to a destination goes through deliver() ----

void Impl::raw_write(bool to_card, uint64_t address, const uint8_t* data, uint64_t n) {
    if (to_card)
        card_memory.write(address - config.card_memory_base, data, n);
    else
        (void)device.dma_write(address, data, n);
}

void Impl::deliver(Queue& q, bool to_card, uint64_t address, const uint8_t* data, uint64_t n) {
    q.tails.deliver(lie, lie_transfers, to_card, address, data, n, raw_writer(*this));
}

void Impl::end_transfer(Queue& q) {
    ++lie_transfers;
    q.tails.end_transfer(lie.late_by);
}

void Impl::land_late(Queue& q) {
    q.tails.land_due(raw_writer(*this));
}

void Impl::cmpt_error(unsigned qid, CmptContext& cmpt, unsigned err, uint32_t c2h_err_bit) {
    cmpt.invalidate_with_error(err);
    c2h_err_stat |= c2h_err_bit;
    glbl_err_stat |= ERR_C2H_ST;
    if (cmpt.en_stat_desc())
        write_cmpt_status(qid, err);
}

// One completion entry in the example design's format ([1] color, [2] error, [3] desc_used,
// [19:4] length) and the CMPT status descriptor. PG302 Handling Exception Events: on a full ring
// the context is invalidated with err 3 and the completion dropped (C2H_ERR_STAT.WRB_QFULL_ERR);
// after a descriptor error the completion goes out marked with the error and the context is
// invalidated with err 2.
void Impl::post_completion(unsigned qid, Queue& q, uint64_t length, bool descriptor_error) {
    Words* words = find(CtxtSel::CMPT, qid);
    if (!words || !CmptContext(*words).valid())
        return;
    CmptContext cmpt(*words);
    const uint32_t entries = ring_entries(cmpt.qsize_ix());
    const uint32_t slots = entries - 1;
    const uint32_t used = (cmpt.pidx() + slots - cmpt.cidx()) % slots;
    if (used >= entries - 2) {
        cmpt_error(qid, cmpt, 3, C2H_ERR_WRB_QFULL);
        return;
    }
    const bool err = take_fault(q, QdmaFault::CompletionError) || descriptor_error;
    std::vector<uint8_t> entry(cmpt.entry_bytes(), 0);
    const uint32_t word = uint32_t(cmpt.color()) << 1 | uint32_t(err) << 2 | 1u << 3 | uint32_t(length & 0xFFFF) << 4;
    std::memcpy(entry.data(), &word, 4);
    (void)device.dma_write(cmpt.base() + uint64_t(cmpt.pidx()) * cmpt.entry_bytes(), entry.data(), entry.size());
    const uint16_t next = static_cast<uint16_t>((cmpt.pidx() + 1) % slots);
    if (next == 0)
        cmpt.set_color(!cmpt.color());
    cmpt.set_pidx(next);
    if (descriptor_error)
        cmpt.invalidate_with_error(2);
    if (cmpt.en_stat_desc() && (cmpt.trig_mode() != 0 || descriptor_error))
        write_cmpt_status(qid, descriptor_error ? 2 : 0);
    cmpt_interrupt(qid);
}

// One descriptor (MM, H2C ST) or one packet (C2H ST) of queue `qid`'s H2C or C2H side.
bool Impl::advance(bool c2h_side, unsigned qid) {
    const Words* swp = find(sw_sel(c2h_side), qid);
    if (!swp)
        return false;
    const SwContext sw(*swp);
    const uint32_t entries = ring_entries(sw.rng_sz());
    // A PIDX at or past the ring's N - 1 descriptors points nowhere: the queue waits for a good
    // one. A bypass queue's descriptors go to the user logic's bypass ports, which the simulated
    // card leaves unconnected: nothing moves.
    if (!sw.qen() || sw.err() != 0 || entries < 2 || sw.pidx() >= entries - 1 || sw.bypass())
        return false;
    Words& hw = context(hw_sel(c2h_side), qid);
    RingState ring{sw.dsc_base(), entries - 1, 8u << sw.dsc_sz(), sw.pidx(),
                   hw_cidx(hw) < entries - 1 ? hw_cidx(hw) : uint16_t(0)};
    Queue& q = (c2h_side ? c2h : h2c)[qid];
    const bool stream_c2h = c2h_side && !sw.is_mm();
    if (ring.pending() == 0 || q.stalled)
        return false;
    if (stream_c2h && loopback[qid].empty())
        return false;  // no packet waits for this queue's buffers
    if (sw.is_mm() && !((c2h_side ? c2h_mm_ctl : h2c_mm_ctl) & MM_CTL_RUN))
        return false;
    if (!c2h_side && !sw.is_mm() && loopback_bytes[qid] >= config.stream_fifo_bytes)
        return false;  // H2C ST: the loopback FIFO is full (tready low)
    if (take_fault(q, QdmaFault::QueueStall)) {
        q.stalled = true;
        return false;
    }
    if (late(q))
        return false;
    land_late(q);
    const bool moved = stream_c2h ? move_c2h_packet(qid, q, ring, hw) : move_descriptor(c2h_side, sw.is_mm(), qid, q, ring, hw);
    if (!moved)
        return false;
    // Writeback and interrupt after each descriptor, or with wbi_chk once caught up with the PIDX.
    const Words* now = find(sw_sel(c2h_side), qid);
    if (now && SwContext(*now).err() == 0 && (!SwContext(*now).wbi_chk() || hw_cidx(hw) == ring.pidx)) {
        if (SwContext(*now).wbk_en())
            write_ring_status(c2h_side, qid, 0);
        if (!stream_c2h)
            ring_interrupt(c2h_side, qid);
    }
    return true;
}

bool Impl::late(Queue& q) {
    if (config.late_engine.count() == 0)
        return false;
    const auto now = std::chrono::steady_clock::now();
    if (!q.late_due)
        q.late_due = now + config.late_engine;
    if (now < *q.late_due)
        return true;
    q.late_due.reset();
    return false;
}

void Impl::finish_late(bool c2h_side, unsigned qid) {
    Queue& q = (c2h_side ? c2h : h2c)[qid];
    if (!q.late_due)
        return;
    q.late_due = std::chrono::steady_clock::time_point::min();
    (void)advance(c2h_side, qid);
}

// C2H ST: the packet at the head of the queue's loopback FIFO fills C2H_BUF_SZ-sized buffers,
// one descriptor each, once the queue has enough of them; then its completion.
bool Impl::move_c2h_packet(unsigned qid, Queue& q, const RingState& ring, Words& hw) {
    Words* pfch = find(CtxtSel::PFTCH, qid);
    Words* cmpt_words = find(CtxtSel::CMPT, qid);
    if (!pfch || !pfch_valid(*pfch) || !cmpt_words || !CmptContext(*cmpt_words).valid())
        return false;
    const auto size_it = plain.find(C2H_BUF_SZ + 4ull * pfch_buf_sz_idx(*pfch));
    const uint64_t buffer = size_it == plain.end() ? 0 : size_it->second;
    if (buffer == 0)
        return false;
    const std::vector<uint8_t>& packet = loopback[qid].front();
    const uint64_t length = packet.size();
    const uint32_t needed = std::max<uint32_t>(1, static_cast<uint32_t>((length + buffer - 1) / buffer));
    if (ring.pending() < needed)
        return false;  // waits for the driver to post buffers
    uint16_t cidx = ring.cidx;
    uint64_t done = 0;
    bool failed = false;
    for (uint32_t i = 0; i < needed; ++i) {
        uint8_t desc[8];
        failed = take_fault(q, QdmaFault::DescriptorError) || !device.dma_read(ring.at(cidx), desc, 8).ok();
        if (failed)
            break;
        const uint64_t n = std::min<uint64_t>(buffer, length - done);
        deliver(q, false, le64(desc), packet.data() + done, n);
        done += n;
        cidx = ring.next(cidx);
    }
    hw[0] = with_field(hw[0], 15, 0, cidx);
    loopback_bytes[qid] -= length;  // delivered, or lost with a descriptor error
    loopback[qid].pop_front();
    if (failed) {
        stop_queue(true, qid, kDescriptorError, DSC_ERR_UR_CA);
        post_completion(qid, q, done, true);  // PG302 C2H Completion With Descriptor Error
        return true;
    }
    end_transfer(q);
    ++q.processed;
    post_completion(qid, q, length, false);
    return true;
}

// MM (either side) or H2C ST: one descriptor; an error stops the queue.
bool Impl::move_descriptor(bool c2h_side, bool is_mm, unsigned qid, Queue& q, const RingState& ring, Words& hw) {
    uint8_t desc[32] = {};
    if (take_fault(q, QdmaFault::DescriptorError) || !device.dma_read(ring.at(ring.cidx), desc, ring.desc_bytes).ok()) {
        stop_queue(c2h_side, qid, kDescriptorError, DSC_ERR_UR_CA);
        return true;
    }
    if (is_mm) {
        // PG302 AXI Memory Mapped Descriptor: src_addr [63:0], length [91:64], dst_addr [191:128].
        const uint64_t src = le64(desc), dst = le64(desc + 16);
        const uint32_t length = le32(desc + 8) & 0x0FFFFFFF;
        if (!CardMemory::contains(config.card_memory_base, config.card_memory_size, c2h_side ? src : dst, length)) {
            stop_queue(c2h_side, qid, kDmaError, DSC_ERR_DMA);
            return true;
        }
        if (mm_scratch.size() < length)
            mm_scratch.resize(length);
        uint8_t* const data = mm_scratch.data();
        if (c2h_side)
            card_memory.read(src - config.card_memory_base, data, length);
        else if (!device.dma_read(src, data, length).ok()) {
            stop_queue(false, qid, kDmaError, DSC_ERR_DMA);
            return true;
        }
        deliver(q, !c2h_side, dst, data, length);
        ++(c2h_side ? c2h_mm_count : h2c_mm_count);
        end_transfer(q);
    } else {
        // PG302 H2C Stream Descriptor: addr [127:64], len [47:32]: one packet.
        const uint64_t src = le64(desc + 8);
        const uint32_t length = le32(desc + 4) & 0xFFFF;
        std::vector<uint8_t> data(length);
        if (!device.dma_read(src, data.data(), length).ok()) {
            stop_queue(false, qid, kDmaError, DSC_ERR_DMA);
            return true;
        }
        loopback_bytes[qid] += length;
        loopback[qid].push_back(std::move(data));  // the simulated card's loopback
    }
    hw[0] = with_field(hw[0], 15, 0, ring.next(ring.cidx));
    ++q.processed;
    return true;
}

size_t Impl::step_locked() {
    size_t progressed = 0;
    std::vector<std::pair<bool, unsigned>> queues;
    for (const auto& [k, words] : contexts) {
        const auto sel = static_cast<CtxtSel>(k >> 16);
        if ((sel == CtxtSel::SW_H2C || sel == CtxtSel::SW_C2H) && SwContext(words).qen())
            queues.emplace_back(sel == CtxtSel::SW_C2H, k & 0xFFFF);
    }
    for (const auto& [c2h_side, qid] : queues)
        if (advance(c2h_side, qid))
            ++progressed;
    return progressed;
}

}  // namespace sim::qdma_impl
