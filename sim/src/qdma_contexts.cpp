// QDMA model indirect context programming (PG302 Context Programming: QDMA_IND_CTXT_DATA,
// QDMA_IND_CTXT_MASK, QDMA_IND_CTXT_CMD). A write stores (old & ~mask) | (data & mask) unless
// the model refuses it (qdma_model.hpp lists the refusals and the error bits they set).
#include "qdma_internal.hpp"

namespace sim::qdma_impl {

using namespace qdma_csr;

namespace {

uint32_t key(CtxtSel sel, unsigned id) { return static_cast<uint32_t>(sel) << 16 | (id & 0xFFFF); }

bool queue_selector(CtxtSel sel) { return sel != CtxtSel::FMAP && sel != CtxtSel::INT_COAL; }
bool c2h_selector(CtxtSel sel) {
    return sel == CtxtSel::SW_C2H || sel == CtxtSel::HW_C2H || sel == CtxtSel::CR_C2H || sel == CtxtSel::CMPT ||
           sel == CtxtSel::PFTCH;
}

// INV: the context stops being valid (SW: qen, CMPT and prefetch: valid, interrupt: valid).
void invalidate(CtxtSel sel, Words& w) {
    switch (sel) {
    case CtxtSel::SW_C2H:
    case CtxtSel::SW_H2C: w[1] = with_field(w[1], 0, 0, 0); break;
    case CtxtSel::CMPT: w[3] = with_field(w[3], 28, 28, 0); break;
    case CtxtSel::PFTCH: w[1] = with_field(w[1], 13, 13, 0); break;
    case CtxtSel::INT_COAL: w[0] = with_field(w[0], 0, 0, 0); break;
    default: w = {}; break;
    }
}

}  // namespace

Words* Impl::find(CtxtSel sel, unsigned id) {
    auto it = contexts.find(key(sel, id));
    return it == contexts.end() ? nullptr : &it->second;
}

Words& Impl::context(CtxtSel sel, unsigned id) { return contexts[key(sel, id)]; }

namespace {

enum class Refusal { None, QidRange, Param };

struct Check {
    Impl& impl;
    CtxtSel sel;
    unsigned qid;

    // SW context with qen: the queue must lie in its function's FMAP range, its ring size be
    // programmed and its descriptor size fit the queue kind and the engines the IP has.
    Refusal software(const Words& w) const {
        const SwContext sw(w);
        if (!sw.qen())
            return Refusal::None;
        const Words* fmap = sw.fnc() < impl.config.caps.physical_functions ? impl.find(CtxtSel::FMAP, sw.fnc()) : nullptr;
        if (!fmap || qid < fmap_qbase(*fmap) || qid >= fmap_qbase(*fmap) + fmap_qmax(*fmap))
            return Refusal::QidRange;
        if (impl.ring_entries(sw.rng_sz()) < 2)
            return Refusal::Param;
        if (sw.is_mm())
            return impl.config.caps.memory_mapped && sw.dsc_sz() == 2 && !sw.mm_chn() ? Refusal::None : Refusal::Param;
        const unsigned st_size = sel == CtxtSel::SW_H2C ? 1 : 0;  // H2C ST 16 B, C2H ST 8 B
        return impl.config.caps.stream && sw.dsc_sz() == st_size ? Refusal::None : Refusal::Param;
    }

