// QDMA model interrupts (PG302 Interrupts): direct interrupts of the descriptor queues and the
// completion rings through SimDevice::raise_msi, and the indirect ones through an interrupt
// aggregation ring (Interrupt Context, sel 0x8).
#include <cerrno>

#include "qdma_internal.hpp"

namespace sim::qdma_impl {

using namespace qdma_csr;

namespace {

// An interrupt on vector `vec`: directly, or with int_aggr through the aggregation ring vec
// names, the entry carrying the stat_desc that stat_desc() gives.
template <class StatDesc>
void deliver_queue_interrupt(Impl& impl, unsigned vec, bool int_aggr, unsigned qid, bool c2h_side,
                             StatDesc&& stat_desc) {
    if (!int_aggr)
        impl.device.raise_msi(vec);
    else
        impl.aggregate(vec, qid, c2h_side, stat_desc());
}

}  // namespace

// An armed descriptor queue with irq_en [W1 21] (irq_arm [W0 16], set by the PIDX doorbell's
// irq_en [16]) interrupts and disarms: directly on vec [W4 10:0], or with int_aggr [W4 11]
// through the aggregation ring vec names.
void Impl::ring_interrupt(bool c2h_side, unsigned qid) {
    Words* w = find(c2h_side ? CtxtSel::SW_C2H : CtxtSel::SW_H2C, qid);
    if (!w || !field((*w)[1], 21, 21) || !field((*w)[0], 16, 16))
        return;
    (*w)[0] = with_field((*w)[0], 16, 16, 0);
    // stat_desc of a descriptor queue: pidx [15:0], cidx [31:16], error [36:35].
    deliver_queue_interrupt(*this, field((*w)[4], 10, 0), field((*w)[4], 11, 11), qid, c2h_side, [&] {
        const Words* hw = find(c2h_side ? CtxtSel::HW_C2H : CtxtSel::HW_H2C, qid);
        return field((*w)[0], 15, 0) | uint64_t(hw ? hw_cidx(*hw) : 0) << 16 | uint64_t(field((*w)[1], 27, 26)) << 35;
    });
}

// A completion entry with en_int [W0 1] interrupts when int_st [W0 26:25] is 0 (ISR: armed),
// then waits in 1 (TRIG) until a CMPT_CIDX update: directly on vec [W4 14:4], or with int_aggr
// [W4 15] through the aggregation ring vec names.
void Impl::cmpt_interrupt(unsigned qid) {
    Words* w = find(CtxtSel::CMPT, qid);
    if (!w || !field((*w)[0], 1, 1) || field((*w)[0], 26, 25) != 0)
        return;
    (*w)[0] = with_field((*w)[0], 26, 25, 1);
    // stat_desc of a completion ring: its status descriptor's fields.
    deliver_queue_interrupt(*this, field((*w)[4], 14, 4), field((*w)[4], 15, 15), qid, true, [&] {
        CmptContext cmpt(*w);
        return cmpt.pidx() | uint64_t(cmpt.cidx()) << 16 | uint64_t(cmpt.color()) << 32 |
               uint64_t(cmpt.int_st()) << 33 | uint64_t(cmpt.err()) << 35;
    });
}

// Interrupt Context (sel 0x8, by ring): valid [0], vec [11:1], int_st [13], color [14],
// baddr_4k (address [63:12]) W0 [31:15] + W1 + W2 [2:0], page_size W2 [5:3] ((n + 1) * 4 KiB),
// pidx W2 [17:6]. Entry (8 B): stat_desc [36:0], int_type [38] (1 C2H), qid [62:39],
// coal_color [63]; the color flips at each wrap. The ring's vector fires when int_st is
// WAIT_TRIGGER (0), which then turns ISR_RUNNING (1) until an INT_CIDX update.
void Impl::aggregate(unsigned ring, unsigned qid, bool c2h_side, uint64_t stat_desc) {
    Words* w = find(CtxtSel::INT_COAL, ring);
    if (!w || !field((*w)[0], 0, 0))
        return;  // no valid aggregation ring: the interrupt is lost
    Words& c = *w;
    const uint64_t base = (uint64_t(field(c[2], 2, 0)) << 49 | uint64_t(c[1]) << 17 | field(c[0], 31, 15)) << 12;
    const uint32_t entries = (field(c[2], 5, 3) + 1) * 4096 / 8;
    const uint32_t pidx = field(c[2], 17, 6) % entries;
    const bool color = field(c[0], 14, 14);
    const uint64_t entry = (stat_desc & ((1ull << 37) - 1)) | uint64_t(c2h_side) << 38 |
                           uint64_t(qid & 0xFFFFFF) << 39 | uint64_t(color) << 63;
    (void)device.dma_write(base + uint64_t(pidx) * 8, &entry, sizeof entry);
    const uint32_t next = (pidx + 1) % entries;
    c[2] = with_field(c[2], 17, 6, next);
    if (next == 0)
        c[0] = with_field(c[0], 14, 14, !color);
    if (!field(c[0], 13, 13)) {
        c[0] = with_field(c[0], 13, 13, 1);
        device.raise_msi(field(c[0], 11, 1));
    }
}

// INT_CIDX (ring_idx [23:16], sw_cidx [15:0]): the driver has read the ring up to sw_cidx; the
// ring waits for a trigger again, and fires at once when entries are still unread.
void Impl::interrupt_cidx(uint32_t value) {
    Words* w = find(CtxtSel::INT_COAL, field(value, 23, 16));
    if (!w || !field((*w)[0], 0, 0))
        return;
    const uint32_t entries = (field((*w)[2], 5, 3) + 1) * 4096 / 8;
    if (field(value, 15, 0) % entries != field((*w)[2], 17, 6)) {
        (*w)[0] = with_field((*w)[0], 13, 13, 1);
        device.raise_msi(field((*w)[0], 11, 1));
    } else {
        (*w)[0] = with_field((*w)[0], 13, 13, 0);
    }
}

}  // namespace sim::qdma_impl

namespace sim {

pdt::Result<void> QdmaModel::request_user_interrupt(unsigned vector) {
    std::lock_guard lock(m_impl->mutex);
    // usr_irq_out_fail: the function has no such vector enabled (the eventfd a message lands on).
    if (!m_impl->device.irq_eventfd(vector).ok())
        return pdt::make_error("request user interrupt vector " + std::to_string(vector), "QDMA model", EINVAL,
                               "usr_irq_out_fail: function " + std::to_string(m_impl->config.function) +
                                   " has not enabled that MSI-X vector");
    if (m_impl->user_irq_lie != UserIrqLie::Drops)
        m_impl->device.raise_msi(vector);
    if (m_impl->user_irq_lie == UserIrqLie::Doubles)
        m_impl->device.raise_msi(vector);
    return {};
}

void QdmaModel::set_user_irq_lie(UserIrqLie lie) {
    std::lock_guard lock(m_impl->mutex);
    m_impl->user_irq_lie = lie;
}

}  // namespace sim
