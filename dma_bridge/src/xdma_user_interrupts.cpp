// User interrupts through the IRQ block (xdma_user_interrupts.hpp).
#include "dma_bridge/xdma_user_interrupts.hpp"

#include <algorithm>
#include <cerrno>
#include <string>

#include "base/format.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "dma_bridge/xdma_registers.hpp"
#include "vfio_access/irq_wait.hpp"

namespace xdma {
namespace {

uint32_t irq_register(uint32_t reg) { return static_cast<uint32_t>(block_offset(target::IRQ_BLOCK)) + reg; }

// User Vector Number register of `irq` and the shift of its 5-bit field (PG195 IRQ Block User
// Vector Number, 0x80-0x8C: user interrupts 4k..4k+3 in bits [4:0], [12:8], [20:16], [28:24]).
uint32_t vector_register(unsigned irq) { return irq_register(irq_reg::USER_VECTOR_NUMBER) + (irq / 4) * 4; }
unsigned vector_shift(unsigned irq) { return (irq % 4) * 8; }

}  // namespace

UserInterrupts::UserInterrupts(vfio::Device& device, vfio::RegisterWindow regs, std::vector<UserInterruptRoute> routes)
    : m_device(device), m_regs(std::move(regs)), m_routes(std::move(routes)) {}

pdt::Result<std::unique_ptr<UserInterrupts>> UserInterrupts::enable(vfio::Device& device, unsigned bar,
                                                                    uint64_t register_offset,
                                                                    std::vector<UserInterruptRoute> routes) {
    const std::string bdf = device.identity().address.to_string();
    const unsigned vectors = PDT_TRY(enable_msi(device));
    for (const UserInterruptRoute& r : routes)
        if (r.irq >= kMaxUserInterrupts)
            return pdt::usage_error("enable user interrupt " + std::to_string(r.irq), bdf,
                                    "PG195's usr_irq_req has at most 16 bits (0 to 15)");
    PDT_CHECK(streams::check_user_interrupt_routes(routes, std::min(vectors, kMaxUserVector + 1), bdf));
    vfio::RegisterWindow regs = PDT_TRY(dma_registers(device, bar, register_offset));
    PDT_CHECK(check_block(regs, target::IRQ_BLOCK));
    std::unique_ptr<UserInterrupts> irqs(new UserInterrupts(device, std::move(regs), std::move(routes)));
    for (const UserInterruptRoute& r : irqs->m_routes)
        PDT_CHECK(irqs->route(r));
    PDT_CHECK(irqs->unmask());
    return irqs;
}

// PG195 "IRQ Block User Vector Number" then "IRQ Block User Interrupt Enable Mask (0x08, W1S)".
pdt::Result<void> UserInterrupts::route(const UserInterruptRoute& r) {
    const std::string what = "enable user interrupt " + std::to_string(r.irq);
    const std::string bdf = m_device.identity().address.to_string();
    const uint32_t reg = vector_register(r.irq), field = 0x1Fu << vector_shift(r.irq);
    const uint32_t value = (m_regs.read32(reg) & ~field) | r.vector << vector_shift(r.irq);
    m_regs.write32(reg, value);
    if (const uint32_t back = m_regs.read32(reg); (back & field) != (value & field))
        return pdt::make_error(what, bdf + " User Vector Number " + pdt::hex(reg), EIO,
                               "wrote " + pdt::hex(value) + ", read back " + pdt::hex(back) +
                                   ": the IP has no interrupt path or no such user interrupt");
    PDT_TRY(m_device.irq_poll(r.vector));  // an earlier user's count is not this run's
    return {};
}

pdt::Result<void> UserInterrupts::unmask() {
    for (const UserInterruptRoute& r : m_routes) {
        const uint32_t bit = 1u << r.irq;
        m_regs.write32(irq_register(irq_reg::USER_INTERRUPT_ENABLE_MASK_W1S), bit);
        if (!(enable_mask() & bit))
            return pdt::make_error("enable user interrupt " + std::to_string(r.irq),
                                   m_device.identity().address.to_string() + " User Interrupt Enable Mask", EINVAL,
                                   "its bit reads back 0: the IP has fewer user interrupts (NUM_USR_INT) or no "
                                   "interrupt path");
        m_enabled |= bit;
    }
    return {};
}

UserInterrupts::~UserInterrupts() { disable(); }

void UserInterrupts::disable() {
    if (m_enabled)
        m_regs.write32(irq_register(irq_reg::USER_INTERRUPT_ENABLE_MASK_W1C), m_enabled);
    m_enabled = 0;
}

pdt::Result<std::vector<uint64_t>> UserInterrupts::wait(std::chrono::milliseconds timeout) {
    std::vector<unsigned> vectors;
    for (const UserInterruptRoute& r : m_routes)
        vectors.push_back(r.vector);
    return vfio::irq_wait_any(m_device, vectors, timeout);
}

std::optional<uint32_t> UserInterrupts::pending() const {
    return m_regs.read32(irq_register(irq_reg::USER_INTERRUPT_PENDING));
}

uint32_t UserInterrupts::enable_mask() const {
    return m_regs.read32(irq_register(irq_reg::USER_INTERRUPT_ENABLE_MASK));
}

}  // namespace xdma
