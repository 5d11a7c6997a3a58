// The user logic's interrupts through a QDMA IP (PG302 "User Interrupt"), waited for on the
// function's MSI-X eventfds: the user logic raises usr_irq_in_vld naming the function
// (usr_irq_in_fnc) and the vector (usr_irq_in_vec) itself, and in direct interrupt mode the IP
// sends that MSI-X message of the function. The driver programs nothing in the IP for them: it
// enables the function's vectors and waits. So a route's vector is its irq (usr_irq_in_vec), and
// the IP has no user interrupt mask or pending register (streams::UserInterrupts::maskable false).
//
//   auto irqs = PDT_TRY(qdma::UserInterrupts::enable(device, {{.irq = 3, .vector = 3}}));
//   auto events = PDT_TRY(irqs->wait(std::chrono::seconds(1)));
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "base/result.hpp"
#include "streams/user_interrupts.hpp"
#include "vfio_access/device.hpp"

namespace qdma {

// PG302: usr_irq_in_vec is 11 bits wide.
inline constexpr unsigned kMaxUserVector = 2047;

class UserInterrupts : public streams::UserInterrupts {
public:
    // MSI-X (MSI where the function has none, as the simulated one) enabled with every vector the
    // function offers; each route's vector must be its irq (a usage error otherwise: the user
    // logic names the vector) and exist there (EINVAL); its eventfd drained of earlier counts.
    static pdt::Result<std::unique_ptr<UserInterrupts>> enable(vfio::Device& device,
                                                               std::vector<streams::UserInterruptRoute> routes);

    const std::vector<streams::UserInterruptRoute>& routes() const override { return m_routes; }
    pdt::Result<std::vector<uint64_t>> wait(std::chrono::milliseconds timeout) override;

private:
    UserInterrupts(vfio::Device& device, std::vector<streams::UserInterruptRoute> routes)
        : m_device(device), m_routes(std::move(routes)) {}
    vfio::Device& m_device;
    std::vector<streams::UserInterruptRoute> m_routes;
};

}  // namespace qdma
