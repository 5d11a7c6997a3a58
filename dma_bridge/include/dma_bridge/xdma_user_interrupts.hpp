// The user logic's interrupts through an XDMA IP (PG195 "User Interrupts" and "IRQ Block
// Registers (0x2)"), waited for from user space on the device's MSI eventfds: what the xdma
// kernel module's /dev/xdma0_events_N give, without the module.
//
// The IP has NUM_USR_INT (1 to 16) user interrupts, usr_irq_req[n]. Each is routed to an MSI
// vector by its 5-bit field in the User Vector Number registers (0x80-0x8C, four fields a
// register, irq n in bits [8(n%4)+4 : 8(n%4)] of register n/4) and enabled by its bit in the
// User Interrupt Enable Mask (0x04, set with W1S 0x08, cleared with W1C 0x0C). A request whose
// bit is enabled sends its vector's MSI; a masked one stays pending (User Interrupt Pending 0x48)
// with no message, and interrupts once the mask enables it.
//
//   auto irqs = PDT_TRY(xdma::UserInterrupts::enable(device, bar, 0, {{.irq = 0, .vector = 0}}));
//   auto events = PDT_TRY(irqs->wait(std::chrono::seconds(1)));  // events[i]: routes()[i]'s count
//   // irqs going out of scope clears the enable bits it set.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/result.hpp"
#include "streams/user_interrupts.hpp"
#include "vfio_access/device.hpp"

namespace xdma {

// PG195: usr_irq_req is at most 16 bits wide; a User Vector Number field holds 0 to 31.
inline constexpr unsigned kMaxUserInterrupts = 16;
inline constexpr unsigned kMaxUserVector = 31;

using UserInterruptRoute = streams::UserInterruptRoute;  // irq: the usr_irq_req bit

class UserInterrupts : public streams::UserInterrupts {
public:
    // PG195 "User Interrupts": MSI (else MSI-X) enabled on the device (enable_msi); each route's
    // vector must exist there (EINVAL names those enabled) and be its own (two IRQs on one vector
    // could not be counted apart). Each route's User Vector Number field is written and read
    // back and its eventfd drained of any earlier count; then every route's User Interrupt Enable
    // Mask bit is set (unmask: W1S) and read back: a bit that does not stick is an IRQ the IP does not have (EINVAL).
    // `bar` and `register_offset`: where the DMA register space is (dma_registers).
    static pdt::Result<std::unique_ptr<UserInterrupts>> enable(vfio::Device& device, unsigned bar,
                                                               uint64_t register_offset,
                                                               std::vector<UserInterruptRoute> routes);
    ~UserInterrupts() override;
    UserInterrupts(const UserInterrupts&) = delete;
    UserInterrupts& operator=(const UserInterrupts&) = delete;

    const std::vector<UserInterruptRoute>& routes() const override { return m_routes; }
    // Waits up to `timeout` for any route's vector to signal; each route's interrupts since the
    // last wait (routes() order). ETIMEDOUT when none came.
    pdt::Result<std::vector<uint64_t>> wait(std::chrono::milliseconds timeout) override;
    bool maskable() const override { return true; }
    // Clears the enable bits this set (W1C); a request after it stays pending. Idempotent.
    void disable() override;
    // Sets every route's User Interrupt Enable Mask bit again (W1S, read back); a request held
    // meanwhile interrupts now (PG195).
    pdt::Result<void> unmask() override;
    std::optional<uint32_t> pending() const override;  // User Interrupt Pending (0x48)
    uint32_t enable_mask() const;                       // User Interrupt Enable Mask (0x04)

private:
    UserInterrupts(vfio::Device& device, vfio::RegisterWindow regs, std::vector<UserInterruptRoute> routes);
    pdt::Result<void> route(const UserInterruptRoute& route);  // its vector field and eventfd

    vfio::Device& m_device;
    vfio::RegisterWindow m_regs;
    std::vector<UserInterruptRoute> m_routes;
    uint32_t m_enabled = 0;  // enable bits this set
};

}  // namespace xdma
