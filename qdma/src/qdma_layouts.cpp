// Context structures of PG302 ("QDMA Context Structures"): field by field, bit ranges as the
// tables print them.
#include "qdma/qdma_registers.hpp"

namespace qdma {

const char* to_string(CtxtOp op) {
    switch (op) {
    case CtxtOp::QDMA_CTXT_CLR: return "QDMA_CTXT_CLR";
    case CtxtOp::QDMA_CTXT_WR: return "QDMA_CTXT_WR";
    case CtxtOp::QDMA_CTXT_RD: return "QDMA_CTXT_RD";
    case CtxtOp::QDMA_CTXT_INV: return "QDMA_CTXT_INV";
    }
    return "?";
}

const char* to_string(CtxtSel sel) {
    switch (sel) {
    case CtxtSel::QDMA_CTXT_SELC_DEC_SW_C2H: return "QDMA_CTXT_SELC_DEC_SW_C2H";
    case CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C: return "QDMA_CTXT_SELC_DEC_SW_H2C";
    case CtxtSel::QDMA_CTXT_SELC_DEC_HW_C2H: return "QDMA_CTXT_SELC_DEC_HW_C2H";
    case CtxtSel::QDMA_CTXT_SELC_DEC_HW_H2C: return "QDMA_CTXT_SELC_DEC_HW_H2C";
    case CtxtSel::QDMA_CTXT_SELC_DEC_CR_C2H: return "QDMA_CTXT_SELC_DEC_CR_C2H";
    case CtxtSel::QDMA_CTXT_SELC_DEC_CR_H2C: return "QDMA_CTXT_SELC_DEC_CR_H2C";
    case CtxtSel::QDMA_CTXT_SELC_WRB: return "QDMA_CTXT_SELC_WRB";
    case CtxtSel::QDMA_CTXT_SELC_PFTCH: return "QDMA_CTXT_SELC_PFTCH";
    case CtxtSel::QDMA_CTXT_SELC_INT_COAL: return "QDMA_CTXT_SELC_INT_COAL";
    case CtxtSel::QDMA_CTXT_SELC_TIMER: return "QDMA_CTXT_SELC_TIMER";
    case CtxtSel::QDMA_CTXT_SELC_FMAP: return "QDMA_CTXT_SELC_FMAP";
    }
    return "?";
}

uint64_t get_bits(const ContextWords& words, unsigned lsb, unsigned width) {
    uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i) {
        const unsigned bit = lsb + i;
        value |= uint64_t{(words[bit / 32] >> (bit % 32)) & 1u} << i;
    }
    return value;
}

void set_bits(ContextWords& words, unsigned lsb, unsigned width, uint64_t value) {
    for (unsigned i = 0; i < width; ++i) {
        const unsigned bit = lsb + i;
        const uint32_t mask = 1u << (bit % 32);
        words[bit / 32] = ((value >> i) & 1) ? (words[bit / 32] | mask) : (words[bit / 32] & ~mask);
    }
}

namespace {
bool flag(const ContextWords& w, unsigned bit) { return get_bits(w, bit, 1) != 0; }
}  // namespace

// Software Descriptor Context Structure (0x0 C2H and 0x1 H2C).
ContextWords SoftwareContext::encode() const {
    ContextWords w{};
    set_bits(w, 0, 16, pidx);
    set_bits(w, 16, 1, irq_arm);
    set_bits(w, 17, 12, fnc_id);
    set_bits(w, 32, 1, qen);
    set_bits(w, 33, 1, fcrd_en);
    set_bits(w, 34, 1, wbi_chk);
    set_bits(w, 35, 1, wbi_intvl_en);
    set_bits(w, 36, 1, at);
    set_bits(w, 37, 4, fetch_max);
    set_bits(w, 44, 4, rngsz_idx);
    set_bits(w, 48, 2, static_cast<uint32_t>(dsc_sz));
    set_bits(w, 50, 1, bypass);
    set_bits(w, 51, 1, mm_chn);
    set_bits(w, 52, 1, wbk_en);
    set_bits(w, 53, 1, irq_en);
    set_bits(w, 54, 3, port_id);
    set_bits(w, 57, 1, irq_no_last);
    set_bits(w, 58, 2, err);
    set_bits(w, 60, 1, err_wb_sent);
    set_bits(w, 61, 1, irq_req);
    set_bits(w, 62, 1, mrkr_dis);
    set_bits(w, 63, 1, is_mm);
    set_bits(w, 64, 64, dsc_base);
    set_bits(w, 128, 11, vec);
    set_bits(w, 139, 1, int_aggr);
    return w;
}

