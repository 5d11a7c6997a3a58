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

// Each context structure's fields, listed once for encode and decode: field(lsb, width, member)
// for the member at bits [lsb + width - 1 : lsb]; field(lsb, width, member, shift) for an address
// stored without its low `shift` bits.
template <class Context, class Of>
concept ContextOf = std::same_as<std::remove_const_t<Context>, Of>;

// Software Descriptor Context Structure (0x0 C2H and 0x1 H2C).
template <class C, class Field>
    requires ContextOf<C, SoftwareContext>
void each_field(C& c, Field&& field) {
    field("pidx", 0, 16, c.pidx);
    field("irq_arm", 16, 1, c.irq_arm);
    field("fnc_id", 17, 12, c.fnc_id);
    field("qen", 32, 1, c.qen);
    field("fcrd_en", 33, 1, c.fcrd_en);
    field("wbi_chk", 34, 1, c.wbi_chk);
    field("wbi_intvl_en", 35, 1, c.wbi_intvl_en);
    field("at", 36, 1, c.at);
    field("fetch_max", 37, 4, c.fetch_max);
    field("rngsz_idx", 44, 4, c.rngsz_idx);
    field("dsc_sz", 48, 2, c.dsc_sz);
    field("bypass", 50, 1, c.bypass);
    field("mm_chn", 51, 1, c.mm_chn);
    field("wbk_en", 52, 1, c.wbk_en);
    field("irq_en", 53, 1, c.irq_en);
    field("port_id", 54, 3, c.port_id);
    field("irq_no_last", 57, 1, c.irq_no_last);
    field("err", 58, 2, c.err);
    field("err_wb_sent", 60, 1, c.err_wb_sent);
    field("irq_req", 61, 1, c.irq_req);
    field("mrkr_dis", 62, 1, c.mrkr_dis);
    field("is_mm", 63, 1, c.is_mm);
    field("dsc_base", 64, 64, c.dsc_base);
    field("vec", 128, 11, c.vec);
    field("int_aggr", 139, 1, c.int_aggr);
}

// Completion Context Structure (0x6).
template <class C, class Field>
    requires ContextOf<C, CompletionContext>
void each_field(C& c, Field&& field) {
    field("en_stat_desc", 0, 1, c.en_stat_desc);
    field("en_int", 1, 1, c.en_int);
    field("trig_mode", 2, 3, c.trig_mode);
    field("fnc_id", 5, 12, c.fnc_id);
    field("counter_idx", 17, 4, c.counter_idx);
    field("timer_idx", 21, 4, c.timer_idx);
    field("int_st", 25, 2, c.int_st);
    field("color", 27, 1, c.color);
    field("qsize_idx", 28, 4, c.qsize_idx);
    field("baddr4_high", 32, 58, c.baddr, 6);
    field("desc_size", 90, 2, c.desc_size);
    field("pidx", 92, 16, c.pidx);
    field("cidx", 108, 16, c.cidx);
    field("valid", 124, 1, c.valid);
    field("err", 125, 2, c.err);
    field("user_trig_pend", 127, 1, c.user_trig_pend);
    field("timer_running", 128, 1, c.timer_running);
    field("full_upd", 129, 1, c.full_upd);
    field("ovf_chk_dis", 130, 1, c.ovf_chk_dis);
    field("at", 131, 1, c.at);
    field("vec", 132, 11, c.vec);
    field("int_aggr", 143, 1, c.int_aggr);
    field("dir_c2h", 146, 1, c.dir_c2h);
}

// C2H Prefetch Context Structure (0x7).
template <class C, class Field>
    requires ContextOf<C, PrefetchContext>
void each_field(C& c, Field&& field) {
    field("bypass", 0, 1, c.bypass);
    field("bufsz_idx", 1, 4, c.bufsz_idx);
    field("port_id", 5, 3, c.port_id);
    field("err", 26, 1, c.err);
    field("pfch_en", 27, 1, c.pfch_en);
    field("pfch", 28, 1, c.pfch);
    field("sw_crdt", 29, 16, c.sw_crdt);
    field("valid", 45, 1, c.valid);
}

// Function Map Context Structure (0xC).
template <class C, class Field>
    requires ContextOf<C, FmapContext>
