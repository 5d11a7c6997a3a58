// The run of user_interrupts (user_interrupts.cpp): the user logic's interrupts waited for on
// their MSI eventfds, counted and timed, and the verdict on the counts.
//
// On a simulated design (`raise` set: the model's user logic, SimDevice::request_user_interrupt)
// every event has a request: first, where the IP has a user interrupt mask (XDMA), a masked
// request is checked to stay pending with no message and to interrupt once unmasked (PG195), then each IRQ is requested `count` times, one at a
// time, each timed from its request to its eventfd; then no further event may come within
// kQuietWatch. PASS only when each IRQ had exactly one event per request. On hardware the user
// logic requests when it will: the run waits for `count` events of each IRQ, timing the
// intervals between them; a timeout fails naming the IRQs short of their count.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "streams/user_interrupts.hpp"

namespace user_interrupt_watch {

// How long the run watches for an event that must not come.
inline constexpr std::chrono::milliseconds kQuietWatch{50};

struct Plan {
    uint64_t count = 1;                       // events of each IRQ
    std::chrono::milliseconds timeout{1000};  // the most to wait for each event
    std::function<pdt::Result<void>(unsigned irq)> raise;  // simulated: the user logic; empty on hardware
};

// Microseconds between two moments, over the events of one IRQ.
struct Timing {
    uint64_t samples = 0;
    double min_us = 0, max_us = 0, total_us = 0;
    void add(std::chrono::steady_clock::duration elapsed);
    double mean_us() const { return samples ? total_us / static_cast<double>(samples) : 0; }
};

struct IrqCount {
    streams::UserInterruptRoute route;
    uint64_t events = 0;    // interrupts counted on its vector
    uint64_t requests = 0;  // requests made (simulated designs only)
    Timing timing;          // latency from request (simulated; the masked one's from its unmask),
                            // else the interval between events
};

struct Outcome {
    std::vector<IrqCount> irqs;
    bool requested = false;        // simulated: the events had requests, timings are latencies
    std::string mask_check;        // simulated, maskable IP: what the masked request did; else empty
    std::optional<std::string> failure;  // nullopt: PASS
    uint64_t events() const;
};

// Waits for (and on a simulated design raises) the events of every route of `irqs`.
Outcome watch(streams::UserInterrupts& irqs, const Plan& plan);

}  // namespace user_interrupt_watch