SoftwareContext SoftwareContext::decode(const ContextWords& w) {
    SoftwareContext c;
    c.pidx = static_cast<uint16_t>(get_bits(w, 0, 16));
    c.irq_arm = flag(w, 16);
    c.fnc_id = static_cast<uint16_t>(get_bits(w, 17, 12));
    c.qen = flag(w, 32);
    c.fcrd_en = flag(w, 33);
    c.wbi_chk = flag(w, 34);
    c.wbi_intvl_en = flag(w, 35);
    c.at = flag(w, 36);
    c.fetch_max = static_cast<uint8_t>(get_bits(w, 37, 4));
    c.rngsz_idx = static_cast<uint8_t>(get_bits(w, 44, 4));
    c.dsc_sz = static_cast<DscSz>(get_bits(w, 48, 2));
    c.bypass = flag(w, 50);
    c.mm_chn = flag(w, 51);
    c.wbk_en = flag(w, 52);
    c.irq_en = flag(w, 53);
    c.port_id = static_cast<uint8_t>(get_bits(w, 54, 3));
    c.irq_no_last = flag(w, 57);
    c.err = static_cast<uint8_t>(get_bits(w, 58, 2));
    c.err_wb_sent = flag(w, 60);
    c.irq_req = flag(w, 61);
    c.mrkr_dis = flag(w, 62);
    c.is_mm = flag(w, 63);
    c.dsc_base = get_bits(w, 64, 64);
    c.vec = static_cast<uint16_t>(get_bits(w, 128, 11));
    c.int_aggr = flag(w, 139);
    return c;
}

// Hardware Descriptor Context Structure (0x2 C2H and 0x3 H2C).
HardwareContext HardwareContext::decode(const ContextWords& w) {
    HardwareContext c;
    c.cidx = static_cast<uint16_t>(get_bits(w, 0, 16));
    c.crd_use = static_cast<uint16_t>(get_bits(w, 16, 16));
    c.dsc_pnd = flag(w, 40);
    c.idl_stp_b = flag(w, 41);
    c.evt_pnd = flag(w, 42);
    c.fetch_pnd = static_cast<uint8_t>(get_bits(w, 43, 4));
    return c;
}

// Completion Context Structure (0x6).
ContextWords CompletionContext::encode() const {
    ContextWords w{};
    set_bits(w, 0, 1, en_stat_desc);
    set_bits(w, 1, 1, en_int);
    set_bits(w, 2, 3, static_cast<uint32_t>(trig_mode));
    set_bits(w, 5, 12, fnc_id);
    set_bits(w, 17, 4, counter_idx);
    set_bits(w, 21, 4, timer_idx);
    set_bits(w, 25, 2, int_st);
    set_bits(w, 27, 1, color);
    set_bits(w, 28, 4, qsize_idx);
    set_bits(w, 32, 58, baddr >> 6);
    set_bits(w, 90, 2, desc_size);
    set_bits(w, 92, 16, pidx);
    set_bits(w, 108, 16, cidx);
    set_bits(w, 124, 1, valid);
    set_bits(w, 125, 2, err);
    set_bits(w, 127, 1, user_trig_pend);
    set_bits(w, 128, 1, timer_running);
    set_bits(w, 129, 1, full_upd);
    set_bits(w, 130, 1, ovf_chk_dis);
    set_bits(w, 131, 1, at);
    set_bits(w, 132, 11, vec);
    set_bits(w, 143, 1, int_aggr);
    set_bits(w, 146, 1, dir_c2h);
    return w;
}

