// Queue contexts read back and decoded (PG302 "Context Programming", "QDMA Context Structures"),
// the global CSRs by name (PG302 "Register Space": QDMA_CSR).
#include "qdma/qdma_inspect.hpp"
#include "base/format.hpp"
#include "qdma/qdma_queue.hpp"
#include "qdma/qdma_registers.hpp"

namespace qdma {

namespace {

uint32_t sel_of(CtxtSel s) { return static_cast<uint32_t>(s); }

// What QDMA_IND_CTXT_DATA holds before a read whose expectation is unknown: alternate bits, so
// that a read that never lands shows in every field of more than one bit.
constexpr std::array<uint32_t, 8> kReadDecoy{0xA5A5A5A5, 0x5A5A5A5A, 0xA5A5A5A5, 0x5A5A5A5A,
                                             0xA5A5A5A5, 0x5A5A5A5A, 0xA5A5A5A5, 0x5A5A5A5A};

}  // namespace

std::string bit_range(unsigned msb, unsigned lsb) {
    return "[" + std::to_string(msb) + (msb == lsb ? "" : ":" + std::to_string(lsb)) + "]";
}

QueueContext decode_context(uint32_t sel, const std::array<uint32_t, 8>& words) {
    const auto s = static_cast<CtxtSel>(sel);
    return {sel, to_string(s), words, context_fields(s, words)};
}

std::vector<uint32_t> queue_selectors(QueueDirection direction, bool c2h_stream) {
    if (direction == QueueDirection::H2C)
        return {sel_of(CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C), sel_of(CtxtSel::QDMA_CTXT_SELC_DEC_HW_H2C),
                sel_of(CtxtSel::QDMA_CTXT_SELC_DEC_CR_H2C)};
    std::vector<uint32_t> sels{sel_of(CtxtSel::QDMA_CTXT_SELC_DEC_SW_C2H), sel_of(CtxtSel::QDMA_CTXT_SELC_DEC_HW_C2H),
                               sel_of(CtxtSel::QDMA_CTXT_SELC_DEC_CR_C2H)};
    if (c2h_stream) {
        sels.push_back(sel_of(CtxtSel::QDMA_CTXT_SELC_WRB));
        sels.push_back(sel_of(CtxtSel::QDMA_CTXT_SELC_PFTCH));
    }
    return sels;
}

pdt::Result<QueueContext> read_context(Function& function, uint32_t hw_qid, uint32_t sel,
                                       const std::array<uint32_t, 8>& decoy) {
    for (unsigned i = 0; i < kContextWords; ++i)
        function.registers().write32(QDMA_IND_CTXT_DATA_0 + 4 * i, decoy[i]);
    return decode_context(sel, PDT_TRY(function.context_read(hw_qid, sel)));
}

pdt::Result<std::vector<QueueContext>> read_queue_contexts(Function& function, uint32_t qid,
                                                           QueueDirection direction, bool c2h_stream) {
    const uint32_t hw_qid = PDT_TRY(function.physical_qid(qid));
    std::vector<QueueContext> contexts;
    for (uint32_t sel : queue_selectors(direction, c2h_stream))
        contexts.push_back(PDT_TRY(read_context(function, hw_qid, sel, kReadDecoy)));
    return contexts;
}

pdt::Result<QueueContext> read_interrupt_context(Function& function, unsigned ring_index) {
    return read_context(function, ring_index, sel_of(CtxtSel::QDMA_CTXT_SELC_INT_COAL), kReadDecoy);
}

std::vector<std::string> field_differences(const QueueContext& written, const QueueContext& read) {
    std::vector<std::string> lines;
    for (size_t i = 0; i < written.fields.size() && i < read.fields.size(); ++i) {
        const ContextField& w = written.fields[i];
        const ContextField& r = read.fields[i];
        if (w.value != r.value)
            lines.push_back(read.selector + " " + w.name + " " + bit_range(w.msb, w.lsb) + ": set-up wrote " +
                            pdt::hex(w.value) + ", read " + pdt::hex(r.value));
    }
    return lines;
}

pdt::Result<SetUpCheck> check_set_up(Function& function, const Queue& queue) {
    SetUpCheck check;
    for (const WrittenContext& w : queue.written_contexts()) {
        std::array<uint32_t, 8> decoy{};
        for (unsigned i = 0; i < kContextWords; ++i)
            decoy[i] = ~w.words[i];
        check.written.push_back(decode_context(w.sel, w.words));
        check.read.push_back(PDT_TRY(read_context(function, queue.hw_qid(), w.sel, decoy)));
        check.fields_compared += check.written.back().fields.size();
        for (std::string& line : field_differences(check.written.back(), check.read.back()))
            check.differences.push_back(std::move(line));
    }
    return check;
}

pdt::Result<std::vector<ListedQueue>> list_enabled_queues(Function& function) {
    std::vector<ListedQueue> listed;
    for (uint32_t qid = 0; qid < function.options().queues; ++qid) {
        const uint32_t hw_qid = PDT_TRY(function.physical_qid(qid));
        for (QueueDirection direction : {QueueDirection::H2C, QueueDirection::C2H}) {
            const uint32_t sel = queue_selectors(direction, false).front();
            const QueueContext read = PDT_TRY(read_context(function, hw_qid, sel, kReadDecoy));
            const SoftwareContext sw = SoftwareContext::decode(read.words);
            if (sw.qen)
                listed.push_back({qid, hw_qid, direction, sw.is_mm, sw.rngsz_idx, sw.dsc_base});
        }
    }
    return listed;
}

namespace {

// The global CSRs a dump shows (PG302 "QDMA_CSR (0x0000)"); `count` registers 4 bytes apart,
// numbered from `first` (GLBL_RNG_SZ_1..16, C2H_BUF_SZ_0..15).
struct GlobalRegister {
    const char* name;
    uint64_t offset;
    unsigned count = 1, first = 0;
};
const GlobalRegister kGlobalRegisters[] = {
    {"CONFIG_BLOCK_ID", CONFIG_BLOCK_ID},
    {"QDMA_GLBL2_PF_BARLITE_INT", QDMA_GLBL2_PF_BARLITE_INT},
    {"QDMA_GLBL2_CHANNEL_MDMA", QDMA_GLBL2_CHANNEL_MDMA},
    {"QDMA_GLBL2_CHANNEL_QDMA_CAP", QDMA_GLBL2_CHANNEL_QDMA_CAP},
    {"QDMA_GLBL2_MISC_CAP", QDMA_GLBL2_MISC_CAP},
    {"QDMA_GLBL_RNG_SZ", QDMA_GLBL_RNG_SZ_1, kRingSizeCount, 1},
    {"QDMA_GLBL_ERR_STAT", QDMA_GLBL_ERR_STAT},
    {"QDMA_GLBL_ERR_MASK", QDMA_GLBL_ERR_MASK},
    {"QDMA_GLBL_DSC_CFG", QDMA_GLBL_DSC_CFG},
    {"QDMA_GLBL_DSC_ERR_STS", QDMA_GLBL_DSC_ERR_STS},
    {"QDMA_GLBL_DSC_ERR_MSK", QDMA_GLBL_DSC_ERR_MSK},
    {"QDMA_GLBL_DSC_ERR_LOG0", QDMA_GLBL_DSC_ERR_LOG0},
    {"QDMA_GLBL_DSC_ERR_LOG1", QDMA_GLBL_DSC_ERR_LOG1},
    {"QDMA_GLBL_TRQ_ERR_STS", QDMA_GLBL_TRQ_ERR_STS},
    {"QDMA_GLBL_TRQ_ERR_MSK", QDMA_GLBL_TRQ_ERR_MSK},
    {"QDMA_GLBL_TRQ_ERR_LOG", QDMA_GLBL_TRQ_ERR_LOG},
    {"QDMA_IND_CTXT_CMD", QDMA_IND_CTXT_CMD},
    {"QDMA_C2H_TIMER_CNT", QDMA_C2H_TIMER_CNT, 16, 0},
    {"QDMA_C2H_CNT_TH", QDMA_C2H_CNT_TH, 16, 0},
    {"QDMA_C2H_BUF_SZ", QDMA_C2H_BUF_SZ, 16, 0},
    {"QDMA_C2H_ERR_STAT", QDMA_C2H_ERR_STAT},
    {"QDMA_C2H_ERR_MASK", QDMA_C2H_ERR_MASK},
    {"QDMA_C2H_FATAL_ERR_STAT", QDMA_C2H_FATAL_ERR_STAT},
    {"QDMA_C2H_FATAL_ERR_MASK", QDMA_C2H_FATAL_ERR_MASK},
    {"QDMA_GLBL_ERR_INT", QDMA_GLBL_ERR_INT},
    {"QDMA_H2C_ERR_STAT", QDMA_H2C_ERR_STAT},
    {"QDMA_H2C_ERR_MASK", QDMA_H2C_ERR_MASK},
    {"QDMA_C2H_MM_CTL", QDMA_C2H_MM_CTL},
    {"QDMA_H2C_MM_CTL", QDMA_H2C_MM_CTL},
};

}  // namespace

std::vector<RegisterValue> read_global_registers(const Function& function) {
    std::vector<RegisterValue> values;
    for (const GlobalRegister& r : kGlobalRegisters)
        for (unsigned i = 0; i < r.count; ++i) {
            const uint64_t offset = r.offset + 4 * i;
            const std::string name = r.count == 1 ? r.name : std::string(r.name) + "_" + std::to_string(r.first + i);
            values.push_back({name, offset, function.registers().read32(offset)});
        }
    return values;
}

}  // namespace qdma
