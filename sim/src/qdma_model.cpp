// QDMA model (sim/qdma_model.hpp): the identification registers, the CSR frame as a block of the
// BAR, construction, the engine thread or stepping, card memory, faults and the lie.
#include "sim/qdma_model.hpp"

#include <map>

#include "qdma_internal.hpp"

namespace sim {

std::shared_ptr<RegisterFileBlock> make_qdma_csr_block(const designs::QdmaSimulation& caps, uint32_t axi_lite_bar_mask) {
    using namespace qdma_csr;
    // QDMA_GLBL2_PF_BARLITE_INT: 6 bits a PF, PF0 lowest.
    uint32_t pf_barlite = 0;
    for (unsigned pf = 0; pf < caps.physical_functions && pf < 4; ++pf)
        pf_barlite |= (axi_lite_bar_mask & 0x3fu) << (6 * pf);
    // QDMA_GLBL2_CHANNEL_MDMA: one engine a direction for each kind the IP has.
    uint32_t channel_mdma = 0;
    if (caps.stream)
        channel_mdma |= 1u << 17 | 1u << 16;  // C2H_ST, H2C_ST
    if (caps.memory_mapped)
        channel_mdma |= 1u << 8 | 1u << 0;  // C2H_ENG, H2C_ENG
    // QDMA_GLBL2_MISC_CAP: soft IP (0), Vivado release 2, EQDMA 5.0 (2), RTL base (0); debug
    // mode off, internal and bypass descriptor engines (0), FLR present, no mailbox.
    const uint32_t misc_cap = 0u << 28 | 2u << 24 | 2u << 20 | 0u << 16 | 0u << 4 | 0u << 2 | 1u << 1 | 0u;
    std::map<uint64_t, RegisterFileBlock::Register> registers = {
        {CONFIG_BLOCK_ID, {QDMA_IDENTIFIER << 16, 0}},
        {GLBL2_PF_BARLITE_INT, {pf_barlite, 0}},
        {GLBL2_CHANNEL_MDMA, {channel_mdma, 0}},
        {GLBL2_CHANNEL_QDMA_CAP, {caps.queues & 0xfffu, 0}},
        {GLBL2_MISC_CAP, {misc_cap, 0}},
    };
    return std::make_shared<RegisterFileBlock>(std::move(registers));
}

namespace qdma_impl {

Impl::Impl(SimDevice& dev, QdmaConfig cfg)
    : device(dev), config(cfg), identification(make_qdma_csr_block(cfg.caps, cfg.axi_lite_bar_mask)) {}

void Impl::engine_thread() {
    std::unique_lock lock(mutex);
    while (!stopping) {
        const uint64_t seen = generation;
        if (step_locked() > 0) {
            lock.unlock();  // let register accesses in between rounds
            std::this_thread::yield();
            lock.lock();
            continue;
        }
        cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return stopping || generation != seen; });
    }
}

}  // namespace qdma_impl

template class DmaModel<qdma_impl::Impl, QdmaConfig>;

std::shared_ptr<QdmaModel> QdmaModel::attach(SimDevice& device, SimBar& bar, QdmaConfig config) {
    std::shared_ptr<QdmaModel> model(new QdmaModel(device, config));
    device.set_user_interrupt_model(model);
    // The CSR frame: 32-bit registers; a 64-bit access is two 32-bit ones.
    return attach_model(device, bar, 0, qdma_csr::kFrameSize, /*both_halves=*/true, model, model->m_impl);
}

void QdmaModel::inject(QdmaQueueKind kind, unsigned qid, QdmaFault fault) {
    {
        std::lock_guard lock(m_impl->mutex);
        (kind == QdmaQueueKind::C2H ? m_impl->c2h : m_impl->h2c)[qid].faults.push_back(fault);
    }
    m_impl->notify();
}

size_t QdmaModel::faults_pending(QdmaQueueKind kind, unsigned qid) const {
    std::lock_guard lock(m_impl->mutex);
    const auto& queues = kind == QdmaQueueKind::C2H ? m_impl->c2h : m_impl->h2c;
    auto it = queues.find(qid);
    return it == queues.end() ? 0 : it->second.faults.size();
}

void QdmaModel::set_ignores_stop() {
    std::lock_guard lock(m_impl->mutex);
    m_impl->config.ignores_stop = true;
}

void QdmaModel::set_context_read_lie(QdmaContextReadLie lie) {
    std::lock_guard lock(m_impl->mutex);
    m_impl->config.context_read_lie = lie;
}

uint64_t QdmaModel::processed(QdmaQueueKind kind, unsigned qid) const {
    std::lock_guard lock(m_impl->mutex);
    const auto& queues = kind == QdmaQueueKind::C2H ? m_impl->c2h : m_impl->h2c;
    auto it = queues.find(qid);
    return it == queues.end() ? 0 : it->second.processed;
}

uint64_t QdmaModel::loopback_pending_bytes(unsigned qid) const {
    std::lock_guard lock(m_impl->mutex);
    auto it = m_impl->loopback_bytes.find(qid);
    return it == m_impl->loopback_bytes.end() ? 0 : it->second;
}

}  // namespace sim