    Refusal check(const Words& w) const {
        switch (sel) {
        case CtxtSel::SW_C2H:
        case CtxtSel::SW_H2C: return software(w);
        case CtxtSel::CMPT: {
            Words copy = w;
            const CmptContext cmpt(copy);
            return cmpt.valid() && impl.ring_entries(cmpt.qsize_ix()) < 2 ? Refusal::Param : Refusal::None;
        }
        case CtxtSel::PFTCH: {
            const auto size = impl.plain.find(C2H_BUF_SZ + 4ull * pfch_buf_sz_idx(w));
            const bool zero = size == impl.plain.end() || size->second == 0;
            return pfch_valid(w) && zero ? Refusal::Param : Refusal::None;
        }
        default: return Refusal::None;
        }
    }
};

}  // namespace

void Impl::context_command(uint32_t cmd) {
    ind_cmd = cmd & 0xFFFFE;  // busy [0] never reads set: the command completes at once
    const unsigned qid = field(cmd, 19, 7);
    const auto op = static_cast<CtxtOp>(field(cmd, 6, 5));
    const unsigned raw_sel = field(cmd, 4, 1);
    if (raw_sel > static_cast<unsigned>(CtxtSel::FMAP)) {
        log_ctxt_refused();  // reserved selector
        return;
    }
    const auto sel = static_cast<CtxtSel>(raw_sel);
    const bool out_of_range = sel == CtxtSel::FMAP ? qid >= config.caps.physical_functions
                              : queue_selector(sel) ? qid >= config.caps.queues
                                                    : qid >= 2048;  // interrupt rings
    if (out_of_range) {
        log_ctxt_refused();
        log_trq_error(config.function, IND_CTXT_CMD);
        return;
    }
    switch (op) {
    case CtxtOp::CLR:
        contexts.erase(key(sel, qid));
        if (sel == CtxtSel::SW_H2C || sel == CtxtSel::SW_C2H) {  // a cleared queue starts afresh
            Queue& q = (sel == CtxtSel::SW_H2C ? h2c : c2h)[qid];
            q.stalled = false;
            q.tails = LateTails{};
            q.late_due.reset();
        }
        return;
    case CtxtOp::RD: {
        if (config.context_read_lie == QdmaContextReadLie::Stale)
            return;  // the lie: the data registers keep what they held
        const Words* w = find(sel, qid);
        ind_data = w ? *w : Words{};
        if (sel == CtxtSel::HW_H2C || sel == CtxtSel::HW_C2H) {
            // dsc_pnd [8]: descriptors between the HW CIDX and the SW PIDX of an enabled queue.
            const Words* sw = find(sel == CtxtSel::HW_H2C ? CtxtSel::SW_H2C : CtxtSel::SW_C2H, qid);
            const bool pending = sw && SwContext(*sw).qen() && SwContext(*sw).err() == 0 &&
                                 SwContext(*sw).pidx() != hw_cidx(ind_data);
            ind_data[1] = with_field(ind_data[1], 8, 8, pending);
        }
        if (config.context_read_lie == QdmaContextReadLie::FlipsBit44)
            ind_data[1] ^= 1u << 12;  // the lie: bit 44 of the structure
        return;
    }
    case CtxtOp::INV:
        if (sel == CtxtSel::SW_H2C || sel == CtxtSel::SW_C2H) {
            Queue& q = (sel == CtxtSel::SW_C2H ? c2h : h2c)[qid];
            if (config.ignores_stop && q.late_due) {  // an engine that will not stop: never quiet
                ind_cmd_stuck = true;
                return;
            }
            finish_late(sel == CtxtSel::SW_C2H, qid);  // a write in flight lands before the queue goes quiet
        }
        if (Words* w = find(sel, qid))
            invalidate(sel, *w);
        return;
    case CtxtOp::WR: {
        const Words* old = find(sel, qid);
        Words next = old ? *old : Words{};
        for (unsigned i = 0; i < kContextWords; ++i)
            next[i] = (next[i] & ~ind_mask[i]) | (ind_data[i] & ind_mask[i]);
        switch (Check{*this, sel, qid}.check(next)) {
        case Refusal::QidRange:
            log_ctxt_refused();
            log_trq_error(SwContext(next).fnc(), IND_CTXT_CMD);
            return;
        case Refusal::Param:
            log_ctxt_refused();
            log_dsc_error(DSC_ERR_PARAM, c2h_selector(sel), qid, 0);
            return;
        case Refusal::None: break;
        }
        context(sel, qid) = next;
        return;
    }
    }
}

}  // namespace sim::qdma_impl
