// The user-interrupt seam: the interrupts a card's user logic raises through its DMA IP (XDMA
// usr_irq_req, PG195 User Interrupts; QDMA usr_irq_in_vld, PG302 User Interrupt), waited for on
// the device's MSI/MSI-X eventfds. Implemented by dma_bridge (xdma_user_interrupts.hpp) and qdma
// (qdma_user_interrupts.hpp); used by the user_interrupts tool.
//
// Contract: enabling (each implementation's factory) routes every user interrupt to its vector
// and drains any count an earlier user left; wait() gives each route's interrupts since the last
// wait, in routes() order, or ETIMEDOUT when none came; one vector serves one route, so counts
// are never mixed. An IP with a user interrupt mask (maskable()) keeps a request made while
// masked pending (pending() shows it) and interrupts once unmasked; one without has nothing to
// mask or show. The implementation's destructor leaves the IP's enables as it found them.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace streams {

struct UserInterruptRoute {
    unsigned irq = 0;     // the user logic's interrupt: XDMA usr_irq_req bit; QDMA usr_irq_in_vec
    unsigned vector = 0;  // the MSI/MSI-X vector of the function it is counted on
};

class UserInterrupts {
public:
    virtual ~UserInterrupts() = default;
    virtual const std::vector<UserInterruptRoute>& routes() const = 0;
    virtual pdt::Result<std::vector<uint64_t>> wait(std::chrono::milliseconds timeout) = 0;

    // The IP's own mask of user interrupts, where it has one.
    virtual bool maskable() const { return false; }
    virtual void disable() {}                         // every route masked
    virtual pdt::Result<void> unmask() { return {}; }  // every route enabled again
    // The requests held pending, a bit per irq; nullopt where the IP shows none.
    virtual std::optional<uint32_t> pending() const { return std::nullopt; }
};

// The checks every implementation makes before enabling: at least one route, no irq twice, each
// vector among the `vectors` the function enabled (0 to vectors - 1: EINVAL, a failure: the
// device lacks it) and its own (a usage error: counts on a shared vector could not be told apart).
inline pdt::Result<void> check_user_interrupt_routes(const std::vector<UserInterruptRoute>& routes, unsigned vectors,
                                                     const std::string& bdf) {
    if (routes.empty())
        return pdt::usage_error("enable user interrupts", bdf, "no user interrupt named");
    std::set<unsigned> irqs, used;
    for (const UserInterruptRoute& r : routes) {
        const std::string what = "enable user interrupt " + std::to_string(r.irq);
        const std::string vector = bdf + " MSI vector " + std::to_string(r.vector);
        if (r.vector >= vectors)
            return pdt::make_error(what, vector, EINVAL,
                                   "the vector does not exist: the device enabled " + std::to_string(vectors) +
                                       " MSI vectors (0 to " + std::to_string(vectors - 1) + ")");
        if (!irqs.insert(r.irq).second)
            return pdt::usage_error(what, bdf, "named twice");
        if (!used.insert(r.vector).second)
            return pdt::usage_error(what, vector, "another user interrupt has this vector: their counts could not be told apart");
    }
    return {};
}

}  // namespace streams
