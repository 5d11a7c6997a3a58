// One queue: rings, contexts in PG302's order, doorbells, polled completion.
#include "qdma/qdma_queue.hpp"
#include "base/format.hpp"
#include "qdma/qdma_registers.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace qdma {

using pdt::hex;

namespace {

uint32_t u(CtxtSel s) { return static_cast<uint32_t>(s); }
uint32_t u(CtxtOp o) { return static_cast<uint32_t>(o); }

uint64_t load64(const uint8_t* p) {
    std::atomic_thread_fence(std::memory_order_acquire);
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

}  // namespace

pdt::Result<std::unique_ptr<Queue>> Queue::open(Function& function, const QueueOptions& options) {
    auto queue = std::unique_ptr<Queue>(new Queue(function, options));
    const Capabilities& caps = function.capabilities();
    const bool h2c = options.direction == QueueDirection::H2C;
    const bool mm = options.kind == QueueKind::MemoryMapped;
    auto refuse = [&](const std::string& why) { return pdt::make_error("open queue", queue->name(), ENODEV, why); };
    if (mm && (h2c ? caps.h2c_mm_engines : caps.c2h_mm_engines) == 0)
        return refuse(std::string("QDMA_GLBL2_CHANNEL_MDMA reports no ") + (h2c ? "H2C_ENG" : "C2H_ENG"));
    if (!mm && !(h2c ? caps.h2c_st : caps.c2h_st))
        return refuse(std::string("QDMA_GLBL2_CHANNEL_MDMA reports no ") + (h2c ? "H2C_ST" : "C2H_ST"));
    queue->m_hw_qid = PDT_TRY(function.physical_qid(options.qid));
    queue->m_rngsz_idx = PDT_TRY(function.ring_size_index(options.ring_entries));
    queue->m_slots = options.ring_entries - 1;
    queue->m_desc_bytes = mm ? 32 : h2c ? 16 : 8;
    if (!mm && !h2c) {
        queue->m_cmpt_idx = PDT_TRY(function.ring_size_index(options.completion_entries));
        queue->m_bufsz_idx = PDT_TRY(function.c2h_buffer_size_index(options.c2h_buffer_bytes));
        queue->m_cmpt_slots = options.completion_entries - 1;
    }
    if (!queue->m_options.warn)
        queue->m_options.warn = [](const std::string& line) { std::fprintf(stderr, "warning: %s\n", line.c_str()); };
    PDT_CHECK(queue->allocate());
    PDT_CHECK(queue->set_up());
    return queue;
}

Queue::~Queue() {
    if (!m_set_up)
        return;
    if (auto torn = tear_down(); !torn && m_claim.held())
        m_claim.abandon("the queue's tear-down failed (" + torn.error().message() + ")");
}

std::string Queue::name() const {
    return m_function.name() + " " + to_string(m_options.direction) +
           (m_options.kind == QueueKind::MemoryMapped ? " MM" : " ST") + " queue " + std::to_string(m_options.qid);
}

uint32_t Queue::sel_sw() const {
    return u(m_options.direction == QueueDirection::H2C ? CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C
                                                        : CtxtSel::QDMA_CTXT_SELC_DEC_SW_C2H);
}

pdt::Result<void> Queue::allocate() {
    vfio::DmaRegion::Options ring;
    ring.access = vfio::DmaAccess::DeviceReadWrite;  // descriptors read, status descriptor written
    ring.dma_mask_bits = m_options.dma_mask_bits;
    m_ring = PDT_TRY(vfio::DmaRegion::allocate(m_function.device(), uint64_t{m_options.ring_entries} * m_desc_bytes, ring));
    if (m_cmpt_slots > 0)  // 8-byte completion entries (C2H_COMPLETION_SIZE 00)
        m_cmpt_ring = PDT_TRY(vfio::DmaRegion::allocate(m_function.device(), uint64_t{m_options.completion_entries} * 8, ring));
    return {};
}

// PG302 "Queue Setup" (and "Context Programming" for each command).
pdt::Result<void> Queue::set_up() {
    const bool h2c = m_options.direction == QueueDirection::H2C;
    const bool c2h_st = !h2c && m_options.kind == QueueKind::Stream;
    // A queue left enabled by an earlier process: reported, then invalidated before reuse.
    const SoftwareContext found = SoftwareContext::decode(PDT_TRY(m_function.context_read(m_hw_qid, sel_sw())));
    if (found.qen) {
        m_options.warn(name() + " (physical qid " + std::to_string(m_hw_qid) + ", function " +
                       std::to_string(found.fnc_id) + ") was left enabled (software context qen set) by an " +
                       "earlier user; invalidating it before reuse");
        PDT_CHECK(m_function.context_command(m_hw_qid, sel_sw(), u(CtxtOp::QDMA_CTXT_INV)));
    }
    std::memset(m_ring.data(), 0, m_ring.size());
    if (c2h_st)
        std::memset(m_cmpt_ring.data(), 0, m_cmpt_ring.size());
    // Clear Descriptor Software, Hardware and Credit Contexts.
    PDT_CHECK(m_function.context_command(m_hw_qid, sel_sw(), u(CtxtOp::QDMA_CTXT_CLR)));
    PDT_CHECK(m_function.context_command(
        m_hw_qid, u(h2c ? CtxtSel::QDMA_CTXT_SELC_DEC_HW_H2C : CtxtSel::QDMA_CTXT_SELC_DEC_HW_C2H), u(CtxtOp::QDMA_CTXT_CLR)));
    PDT_CHECK(m_function.context_command(
        m_hw_qid, u(h2c ? CtxtSel::QDMA_CTXT_SELC_DEC_CR_H2C : CtxtSel::QDMA_CTXT_SELC_DEC_CR_C2H), u(CtxtOp::QDMA_CTXT_CLR)));
    // Set-up Descriptor Software Context.
    SoftwareContext sw;
    sw.fnc_id = static_cast<uint16_t>(m_function.options().function);
    sw.qen = true;
    sw.wbi_chk = !c2h_st;  // a status writeback when the queue runs out of descriptors
    sw.wbk_en = !c2h_st;   // status descriptor writebacks (not used by C2H stream queues)
    sw.rngsz_idx = static_cast<uint8_t>(m_rngsz_idx);
    sw.dsc_sz = m_desc_bytes == 32 ? DscSz::Bytes32 : m_desc_bytes == 16 ? DscSz::Bytes16 : DscSz::Bytes8;
    sw.is_mm = m_options.kind == QueueKind::MemoryMapped;
    sw.dsc_base = m_ring.iova();
    if (m_options.interrupt_ring) {
        sw.irq_en = true;
        sw.int_aggr = true;
        sw.vec = static_cast<uint16_t>(*m_options.interrupt_ring);
    }
    m_written.clear();
    PDT_CHECK(write_context(sel_sw(), sw.encode()));
    if (c2h_st)
        PDT_CHECK(set_up_c2h_stream(sw.fnc_id));
    m_pidx = m_cidx = m_outstanding = m_cmpt_cidx = 0;
    m_color = true;
    m_error.reset();
    m_set_up = true;
    return {};
}

// C2H stream queues, after the software context (PG302 "Queue Setup", continued).
pdt::Result<void> Queue::set_up_c2h_stream(uint16_t fnc_id) {
    // Clear Prefetch Context; Clear Completion Context; Set-up Completion Context.
    PDT_CHECK(m_function.context_command(m_hw_qid, u(CtxtSel::QDMA_CTXT_SELC_PFTCH), u(CtxtOp::QDMA_CTXT_CLR)));
    PDT_CHECK(m_function.context_command(m_hw_qid, u(CtxtSel::QDMA_CTXT_SELC_WRB), u(CtxtOp::QDMA_CTXT_CLR)));
    CompletionContext cmpt;
    cmpt.en_stat_desc = true;
    cmpt.trig_mode = TriggerMode::Every;
    cmpt.fnc_id = fnc_id;
    cmpt.color = true;
    cmpt.qsize_idx = static_cast<uint8_t>(m_cmpt_idx);
    cmpt.baddr = m_cmpt_ring.iova();
    cmpt.desc_size = 0;
    cmpt.valid = true;
    cmpt.dir_c2h = true;
    PDT_CHECK(write_context(u(CtxtSel::QDMA_CTXT_SELC_WRB), cmpt.encode()));
    // The initial Completion CIDX update arms status writes (out of reset the hardware is unarmed).
    m_function.doorbell(m_options.qid, QDMA_DMAP_SEL_CMPT_CIDX, cmpt_cidx(0, TriggerMode::Every, true, false));
    // Set-up Prefetch Context.
    PrefetchContext pfch;
    pfch.bufsz_idx = static_cast<uint8_t>(m_bufsz_idx);
    pfch.valid = true;
    PDT_CHECK(write_context(u(CtxtSel::QDMA_CTXT_SELC_PFTCH), pfch.encode()));
    return {};
}

// A context command QDMA_CTXT_WR, kept for written_contexts().
pdt::Result<void> Queue::write_context(uint32_t sel, const std::array<uint32_t, 8>& words) {
    PDT_CHECK(m_function.context_command(m_hw_qid, sel, u(CtxtOp::QDMA_CTXT_WR), &words));
    m_written.push_back({sel, words});
    return {};
}

RingView Queue::descriptor_ring() const {
    return {m_ring.data(), m_options.ring_entries, m_desc_bytes, m_ring.iova(), m_pidx, m_cidx};
}

RingView Queue::completion_ring() const {
    if (m_cmpt_slots == 0)
        return {};
    // PIDX: the completion ring's status descriptor's, as the IP last wrote it.
    const CompletionStatus status = CompletionStatus::decode(load64(m_cmpt_ring.data() + uint64_t{m_cmpt_slots} * 8));
    return {m_cmpt_ring.data(), m_options.completion_entries, 8, m_cmpt_ring.iova(), status.pidx, m_cmpt_cidx};
}

// PG302 "Queue Teardown". C2H stream: invalidate/clear the prefetch context, the completion
// context, the descriptor software context, and invalidate the timer context (it has no clear).
// H2C stream and MM: invalidate/clear the descriptor software context. (The marker packet PG302
// sends first on C2H stream queues to drain the pipeline is not sent: qdma/README.md, Gaps.)
pdt::Result<void> Queue::tear_down() {
    m_set_up = false;
    if (m_cmpt_slots > 0) {
        PDT_CHECK(m_function.context_command(m_hw_qid, u(CtxtSel::QDMA_CTXT_SELC_PFTCH), u(CtxtOp::QDMA_CTXT_CLR)));
        PDT_CHECK(m_function.context_command(m_hw_qid, u(CtxtSel::QDMA_CTXT_SELC_WRB), u(CtxtOp::QDMA_CTXT_CLR)));
    }
    PDT_CHECK(m_function.context_command(m_hw_qid, sel_sw(), u(CtxtOp::QDMA_CTXT_INV)));
    PDT_CHECK(m_function.context_command(m_hw_qid, sel_sw(), u(CtxtOp::QDMA_CTXT_CLR)));
    if (m_cmpt_slots > 0)
        PDT_CHECK(m_function.context_command(m_hw_qid, u(CtxtSel::QDMA_CTXT_SELC_TIMER), u(CtxtOp::QDMA_CTXT_INV)));
    m_claim.proven();  // invalidated (PG302 Queue Teardown): the queue fetches and writes nothing more
    return {};
}

pdt::Result<void> Queue::restart() {
    if (m_set_up)
        (void)tear_down();  // a refused tear-down is seen again by set_up's commands
    return set_up();
}

pdt::Error Queue::fail(const std::string& why) {
    m_error = pdt::make_error("complete descriptors on", name(), EIO, why);
    return *m_error;
}

pdt::Result<void> Queue::check_post(std::optional<uint32_t> length, uint64_t max_length, const char* bound) const {
    if (m_error)
        return *m_error;
    if (length && (*length == 0 || *length > max_length))
        return pdt::make_error("post descriptor on", name(), EINVAL, "length " + hex(*length) + ": " + bound);
    if (m_outstanding >= capacity())
        return pdt::make_error("post descriptor on", name(), EBUSY, "the ring is full");
    return {};
}

void Queue::write_descriptor(const void* descriptor, size_t bytes) {
    std::memcpy(m_ring.data() + uint64_t{m_pidx} * m_desc_bytes, descriptor, bytes);
    m_pidx = (m_pidx + 1) % m_slots;
    ++m_outstanding;
}

pdt::Result<void> Queue::post_mm(uint64_t src_addr, uint64_t dst_addr, uint32_t length) {
    PDT_CHECK(check_post(length, kMmMaxLength, "the MM descriptor's lengthInByte holds 1..64K-1"));
    const MmDescriptor d = mm_descriptor(src_addr, dst_addr, length);
    write_descriptor(&d, sizeof d);
    return {};
}

pdt::Result<void> Queue::post_h2c_stream(uint64_t addr, uint32_t length) {
    PDT_CHECK(check_post(length, kH2cStreamMaxLength, "the H2C stream descriptor's len holds 1..64K-1 (one packet)"));
    H2cStreamDescriptor d;
    d.len = static_cast<uint16_t>(length);
    d.addr = addr;
    write_descriptor(&d, sizeof d);
    return {};
}

pdt::Result<void> Queue::post_c2h_stream(uint64_t addr) {
    PDT_CHECK(check_post(std::nullopt, 0, ""));
    const C2hStreamDescriptor d{addr};
    write_descriptor(&d, sizeof d);
    return {};
}

void Queue::commit() {
    if (m_outstanding > 0 && !m_claim.held())
        m_claim = m_function.device().dma_fence().claim(name());
    std::atomic_thread_fence(std::memory_order_release);
    m_function.doorbell(m_options.qid,
                        m_options.direction == QueueDirection::H2C ? QDMA_DMAP_SEL_H2C_DSC_PIDX : QDMA_DMAP_SEL_C2H_DSC_PIDX,
                        m_pidx | (m_options.interrupt_ring ? DSC_PIDX_IRQ_ARM : 0));
}

void Queue::arm() {
    m_function.doorbell(m_options.qid,
                        m_options.direction == QueueDirection::H2C ? QDMA_DMAP_SEL_H2C_DSC_PIDX : QDMA_DMAP_SEL_C2H_DSC_PIDX,
                        m_pidx | DSC_PIDX_IRQ_ARM);
}

uint64_t Queue::status_raw() const { return load64(m_ring.data() + uint64_t{m_slots} * m_desc_bytes); }

pdt::Result<uint32_t> Queue::reap() {
    if (m_error)
        return *m_error;
    const WritebackStatus status = WritebackStatus::decode(status_raw());
    if (status.err != 0)
        return fail("the status descriptor reports err " + std::to_string(status.err) +
                    ((status.err & 2) ? " (descriptor fetch error)" : "") + ((status.err & 1) ? " (DMA error)" : "") +
                    " at cidx " + std::to_string(status.cidx) + "; QDMA_GLBL_ERR_STAT " +
                    hex(m_function.registers().read32(QDMA_GLBL_ERR_STAT)));
    if (status.cidx >= m_slots)
        return fail("the status descriptor's cidx " + std::to_string(status.cidx) + " is past the ring's " +
                    std::to_string(m_slots) + " descriptors");
    const uint32_t done = (status.cidx + m_slots - m_cidx) % m_slots;
    if (done > m_outstanding)
        return fail("the status descriptor's cidx " + std::to_string(status.cidx) + " moved " + std::to_string(done) +
                    " descriptors, but only " + std::to_string(m_outstanding) + " were outstanding from cidx " +
                    std::to_string(m_cidx));
    m_cidx = status.cidx;
    m_outstanding -= done;
    if (m_outstanding == 0)
        m_claim.proven();  // every descriptor posted reported complete
    return done;
}

pdt::Result<std::optional<Packet>> Queue::next_packet() {
    if (m_error)
        return *m_error;
    const uint64_t raw = load64(m_cmpt_ring.data() + uint64_t{m_cmpt_cidx} * 8);
    const CompletionEntry entry = CompletionEntry::decode(raw);
    if (entry.color != m_color) {
        // No new entry: the completion ring's status descriptor may say why none will come.
        const CompletionStatus status = CompletionStatus::decode(load64(m_cmpt_ring.data() + uint64_t{m_cmpt_slots} * 8));
        if (status.error != 0)
            return fail("the completion ring's status descriptor reports error " + std::to_string(status.error) +
                        (status.error == 1 ? " (bad CIDX update)" : status.error == 2 ? " (descriptor error)"
                                                                                      : " (CMPT ring overflow)"));
        return std::optional<Packet>{};
    }
    if (entry.error)
        return fail("completion entry " + std::to_string(m_cmpt_cidx) + " has its error bit set (" + hex(raw) + ")");
    const uint32_t buffer = m_options.c2h_buffer_bytes;
    const uint32_t buffers = entry.length == 0 ? 1 : (entry.length + buffer - 1) / buffer;
    if (buffers > m_outstanding)
        return fail("completion entry " + std::to_string(m_cmpt_cidx) + " reports " + std::to_string(entry.length) +
                    " bytes, " + std::to_string(buffers) + " buffers, but only " + std::to_string(m_outstanding) +
                    " were posted");
    m_outstanding -= buffers;
    m_cidx = (m_cidx + buffers) % m_slots;
    if (++m_cmpt_cidx == m_cmpt_slots) {
        m_cmpt_cidx = 0;
        m_color = !m_color;
    }
    m_function.doorbell(m_options.qid, QDMA_DMAP_SEL_CMPT_CIDX, cmpt_cidx(m_cmpt_cidx, TriggerMode::Every, true, false));
    return std::optional<Packet>{Packet{entry.length, buffers}};
}

std::string Queue::describe_state() {
    std::string text = "pidx " + std::to_string(m_pidx) + ", cidx " + std::to_string(m_cidx) + ", " +
                       std::to_string(m_outstanding) + " outstanding";
    if (m_cmpt_slots == 0) {
        const WritebackStatus s = WritebackStatus::decode(status_raw());
        text += "; status descriptor cidx " + std::to_string(s.cidx) + " pidx " + std::to_string(s.pidx) + " err " +
                std::to_string(s.err);
    }
    const bool h2c = m_options.direction == QueueDirection::H2C;
    auto hw = m_function.context_read(
        m_hw_qid, u(h2c ? CtxtSel::QDMA_CTXT_SELC_DEC_HW_H2C : CtxtSel::QDMA_CTXT_SELC_DEC_HW_C2H));
    if (hw.ok()) {
        const HardwareContext c = HardwareContext::decode(hw.value());
        text += "; hardware context cidx " + std::to_string(c.cidx) + " dsc_pnd " + std::to_string(c.dsc_pnd) +
                " idl_stp_b " + std::to_string(c.idl_stp_b);
    }
    return text + "; QDMA_GLBL_ERR_STAT " + hex(m_function.registers().read32(QDMA_GLBL_ERR_STAT));
}

}  // namespace qdma
