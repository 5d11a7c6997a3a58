// A function's view of the QDMA: capabilities, FMAP, indirect context commands (PG302
// "Context Programming", "Function Map Table").
#include "qdma/qdma_function.hpp"
#include "base/format.hpp"
#include "qdma/qdma_registers.hpp"

#include <algorithm>
#include <cerrno>
#include <thread>

namespace qdma {

using pdt::hex;

const char* to_string(QueueDirection direction) { return direction == QueueDirection::H2C ? "H2C" : "C2H"; }

pdt::Result<std::unique_ptr<Function>> Function::open(vfio::Device& device, const FunctionOptions& options) {
    const std::string object = device.identity().address.to_string() + " QDMA BAR " + std::to_string(options.bar);
    vfio::Bar* bar = PDT_TRY(device.bar(options.bar));
    // The queue space of the function's queues must fit: QDMA_TRQ_SEL_QUEUE_PF + qid * 0x10.
    const auto check_size = [&](uint16_t queues) -> pdt::Result<void> {
        if (const uint64_t needed = queue_register(queues, 0); bar->size() < needed)
            return pdt::make_error("open QDMA function", object, ERANGE,
                                   "the BAR is " + hex(bar->size()) + " bytes; QDMA_TRQ_SEL_QUEUE_PF of " +
                                       std::to_string(queues) + " queues ends at " + hex(needed));
        return {};
    };
    if (!options.read_fmap)
        PDT_CHECK(check_size(options.queues));
    vfio::RegisterWindow regs = PDT_TRY(bar->window(0, bar->size()));
    auto function = std::unique_ptr<Function>(new Function(device, options, std::move(regs)));
    PDT_CHECK(function->read_capabilities());
    if (options.read_fmap) {
        PDT_CHECK(function->adopt_fmap());
        PDT_CHECK(check_size(function->m_options.queues));
        return function;
    }
    const Capabilities& caps = function->m_caps;
    if (options.queues == 0 || uint32_t{options.qid_base} + options.queues > caps.multq_max)
        return pdt::usage_error("open QDMA function", function->name(),
                                "queues [" + std::to_string(options.qid_base) + ", " +
                                    std::to_string(options.qid_base + options.queues) +
                                    ") do not fit the IP's QDMA_GLBL2_CHANNEL_QDMA_CAP.MULTQ_MAX " +
                                    std::to_string(caps.multq_max));
    // PG302 "Function Map Table": qid_base and qid_max of the function through the indirect
    // context space, QDMA_IND_CTXT_CMD.sel = 0xC, qid = function number.
    const FmapContext fmap{options.qid_base, options.queues};
    const ContextWords words = fmap.encode();
    PDT_CHECK(function->context_command(options.function, static_cast<uint32_t>(CtxtSel::QDMA_CTXT_SELC_FMAP),
                                      static_cast<uint32_t>(CtxtOp::QDMA_CTXT_WR), &words));
    return function;
}

Function::~Function() = default;

// PG302 "Function Map Table", read: the queues some driver gave the function (none: qid_max 0).
pdt::Result<void> Function::adopt_fmap() {
    const auto words = PDT_TRY(context_read(m_options.function, static_cast<uint32_t>(CtxtSel::QDMA_CTXT_SELC_FMAP)));
    const FmapContext fmap = FmapContext::decode(words);
    m_options.qid_base = fmap.qid_base;
    m_options.queues = fmap.qid_max;
    return {};
}

std::string Function::name() const {
    return m_device.identity().address.to_string() + " QDMA function " + std::to_string(m_options.function);
}

pdt::Result<void> Function::read_capabilities() {
    const uint32_t id = m_regs.read32(CONFIG_BLOCK_ID);
    if ((id >> 16) != QDMA_IDENTIFIER)
        return pdt::make_error("open QDMA function", name(), ENODEV,
                               "CONFIG_BLOCK_ID reads " + hex(id) + ", not the QDMA identifier 0x1fd3 in [31:16]");
    m_caps.config_block_id = id;
    m_caps.multq_max = m_regs.read32(QDMA_GLBL2_CHANNEL_QDMA_CAP) & 0xFFF;
    const uint32_t mdma = m_regs.read32(QDMA_GLBL2_CHANNEL_MDMA);
    m_caps.h2c_mm_engines = mdma & 0xF;
    m_caps.c2h_mm_engines = (mdma >> 8) & 0xF;
    m_caps.h2c_st = (mdma >> 16) & 1;
    m_caps.c2h_st = (mdma >> 17) & 1;
    const auto read_table = [&] {
        for (unsigned i = 0; i < kRingSizeCount; ++i) {
            m_caps.ring_sizes[i] = m_regs.read32(QDMA_GLBL_RNG_SZ_1 + 4 * i) & 0xFFFF;
            m_caps.c2h_buf_sizes[i] = m_regs.read32(QDMA_C2H_BUF_SZ + 4 * i);
        }
    };
    read_table();
    const auto empty = [](const std::array<uint32_t, 16>& values) {
        return std::all_of(values.begin(), values.end(), [](uint32_t v) { return v == 0; });
    };
    if (!m_options.program_empty_globals || m_options.read_fmap)
        return {};
    const bool rings = empty(m_caps.ring_sizes), buffers = empty(m_caps.c2h_buf_sizes);
    for (unsigned i = 0; i < kRingSizeCount; ++i) {
        if (rings)
            m_regs.write32(QDMA_GLBL_RNG_SZ_1 + 4 * i, kDefaultRingSizes[i]);
        if (buffers)
            m_regs.write32(QDMA_C2H_BUF_SZ + 4 * i, kDefaultC2hBufferSizes[i]);
    }
    if (rings || buffers)
        read_table();
    return {};
}

namespace {
std::string list(const std::array<uint32_t, 16>& values) {
    std::string text;
    for (uint32_t v : values)
        text += (text.empty() ? "" : " ") + std::to_string(v);
    return text;
}
}  // namespace

pdt::Result<unsigned> Function::ring_size_index(uint32_t entries) const {
    for (unsigned i = 0; i < kRingSizeCount; ++i)
        if (m_caps.ring_sizes[i] == entries && entries >= 3)
            return i;
    return pdt::usage_error("choose ring size", name(),
                            std::to_string(entries) + " entries is none of QDMA_GLBL_RNG_SZ_1..16 (" +
                                list(m_caps.ring_sizes) + ")");
}

pdt::Result<unsigned> Function::c2h_buffer_size_index(uint32_t bytes) const {
    for (unsigned i = 0; i < kRingSizeCount; ++i)
        if (m_caps.c2h_buf_sizes[i] == bytes && bytes > 0)
            return i;
    return pdt::usage_error("choose C2H buffer size", name(),
                            std::to_string(bytes) + " bytes is none of QDMA_C2H_BUF_SZ_0..15 (" +
                                list(m_caps.c2h_buf_sizes) + ")");
}

pdt::Result<uint32_t> Function::physical_qid(uint32_t qid) const {
    if (m_options.queues == 0)
        return pdt::usage_error("choose queue", name(),
                                "queue " + std::to_string(qid) + " does not exist: the function has no queues (its "
                                "FMAP context reads qid_max 0; no driver has given it any)");
    if (qid >= m_options.queues)
        return pdt::usage_error("choose queue", name(),
                                "queue " + std::to_string(qid) + " is past the function's FMAP range of " +
                                    std::to_string(m_options.queues) + " queue(s) (qid_max)");
    return m_options.qid_base + qid;
}

pdt::Result<void> Function::start_mm_channel(QueueDirection direction) {
    const uint64_t ctl = direction == QueueDirection::H2C ? QDMA_H2C_MM_CTL : QDMA_C2H_MM_CTL;
    const char* reg = direction == QueueDirection::H2C ? "QDMA_H2C_MM_CTL" : "QDMA_C2H_MM_CTL";
    m_regs.write32(ctl, m_regs.read32(ctl) | MM_CTL_RUN);
    if (const uint32_t value = m_regs.read32(ctl); !(value & MM_CTL_RUN))
        return pdt::make_error(std::string("start MM channel 0 (") + reg + ") of", name(), EIO,
                               std::string(reg) + " reads " + hex(value) + " after run was set");
    return {};
}

void Function::doorbell(uint32_t qid, uint64_t reg, uint32_t value) const {
    m_regs.write32(queue_register(qid, reg), value);
}

// After a context command: QDMA_GLBL_ERR_STAT names what the IP refused; its W1C bits are
// cleared so that the next command is judged alone. An inspecting function (read_fmap) clears
// nothing and judges only the bits not set before the command (`before`).
pdt::Result<void> Function::check_errors(const std::string& what, uint32_t before) {
    const uint32_t stat = m_regs.read32(QDMA_GLBL_ERR_STAT) & ~before;
    if (stat == 0)
        return {};
    const uint32_t dsc = m_regs.read32(QDMA_GLBL_DSC_ERR_STS), trq = m_regs.read32(QDMA_GLBL_TRQ_ERR_STS);
    if (!m_options.read_fmap)
        m_regs.write32(QDMA_GLBL_ERR_STAT, stat);
    std::string hint = "QDMA_GLBL_ERR_STAT " + hex(stat);
    if (stat & GLBL_ERR_STAT_IND_CTXT_CMD_ERR_MASK)
        hint += " (IND_CTXT_CMD_ERR " + hex((stat & GLBL_ERR_STAT_IND_CTXT_CMD_ERR_MASK) >> GLBL_ERR_STAT_IND_CTXT_CMD_ERR_SHIFT) + ")";
    hint += ", QDMA_GLBL_DSC_ERR_STS " + hex(dsc) + ", QDMA_GLBL_TRQ_ERR_STS " + hex(trq);
    return pdt::make_error(what, name(), EIO, "the IP reports an error: " + hint);
}

pdt::Result<void> Function::context_command(uint32_t hw_qid, uint32_t sel, uint32_t op,
                                            const std::array<uint32_t, 8>* data) {
    const auto s = static_cast<CtxtSel>(sel);
    const auto o = static_cast<CtxtOp>(op);
    const std::string what = std::string(to_string(o)) + " " + to_string(s) + " qid " + std::to_string(hw_qid) + " on";
    if (hw_qid > IND_CTXT_CMD_QID_MAX)
        return pdt::make_error(what, name(), EINVAL, "QDMA_IND_CTXT_CMD.qid holds 13 bits");
    // Error bits left by earlier events (engine errors the queues report through their status
    // descriptors) are cleared first, so that what is read back after the command is its own;
    // an inspecting function leaves them for the user to read (check_errors ignores them).
    const uint32_t stale = m_regs.read32(QDMA_GLBL_ERR_STAT);
    if (stale != 0 && !m_options.read_fmap)
        m_regs.write32(QDMA_GLBL_ERR_STAT, stale);
    if (data != nullptr) {
        for (unsigned i = 0; i < kContextWords; ++i) {
            m_regs.write32(QDMA_IND_CTXT_DATA_0 + 4 * i, (*data)[i]);
            m_regs.write32(QDMA_IND_CTXT_MASK_0 + 4 * i, 0xFFFFFFFF);
        }
    }
    m_regs.write32(QDMA_IND_CTXT_CMD, ind_ctxt_cmd(hw_qid, o, s));
    const auto deadline = std::chrono::steady_clock::now() + m_options.context_timeout;
    while (m_regs.read32(QDMA_IND_CTXT_CMD) & IND_CTXT_CMD_BUSY) {
        if (std::chrono::steady_clock::now() >= deadline)
            return pdt::make_error(what, name(), ETIMEDOUT,
                                   "QDMA_IND_CTXT_CMD.busy still set after " +
                                       std::to_string(m_options.context_timeout.count()) + " ms");
        std::this_thread::yield();
    }
    return check_errors(what, m_options.read_fmap ? stale : 0);
}

pdt::Result<std::array<uint32_t, 8>> Function::context_read(uint32_t hw_qid, uint32_t sel) {
    PDT_CHECK(context_command(hw_qid, sel, static_cast<uint32_t>(CtxtOp::QDMA_CTXT_RD)));
    std::array<uint32_t, 8> words{};
    for (unsigned i = 0; i < kContextWords; ++i)
        words[i] = m_regs.read32(QDMA_IND_CTXT_DATA_0 + 4 * i);
    return words;
}

}  // namespace qdma
