// QDMA model registers (PG302 Register Space): the global CSRs, error status, MM channel control
// and the PF queue space doorbells. Offsets are qdma_csr's (sim/qdma_model.hpp).
#include "qdma_internal.hpp"

namespace sim::qdma_impl {

using namespace qdma_csr;

namespace {

// Registers software programs that the model keeps as written, with their writable bits.
struct Plain {
    uint64_t offset;
    unsigned count;
    uint32_t writable;
};
constexpr Plain kPlain[] = {
    {GLBL_RNG_SZ_1, kRingSizes, 0xFFFF},  // ring_size [15:0]
    {GLBL_ERR_MASK, 1, 0xFFFFFFFF},
    {GLBL_DSC_CFG, 1, 0x33F},             // unc_ovr_cor [9], ctxt_fer_dis [8], maxfetch [5:3], wb_acc_int [2:0]
    {GLBL_DSC_ERR_MSK, 1, 0xFFFFFFFF},
    {GLBL_TRQ_ERR_MSK, 1, 0xFFFFFFFF},
    {C2H_TIMER_CNT, 16, 0xFFFF},
    {C2H_CNT_TH, 16, 0xFFFF},
    {C2H_BUF_SZ, 16, 0xFFFFFFFF},
    {C2H_ERR_MASK, 1, 0xFFFFFFFF},
    {H2C_ERR_MASK, 1, 0xFFFFFFFF},
};

const Plain* plain_register(uint64_t offset) {
    for (const Plain& p : kPlain)
        if (offset >= p.offset && offset < p.offset + 4ull * p.count)
            return &p;
    return nullptr;
}

bool identification_register(uint64_t offset) {
    return offset == CONFIG_BLOCK_ID || offset == GLBL2_PF_BARLITE_INT || offset == GLBL2_CHANNEL_MDMA ||
           offset == GLBL2_CHANNEL_QDMA_CAP || offset == GLBL2_MISC_CAP;
}

}  // namespace

uint32_t Impl::ring_entries(unsigned index) const {
    auto it = plain.find(GLBL_RNG_SZ_1 + 4ull * index);
    return it == plain.end() ? 0 : it->second;
}

uint32_t Impl::read32(uint64_t offset) {
    if (identification_register(offset))
        return static_cast<uint32_t>(identification->read(offset, 4));
    if (plain_register(offset)) {
        auto it = plain.find(offset);
        return it == plain.end() ? 0 : it->second;
    }
    if (offset >= IND_CTXT_DATA && offset < IND_CTXT_DATA + 4 * kContextWords)
        return ind_data[(offset - IND_CTXT_DATA) / 4];
    if (offset >= IND_CTXT_MASK && offset < IND_CTXT_MASK + 4 * kContextWords)
        return ind_mask[(offset - IND_CTXT_MASK) / 4];
    if (offset >= QUEUE_PF && offset < QUEUE_PF + kQueueStride * config.caps.queues) {
        auto it = doorbells.find(offset);
        return it == doorbells.end() ? 0 : it->second;
    }
    switch (offset) {
    case GLBL_ERR_STAT: return glbl_err_stat;
    case GLBL_DSC_ERR_STS: return dsc_err_sts;
    case GLBL_DSC_ERR_LOG0: return dsc_err_log0;
    case GLBL_DSC_ERR_LOG1: return dsc_err_log1;
    case GLBL_TRQ_ERR_STS: return trq_err_sts;
    case GLBL_TRQ_ERR_LOG: return trq_err_log;
    case C2H_ERR_STAT: return c2h_err_stat;
    case H2C_ERR_STAT: return h2c_err_stat;
    case IND_CTXT_CMD:  // commands complete at once (busy reads 0), but the stuck invalidation of ignores_stop
        return (ind_cmd & ~1u) | (ind_cmd_stuck ? 1u : 0u);
    case C2H_MM_CTL: return c2h_mm_ctl;
    case H2C_MM_CTL: return h2c_mm_ctl;
    case C2H_MM_STATUS: return c2h_mm_ctl & MM_CTL_RUN;
    case H2C_MM_STATUS: return h2c_mm_ctl & MM_CTL_RUN;
    case C2H_MM_CMPL_DESC_CNT: return c2h_mm_count;
    case H2C_MM_CMPL_DESC_CNT: return h2c_mm_count;
    default: return 0;  // debug and statistics registers, unused space
    }
}

void Impl::write32(uint64_t offset, uint32_t value) {
    ++generation;
    if (const Plain* p = plain_register(offset)) {
        plain[offset] = value & p->writable;
        return;
    }
    if (offset >= IND_CTXT_DATA && offset < IND_CTXT_DATA + 4 * kContextWords) {
        ind_data[(offset - IND_CTXT_DATA) / 4] = value;
        return;
    }
    if (offset >= IND_CTXT_MASK && offset < IND_CTXT_MASK + 4 * kContextWords) {
        ind_mask[(offset - IND_CTXT_MASK) / 4] = value;
        return;
    }
    if (offset >= QUEUE_PF && offset < QUEUE_PF + kQueueStride * config.caps.queues) {
        doorbell(offset, value);
        return;
    }
    switch (offset) {
    // Error status registers: write 1 to clear.
    case GLBL_ERR_STAT: glbl_err_stat &= ~value; return;
    case GLBL_DSC_ERR_STS: dsc_err_sts &= ~value; return;
    case GLBL_TRQ_ERR_STS: trq_err_sts &= ~value; return;
    case C2H_ERR_STAT: c2h_err_stat &= ~value; return;
    case H2C_ERR_STAT: h2c_err_stat &= ~value; return;
    case GLBL_DSC_ERR_LOG0: dsc_err_log0 &= ~(value & 0x80000000u); return;  // valid [31]: W1C
    case IND_CTXT_CMD: context_command(value); return;
    case C2H_MM_CTL:
        if (config.caps.memory_mapped)
            c2h_mm_ctl = value & 0x101;  // errc_en [8], run [0]
        return;
    case H2C_MM_CTL:
        if (config.caps.memory_mapped)
            h2c_mm_ctl = value & 0x101;
        return;
    default: return;  // read-only or unused
    }
}

void Impl::reset() {
    plain.clear();
    glbl_err_stat = dsc_err_sts = dsc_err_log0 = dsc_err_log1 = 0;
    trq_err_sts = trq_err_log = c2h_err_stat = h2c_err_stat = 0;
    ind_data = {};
    ind_mask = {};
    ind_cmd = 0;
    h2c_mm_ctl = c2h_mm_ctl = h2c_mm_count = c2h_mm_count = 0;
    contexts.clear();
    doorbells.clear();
    h2c.clear();
    c2h.clear();
    loopback.clear();
    loopback_bytes.clear();
    card_memory.clear();
    ++generation;
}

// PG302 Function Map Table: a PF queue space access is to logical queue n of this function,
// translated to physical queue qbase + n; n >= qmax (or no FMAP) is canceled and logged.
void Impl::doorbell(uint64_t offset, uint32_t value) {
    const unsigned logical = static_cast<unsigned>((offset - QUEUE_PF) / kQueueStride);
    const uint64_t reg = (offset - QUEUE_PF) % kQueueStride;
    const Words* fmap = find(CtxtSel::FMAP, config.function);
    if (!fmap || logical >= fmap_qmax(*fmap) || fmap_qbase(*fmap) + logical >= config.caps.queues) {
        log_trq_error(config.function, offset);
        return;
    }
    const unsigned qid = fmap_qbase(*fmap) + logical;
    doorbells[offset] = value;
    if (reg == H2C_DSC_PIDX || reg == C2H_DSC_PIDX) {
        // pidx [15:0] and irq_en [16] go to the SW context's pidx and irq_arm.
        Words& sw = context(reg == H2C_DSC_PIDX ? CtxtSel::SW_H2C : CtxtSel::SW_C2H, qid);
        sw[0] = with_field(sw[0], 16, 0, value & 0x1FFFF);
    } else if (reg == CMPT_CIDX) {
        Words& words = context(CtxtSel::CMPT, qid);
        CmptContext cmpt(words);
        const uint16_t cidx = static_cast<uint16_t>(value & 0xFFFF);
        const uint32_t entries = ring_entries(cmpt.qsize_ix());
        if (cmpt.valid() && entries >= 2) {
            // A CIDX past the ring or past the entries written is a bad CIDX update (PG302
            // Completion Status error 1): the context is invalidated with the error.
            const uint32_t slots = entries - 1;
            const uint32_t written = (cmpt.pidx() + slots - cmpt.cidx()) % slots;
            if (cidx >= slots || (cidx + slots - cmpt.cidx()) % slots > written) {
                cmpt_error(qid, cmpt, 1, C2H_ERR_WRB_CIDX);
                return;
            }
        }
        cmpt.set_cidx(cidx);
        // counter_idx [19:16], timer_idx [23:20], trig_mode [26:24], en_sts_desc [27], irq_en [28]
        // update the context's counter_idx, timer_idx, trig_mode, en_stat_desc and en_int.
        words[0] = with_field(words[0], 20, 17, field(value, 19, 16));
        words[0] = with_field(words[0], 24, 21, field(value, 23, 20));
        words[0] = with_field(words[0], 4, 2, field(value, 26, 24));
        words[0] = with_field(words[0], 0, 0, field(value, 27, 27));
        words[0] = with_field(words[0], 1, 1, field(value, 28, 28));
        words[0] = with_field(words[0], 26, 25, 0);  // int_st back to ISR: the interrupt re-armed
        if (cmpt.valid() && cmpt.pidx() != cmpt.cidx() && cmpt.en_stat_desc() && cmpt.trig_mode() != 0)
            write_cmpt_status(qid, 0);  // entries still waiting: a CMPT status descriptor
    }
    if (reg == INT_CIDX)
        interrupt_cidx(value);
}

void Impl::log_ctxt_refused() { glbl_err_stat |= IND_CTXT_CMD_ERR; }

void Impl::log_trq_error(unsigned function, uint64_t address) {
    trq_err_sts |= TRQ_ERR_QID_RANGE;
    glbl_err_stat |= ERR_TRQ;
    trq_err_log = (function & 0x3FFu) << 17 | static_cast<uint32_t>(address & 0x1FFFF);
}

void Impl::log_dsc_error(uint32_t sts_bit, bool c2h, unsigned qid, uint16_t cidx) {
    dsc_err_sts |= sts_bit;
    glbl_err_stat |= ERR_DSC;
    unsigned type = 0;
    while (type < 31 && !(sts_bit & (1u << type)))
        ++type;
    dsc_err_log0 = 0x80000000u | uint32_t(c2h) << 30 | (qid & 0x1FFF);
    dsc_err_log1 = uint32_t(cidx) << 12 | type;
}

}  // namespace sim::qdma_impl
