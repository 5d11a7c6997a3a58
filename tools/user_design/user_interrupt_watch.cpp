// user_interrupts' run (user_interrupt_watch.hpp).
#include "user_interrupt_watch.hpp"

#include <algorithm>
#include <cerrno>

namespace user_interrupt_watch {
namespace {

using Clock = std::chrono::steady_clock;

std::string irq_name(const streams::UserInterruptRoute& r) {
    return "user interrupt " + std::to_string(r.irq) + " (MSI vector " + std::to_string(r.vector) + ")";
}

// One wait; the counts added to `out`. False on a timeout (or an error, kept in `error`).
bool wait_once(streams::UserInterrupts& irqs, std::chrono::milliseconds timeout, Outcome& out, std::string& error) {
    auto counts = irqs.wait(timeout);
    if (!counts) {
        if (counts.error().code != ETIMEDOUT)
            error = counts.error().message();
        return false;
    }
    for (size_t i = 0; i < counts->size(); ++i)
        out.irqs[i].events += (*counts)[i];
    return true;
}

// PG195: a masked request is pending with no message, and interrupts once the mask enables it.
std::optional<std::string> check_mask(streams::UserInterrupts& irqs, const Plan& plan, Outcome& out) {
    IrqCount& first = out.irqs.front();
    const uint32_t bit = 1u << first.route.irq;
    irqs.disable();
    if (auto raised = plan.raise(first.route.irq); !raised)
        return raised.error().message();
    ++first.requests;
    std::string error;
    if (wait_once(irqs, kQuietWatch, out, error))
        return "a masked request of " + irq_name(first.route) + " was delivered";
    if (!error.empty())
        return error;
    if (!(irqs.pending().value_or(0) & bit))
        return "a masked request of " + irq_name(first.route) + " is not in User Interrupt Pending";
    const Clock::time_point unmasked = Clock::now();
    if (auto unmask = irqs.unmask(); !unmask)
        return unmask.error().message();
    if (!wait_once(irqs, plan.timeout, out, error))
        return error.empty() ? "the held request of " + irq_name(first.route) + " sent nothing once unmasked" : error;
    first.timing.add(Clock::now() - unmasked);
    out.mask_check = "a masked request stayed pending with no message and interrupted once unmasked";
    return std::nullopt;
}

// Each IRQ requested plan.count times in all, one request at a time, each timed to its event.
std::optional<std::string> raise_each(streams::UserInterrupts& irqs, const Plan& plan, Outcome& out) {
    for (IrqCount& irq : out.irqs) {
        while (irq.requests < plan.count) {
            const Clock::time_point requested = Clock::now();
            if (auto raised = plan.raise(irq.route.irq); !raised)
                return raised.error().message();
            ++irq.requests;
            std::string error;
            if (!wait_once(irqs, plan.timeout, out, error))
                return error.empty() ? "no event of " + irq_name(irq.route) + " within " +
                                           std::to_string(plan.timeout.count()) + " ms of request " +
                                           std::to_string(irq.requests) + " of " + std::to_string(plan.count)
                                     : error;
            irq.timing.add(Clock::now() - requested);
        }
    }
    std::string error;
    while (wait_once(irqs, kQuietWatch, out, error)) {
    }  // events after the last request: counted, and judged below
    if (!error.empty())
        return error;
    for (const IrqCount& irq : out.irqs)
        if (irq.events != irq.requests)
            return std::to_string(irq.events) + " events of " + irq_name(irq.route) + " for " +
                   std::to_string(irq.requests) + " requests (one each expected)";
    return std::nullopt;
}

// Hardware: waits until every IRQ has plan.count events, timing the intervals between them.
std::optional<std::string> wait_for_counts(streams::UserInterrupts& irqs, const Plan& plan, Outcome& out) {
    std::vector<Clock::time_point> last(out.irqs.size(), Clock::now());
    auto short_of_count = [&] {
        return std::any_of(out.irqs.begin(), out.irqs.end(), [&](const IrqCount& c) { return c.events < plan.count; });
    };
    while (short_of_count()) {
        std::vector<uint64_t> before;
        for (const IrqCount& c : out.irqs)
            before.push_back(c.events);
        std::string error;
        if (!wait_once(irqs, plan.timeout, out, error)) {
            if (!error.empty())
                return error;
            std::string missing;
            for (const IrqCount& c : out.irqs)
                if (c.events < plan.count)
                    missing += (missing.empty() ? "" : ", ") + irq_name(c.route) + " has " + std::to_string(c.events) +
                               " of " + std::to_string(plan.count);
            return "no user interrupt within " + std::to_string(plan.timeout.count()) + " ms: " + missing;
        }
        const Clock::time_point now = Clock::now();
        for (size_t i = 0; i < out.irqs.size(); ++i)
            if (out.irqs[i].events > before[i]) {
                out.irqs[i].timing.add(now - last[i]);
                last[i] = now;
            }
    }
    return std::nullopt;
}

}  // namespace

void Timing::add(Clock::duration elapsed) {
    const double us = std::chrono::duration<double, std::micro>(elapsed).count();
    min_us = samples == 0 ? us : std::min(min_us, us);
    max_us = samples == 0 ? us : std::max(max_us, us);
    total_us += us;
    ++samples;
}

uint64_t Outcome::events() const {
    uint64_t total = 0;
    for (const IrqCount& c : irqs)
        total += c.events;
    return total;
}

Outcome watch(streams::UserInterrupts& irqs, const Plan& plan) {
    Outcome out;
    for (const streams::UserInterruptRoute& r : irqs.routes())
        out.irqs.push_back(IrqCount{.route = r, .events = 0, .requests = 0, .timing = {}});
    out.requested = static_cast<bool>(plan.raise);
    if (out.requested) {
        if (irqs.maskable())
            out.failure = check_mask(irqs, plan, out);
        if (!out.failure)
            out.failure = raise_each(irqs, plan, out);
    } else {
        out.failure = wait_for_counts(irqs, plan, out);
    }
    if (!out.failure && out.events() == 0)
        out.failure = "no user interrupt counted";
    return out;
}

}  // namespace user_interrupt_watch