void each_field(C& c, Field&& field) {
    field("qid_base", 0, 11, c.qid_base);
    field("qid_max", 32, 12, c.qid_max);
}

// Interrupt Context Structure (0x8).
template <class C, class Field>
    requires ContextOf<C, InterruptContext>
void each_field(C& c, Field&& field) {
    field("valid", 0, 1, c.valid);
    field("vec", 1, 11, c.vec);
    field("int_st", 13, 1, c.int_st);
    field("color", 14, 1, c.color);
    field("baddr_4k", 15, 52, c.baddr_4k, 12);
    field("page_size", 67, 3, c.page_size);
    field("pidx", 70, 12, c.pidx);
    field("at", 82, 1, c.at);
    field("func", 114, 12, c.func);
}

// Hardware Descriptor Context Structure (0x2 C2H and 0x3 H2C).
template <class C, class Field>
    requires ContextOf<C, HardwareContext>
void each_field(C& c, Field&& field) {
    field("cidx", 0, 16, c.cidx);
    field("crd_use", 16, 16, c.crd_use);
    field("dsc_pnd", 40, 1, c.dsc_pnd);
    field("idl_stp_b", 41, 1, c.idl_stp_b);
    field("evt_pnd", 42, 1, c.evt_pnd);
    field("fetch_pnd", 43, 4, c.fetch_pnd);
}

// Credit Descriptor Context Structure (0x4 C2H and 0x5 H2C).
template <class C, class Field>
    requires ContextOf<C, CreditContext>
void each_field(C& c, Field&& field) {
    field("credt", 0, 16, c.credt);
}

template <class Context>
ContextWords encode_fields(const Context& c) {
    ContextWords w{};
    each_field(c, [&w](const char*, unsigned lsb, unsigned width, const auto& value, unsigned shift = 0) {
        set_bits(w, lsb, width, static_cast<uint64_t>(value) >> shift);
    });
    return w;
}

template <class Context>
Context decode_fields(const ContextWords& w) {
    Context c;
    each_field(c, [&w](const char*, unsigned lsb, unsigned width, auto& value, unsigned shift = 0) {
        value = static_cast<std::remove_reference_t<decltype(value)>>(get_bits(w, lsb, width) << shift);
    });
    return c;
}

// Each field of the structure as it lies in the words: its name, bit range and raw bits.
template <class Context>
std::vector<ContextField> fields_of(const ContextWords& w) {
    std::vector<ContextField> fields;
    Context c;
    each_field(c, [&](const char* name, unsigned lsb, unsigned width, auto&, unsigned = 0) {
        fields.push_back({name, lsb + width - 1, lsb, get_bits(w, lsb, width)});
    });
    return fields;
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

HardwareContext HardwareContext::decode(const ContextWords& w) { return decode_fields<HardwareContext>(w); }
CreditContext CreditContext::decode(const ContextWords& w) { return decode_fields<CreditContext>(w); }

std::vector<ContextField> context_fields(CtxtSel sel, const ContextWords& words) {
    switch (sel) {
    case CtxtSel::QDMA_CTXT_SELC_DEC_SW_C2H:
    case CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C: return fields_of<SoftwareContext>(words);
    case CtxtSel::QDMA_CTXT_SELC_DEC_HW_C2H:
    case CtxtSel::QDMA_CTXT_SELC_DEC_HW_H2C: return fields_of<HardwareContext>(words);
    case CtxtSel::QDMA_CTXT_SELC_DEC_CR_C2H:
    case CtxtSel::QDMA_CTXT_SELC_DEC_CR_H2C: return fields_of<CreditContext>(words);
    case CtxtSel::QDMA_CTXT_SELC_WRB: return fields_of<CompletionContext>(words);
    case CtxtSel::QDMA_CTXT_SELC_PFTCH: return fields_of<PrefetchContext>(words);
    case CtxtSel::QDMA_CTXT_SELC_INT_COAL: return fields_of<InterruptContext>(words);
    case CtxtSel::QDMA_CTXT_SELC_FMAP: return fields_of<FmapContext>(words);
    case CtxtSel::QDMA_CTXT_SELC_TIMER: break;
    }
    return {};
}

}  // namespace qdma
