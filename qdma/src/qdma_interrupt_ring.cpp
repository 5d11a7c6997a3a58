// The interrupt aggregation ring: context, MSI-X (or MSI) vector, entries by color, INT_CIDX.
#include "qdma/qdma_interrupt_ring.hpp"
#include "qdma/qdma_registers.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>

namespace qdma {
namespace {
constexpr uint32_t kEntries = 4096 / 8;  // page_size 0: 4 KiB
}

pdt::Result<std::unique_ptr<InterruptRing>> InterruptRing::open(Function& function, unsigned ring_index, unsigned vector) {
    if (ring_index > 255 || vector > 2047)
        return pdt::make_error("open interrupt aggregation ring", function.name(), EINVAL,
                               "ring " + std::to_string(ring_index) + " (0..255), vector " + std::to_string(vector) +
                                   " (Interrupt Context vec holds 11 bits)");
    vfio::Device& device = function.device();
    // MSI-X where the function has it; a device without (the simulated one) gives MSI vectors.
    const vfio::IrqInfo msix = PDT_TRY(device.irq_info(vfio::IrqIndex::Msix));
    PDT_CHECK(device.irq_enable(msix.count > vector ? vfio::IrqIndex::Msix : vfio::IrqIndex::Msi, vector + 1));
    auto ring = std::unique_ptr<InterruptRing>(new InterruptRing(function, ring_index, vector));
    ring->m_ring = PDT_TRY(vfio::DmaRegion::allocate(device, 4096, vfio::DmaAccess::DeviceWrite));
    std::memset(ring->m_ring.data(), 0, 4096);  // coal_color 0: nothing written yet
    InterruptContext context;
    context.valid = true;
    context.vec = static_cast<uint16_t>(vector);
    context.color = true;  // PG302: software initialises the context's color to 1
    context.baddr_4k = ring->m_ring.iova();
    context.page_size = 0;
    context.func = static_cast<uint16_t>(function.options().function);
    const ContextWords words = context.encode();
    const auto sel = static_cast<uint32_t>(CtxtSel::QDMA_CTXT_SELC_INT_COAL);
    PDT_CHECK(function.context_command(ring_index, sel, static_cast<uint32_t>(CtxtOp::QDMA_CTXT_CLR)));
    PDT_CHECK(function.context_command(ring_index, sel, static_cast<uint32_t>(CtxtOp::QDMA_CTXT_WR), &words));
    return ring;
}

InterruptRing::~InterruptRing() {
    (void)m_function.context_command(m_index, static_cast<uint32_t>(CtxtSel::QDMA_CTXT_SELC_INT_COAL),
                                     static_cast<uint32_t>(CtxtOp::QDMA_CTXT_CLR));
}

unsigned InterruptRing::drain() {
    unsigned read = 0;
    for (;;) {
        std::atomic_thread_fence(std::memory_order_acquire);
        uint64_t entry;
        std::memcpy(&entry, m_ring.data() + uint64_t{m_cidx} * 8, sizeof entry);
        if (((entry >> 63) != 0) != m_color)
            break;
        ++read;
        if (++m_cidx == kEntries) {
            m_cidx = 0;
            m_color = !m_color;
        }
    }
    return read;
}

pdt::Result<unsigned> InterruptRing::wait(std::chrono::milliseconds timeout) {
    auto fired = m_function.device().irq_wait(m_vector, timeout);
    if (!fired.ok() && fired.error().code != ETIMEDOUT)
        return fired.error();
    if (fired.ok())
        ++m_interrupts;
    const unsigned read = drain();
    // QDMA_DMAP_SEL_INT_CIDX of the function's queue 0: ring_idx [23:16], sw_cidx [15:0].
    m_function.doorbell(0, QDMA_DMAP_SEL_INT_CIDX, (m_index & 0xFF) << 16 | m_cidx);
    return read;
}

}  // namespace qdma
