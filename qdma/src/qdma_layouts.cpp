// Context structures of PG302 ("QDMA Context Structures"): field by field, bit ranges as the
// tables print them.
#include "qdma/qdma_registers.hpp"

#include <concepts>
#include <type_traits>

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

// Each context structure's fields, listed once for encode and decode: field(lsb, width, member)
// for the member at bits [lsb + width - 1 : lsb]; field(lsb, width, member, shift) for an address
// stored without its low `shift` bits.
template <class Context, class Of>
concept ContextOf = std::same_as<std::remove_const_t<Context>, Of>;

// Software Descriptor Context Structure (0x0 C2H and 0x1 H2C).
template <class C, class Field>
    requires ContextOf<C, SoftwareContext>
void each_field(C& c, Field&& field) {
    field(0, 16, c.pidx);
    field(16, 1, c.irq_arm);
    field(17, 12, c.fnc_id);
    field(32, 1, c.qen);
    field(33, 1, c.fcrd_en);
    field(34, 1, c.wbi_chk);
    field(35, 1, c.wbi_intvl_en);
    field(36, 1, c.at);
    field(37, 4, c.fetch_max);
    field(44, 4, c.rngsz_idx);
    field(48, 2, c.dsc_sz);
    field(50, 1, c.bypass);
    field(51, 1, c.mm_chn);
    field(52, 1, c.wbk_en);
    field(53, 1, c.irq_en);
    field(54, 3, c.port_id);
    field(57, 1, c.irq_no_last);
    field(58, 2, c.err);
    field(60, 1, c.err_wb_sent);
    field(61, 1, c.irq_req);
    field(62, 1, c.mrkr_dis);
    field(63, 1, c.is_mm);
    field(64, 64, c.dsc_base);
    field(128, 11, c.vec);
    field(139, 1, c.int_aggr);
}

// Completion Context Structure (0x6).
template <class C, class Field>
    requires ContextOf<C, CompletionContext>
void each_field(C& c, Field&& field) {
    field(0, 1, c.en_stat_desc);
    field(1, 1, c.en_int);
    field(2, 3, c.trig_mode);
    field(5, 12, c.fnc_id);
    field(17, 4, c.counter_idx);
    field(21, 4, c.timer_idx);
    field(25, 2, c.int_st);
    field(27, 1, c.color);
    field(28, 4, c.qsize_idx);
    field(32, 58, c.baddr, 6);
    field(90, 2, c.desc_size);
    field(92, 16, c.pidx);
    field(108, 16, c.cidx);
    field(124, 1, c.valid);
    field(125, 2, c.err);
    field(127, 1, c.user_trig_pend);
    field(128, 1, c.timer_running);
    field(129, 1, c.full_upd);
    field(130, 1, c.ovf_chk_dis);
    field(131, 1, c.at);
    field(132, 11, c.vec);
    field(143, 1, c.int_aggr);
    field(146, 1, c.dir_c2h);
}

// C2H Prefetch Context Structure (0x7).
template <class C, class Field>
    requires ContextOf<C, PrefetchContext>
void each_field(C& c, Field&& field) {
    field(0, 1, c.bypass);
    field(1, 4, c.bufsz_idx);
    field(5, 3, c.port_id);
    field(26, 1, c.err);
    field(27, 1, c.pfch_en);
    field(28, 1, c.pfch);
    field(29, 16, c.sw_crdt);
    field(45, 1, c.valid);
}

// Function Map Context Structure (0xC).
template <class C, class Field>
    requires ContextOf<C, FmapContext>
void each_field(C& c, Field&& field) {
    field(0, 11, c.qid_base);
    field(32, 12, c.qid_max);
}

// Interrupt Context Structure (0x8).
template <class C, class Field>
    requires ContextOf<C, InterruptContext>
void each_field(C& c, Field&& field) {
    field(0, 1, c.valid);
    field(1, 11, c.vec);
    field(13, 1, c.int_st);
    field(14, 1, c.color);
    field(15, 52, c.baddr_4k, 12);
    field(67, 3, c.page_size);
    field(70, 12, c.pidx);
    field(82, 1, c.at);
    field(114, 12, c.func);
}

template <class Context>
ContextWords encode_fields(const Context& c) {
    ContextWords w{};
    each_field(c, [&w](unsigned lsb, unsigned width, const auto& value, unsigned shift = 0) {
        set_bits(w, lsb, width, static_cast<uint64_t>(value) >> shift);
    });
    return w;
}

template <class Context>
Context decode_fields(const ContextWords& w) {
    Context c;
    each_field(c, [&w](unsigned lsb, unsigned width, auto& value, unsigned shift = 0) {
        value = static_cast<std::remove_reference_t<decltype(value)>>(get_bits(w, lsb, width) << shift);
    });
    return c;
}

}  // namespace

ContextWords SoftwareContext::encode() const { return encode_fields(*this); }
SoftwareContext SoftwareContext::decode(const ContextWords& w) { return decode_fields<SoftwareContext>(w); }

ContextWords CompletionContext::encode() const { return encode_fields(*this); }
CompletionContext CompletionContext::decode(const ContextWords& w) { return decode_fields<CompletionContext>(w); }

ContextWords PrefetchContext::encode() const { return encode_fields(*this); }
PrefetchContext PrefetchContext::decode(const ContextWords& w) { return decode_fields<PrefetchContext>(w); }

ContextWords FmapContext::encode() const { return encode_fields(*this); }
FmapContext FmapContext::decode(const ContextWords& w) { return decode_fields<FmapContext>(w); }

ContextWords InterruptContext::encode() const { return encode_fields(*this); }
InterruptContext InterruptContext::decode(const ContextWords& w) { return decode_fields<InterruptContext>(w); }

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

}  // namespace qdma