CompletionContext CompletionContext::decode(const ContextWords& w) {
    CompletionContext c;
    c.en_stat_desc = flag(w, 0);
    c.en_int = flag(w, 1);
    c.trig_mode = static_cast<TriggerMode>(get_bits(w, 2, 3));
    c.fnc_id = static_cast<uint16_t>(get_bits(w, 5, 12));
    c.counter_idx = static_cast<uint8_t>(get_bits(w, 17, 4));
    c.timer_idx = static_cast<uint8_t>(get_bits(w, 21, 4));
    c.int_st = static_cast<uint8_t>(get_bits(w, 25, 2));
    c.color = flag(w, 27);
    c.qsize_idx = static_cast<uint8_t>(get_bits(w, 28, 4));
    c.baddr = get_bits(w, 32, 58) << 6;
    c.desc_size = static_cast<uint8_t>(get_bits(w, 90, 2));
    c.pidx = static_cast<uint16_t>(get_bits(w, 92, 16));
    c.cidx = static_cast<uint16_t>(get_bits(w, 108, 16));
    c.valid = flag(w, 124);
    c.err = static_cast<uint8_t>(get_bits(w, 125, 2));
    c.user_trig_pend = flag(w, 127);
    c.timer_running = flag(w, 128);
    c.full_upd = flag(w, 129);
    c.ovf_chk_dis = flag(w, 130);
    c.at = flag(w, 131);
    c.vec = static_cast<uint16_t>(get_bits(w, 132, 11));
    c.int_aggr = flag(w, 143);
    c.dir_c2h = flag(w, 146);
    return c;
}

// C2H Prefetch Context Structure (0x7).
ContextWords PrefetchContext::encode() const {
    ContextWords w{};
    set_bits(w, 0, 1, bypass);
    set_bits(w, 1, 4, bufsz_idx);
    set_bits(w, 5, 3, port_id);
    set_bits(w, 26, 1, err);
    set_bits(w, 27, 1, pfch_en);
    set_bits(w, 28, 1, pfch);
    set_bits(w, 29, 16, sw_crdt);
    set_bits(w, 45, 1, valid);
    return w;
}

PrefetchContext PrefetchContext::decode(const ContextWords& w) {
    PrefetchContext c;
    c.bypass = flag(w, 0);
    c.bufsz_idx = static_cast<uint8_t>(get_bits(w, 1, 4));
    c.port_id = static_cast<uint8_t>(get_bits(w, 5, 3));
    c.err = flag(w, 26);
    c.pfch_en = flag(w, 27);
    c.pfch = flag(w, 28);
    c.sw_crdt = static_cast<uint16_t>(get_bits(w, 29, 16));
    c.valid = flag(w, 45);
    return c;
}

// Function Map Context Structure (0xC).
ContextWords FmapContext::encode() const {
    ContextWords w{};
    set_bits(w, 0, 11, qid_base);
    set_bits(w, 32, 12, qid_max);
    return w;
}

FmapContext FmapContext::decode(const ContextWords& w) {
    return {static_cast<uint16_t>(get_bits(w, 0, 11)), static_cast<uint16_t>(get_bits(w, 32, 12))};
}

// Interrupt Context Structure (0x8).
ContextWords InterruptContext::encode() const {
    ContextWords w{};
    set_bits(w, 0, 1, valid);
    set_bits(w, 1, 11, vec);
    set_bits(w, 13, 1, int_st);
    set_bits(w, 14, 1, color);
    set_bits(w, 15, 52, baddr_4k >> 12);
    set_bits(w, 67, 3, page_size);
    set_bits(w, 70, 12, pidx);
    set_bits(w, 82, 1, at);
    set_bits(w, 114, 12, func);
    return w;
}

InterruptContext InterruptContext::decode(const ContextWords& w) {
    InterruptContext c;
    c.valid = flag(w, 0);
    c.vec = static_cast<uint16_t>(get_bits(w, 1, 11));
    c.int_st = flag(w, 13);
    c.color = flag(w, 14);
    c.baddr_4k = get_bits(w, 15, 52) << 12;
    c.page_size = static_cast<uint8_t>(get_bits(w, 67, 3));
    c.pidx = static_cast<uint16_t>(get_bits(w, 70, 12));
    c.at = flag(w, 82);
    c.func = static_cast<uint16_t>(get_bits(w, 114, 12));
    return c;
}

}  // namespace qdma
