// The XDMA model's user interrupts (PG195 "User Interrupts" and the IRQ Block registers 0x04-0x0C,
// 0x40, 0x48, 0x80-0x8C): the user logic's usr_irq_req lines, held until the IP acknowledges.
#include <cerrno>

#include "xdma_internal.hpp"

namespace sim {
namespace xdma_impl {

// Every held request whose User Interrupt Enable Mask bit is set sends the MSI of its User Vector
// Number field, and the ack lets the user logic drop it; a masked one stays held (pending).
void Impl::update_user_interrupts() {
    if (!config.interrupts)
        return;
    for (unsigned irq = 0; irq < config.user_interrupts && irq < 32; ++irq) {
        const uint32_t bit = 1u << irq;
        const bool enabled = (user_irq_enable_mask & bit) != 0 || user_irq_lie == UserIrqLie::IgnoresMask;
        if (!(user_irq_req & bit) || !enabled)
            continue;
        const unsigned vector = (user_vector[irq / 4] >> ((irq % 4) * 8)) & 0x1F;
        if (user_irq_lie != UserIrqLie::Drops)
            device.raise_msi(vector);
        if (user_irq_lie == UserIrqLie::Doubles)
            device.raise_msi(vector);
        user_irq_req &= ~bit;  // usr_irq_ack: the user logic drops usr_irq_req
    }
}

}  // namespace xdma_impl

pdt::Result<void> XdmaModel::request_user_interrupt(unsigned irq) {
    std::lock_guard lock(m_impl->mutex);
    const std::string what = "request user interrupt " + std::to_string(irq);
    if (!m_impl->config.interrupts)
        return pdt::make_error(what, "XDMA model", ENOTSUP, "the IP was built without interrupts");
    if (irq >= m_impl->config.user_interrupts || irq >= 32)
        return pdt::make_error(what, "XDMA model", EINVAL,
                               "usr_irq_req has " + std::to_string(m_impl->config.user_interrupts) + " lines");
    m_impl->user_irq_req |= 1u << irq;
    m_impl->update_user_interrupts();
    return {};
}

void XdmaModel::set_user_irq_lie(UserIrqLie lie) {
    std::lock_guard lock(m_impl->mutex);
    m_impl->user_irq_lie = lie;
}

}  // namespace sim
