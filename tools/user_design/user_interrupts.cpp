// user_interrupts: the user logic's interrupts of an XDMA design (PG195 User Interrupts) or a
// QDMA design (PG302 User Interrupt), waited for from user space through vfio-pci with no kernel
// module, as the xdma module's /dev/xdma0_events_N are read: on XDMA each --irq is routed to its
// MSI vector (User Vector Number) and enabled (User Interrupt Enable Mask); on QDMA the user logic
// names the vector itself (usr_irq_in_vec: --irq is the vector). The events are counted and timed
// until each IRQ has --count.
// On a --sim_design design, --sim_raise makes the model's user logic request them
// (user_interrupt_watch.hpp: exactly one event per request, a masked request pending). The enable
// bits set are cleared on exit. Exit status: 0 every IRQ had its events (PASS), 1 a device failed,
// an event did not come in time or the counts were wrong (FAIL), 2 usage error.
#include <iostream>
#include <set>

#include "base/format.hpp"
#include "base/json_text.hpp"
#include "base/numbers.hpp"
#include "cli/option_names.hpp"
#include "dma_bridge/xdma_user_interrupts.hpp"
#include "qdma/qdma_user_interrupts.hpp"
#include "sim/sim_device.hpp"
#include "tool_support/bar_tool_main.hpp"
#include "tool_support/open_designs.hpp"
#include "user_interrupt_watch.hpp"

namespace po = boost::program_options;
namespace watch = user_interrupt_watch;

namespace {

struct IrqOptions : cli::DeviceSelection {
    std::vector<std::string> irqs, vectors;
    std::string count = "1", timeout = "1", lock_timeout;
    bool sim_raise = false, json = false;
};

void add_irq_options(po::options_description& desc, IrqOptions& o) {
    desc.add_options()("irq", po::value(&o.irqs)->composing(),
                       "a user interrupt to wait for: XDMA usr_irq_req bit 0 to 15, QDMA usr_irq_in_vec; repeat for "
                       "more (default 0)")(
        "vector", po::value(&o.vectors)->composing(),
        "XDMA: the MSI vector of each --irq, in their order (default: the IRQ's number; QDMA: only that)")(
        "count", po::value(&o.count), "events of each --irq to wait for (default 1)")(
        "timeout", po::value(&o.timeout), "seconds to wait for each event (default 1)")(
        "sim_raise", po::bool_switch(&o.sim_raise),
        "with --sim_design: the model's user logic requests each event, and each must come exactly once");
    cli::add_json_option(desc, o.json, cli::JsonForm::Document);
    cli::add_lock_timeout_option(desc, o.lock_timeout);
}

struct IrqRequest {
    std::vector<streams::UserInterruptRoute> routes;
    watch::Plan plan;
    bool sim_raise = false, json = false;
};

// --irq and --vector as routes; the message of a usage error.
std::optional<std::string> parse_routes(const IrqOptions& o, std::vector<streams::UserInterruptRoute>& routes) {
    const std::vector<std::string> irqs = o.irqs.empty() ? std::vector<std::string>{"0"} : o.irqs;
    if (o.vectors.size() > irqs.size())
        return "--vector given " + std::to_string(o.vectors.size()) + " times for " + std::to_string(irqs.size()) +
               " --irq";
    for (size_t i = 0; i < irqs.size(); ++i) {
        auto irq = pdt::parse_number("irq", irqs[i], 0, qdma::kMaxUserVector);
        auto vector = pdt::parse_number("vector", i < o.vectors.size() ? o.vectors[i] : irqs[i], 0, qdma::kMaxUserVector);
        if (auto error = tool_support::first_error(irq, vector))
            return error;
        routes.push_back({static_cast<unsigned>(*irq), static_cast<unsigned>(*vector)});
    }
    return std::nullopt;
}

std::optional<std::string> parse_irq_request(const IrqOptions& o, IrqRequest& request) {
    if (auto error = parse_routes(o, request.routes))
        return error;
    auto count = pdt::parse_number("count", o.count, 1, 1000000);
    auto timeout = pdt::parse_seconds("timeout", o.timeout);
    if (auto error = tool_support::first_error(count, timeout))
        return error;
    if (auto error = tool_support::unnamed_device_error(o))
        return error;
    if (o.sim_raise && o.sim_designs.empty())
        return std::string("--sim_raise needs --sim_design: only a model's user logic can be made to request");
    request.plan.count = *count;
    request.plan.timeout = std::chrono::milliseconds(static_cast<int64_t>(*timeout * 1000));
    request.sim_raise = o.sim_raise;
    request.json = o.json;
    return std::nullopt;
}

std::string timing_text(const watch::Timing& t, bool latency) {
    if (t.samples == 0)
        return "";
    return pdt::format("; %s min %.1f us, mean %.1f us, max %.1f us", latency ? "latency from request" : "interval",
                       t.min_us, t.mean_us(), t.max_us);
}

std::string timing_json(const watch::Timing& t) {
    return pdt::format("{\"samples\": %llu, \"min_us\": %.3f, \"mean_us\": %.3f, \"max_us\": %.3f}",
                       static_cast<unsigned long long>(t.samples), t.min_us, t.mean_us(), t.max_us);
}

std::string verdict_text(const watch::Outcome& out) {
    if (out.failure)
        return "FAIL: " + *out.failure;
    return "PASS: " + std::to_string(out.events()) + " user interrupt events counted" +
           (out.requested ? ", one for each request, none after the last within " +
                                std::to_string(watch::kQuietWatch.count()) + " ms"
                          : "");
}

void print_outcome(const identify::IdentifiedDesign& design, const watch::Outcome& out) {
    std::cout << "user_interrupts " << design.identity.address.to_string() << " " << design.design->name << ":\n";
    for (const watch::IrqCount& c : out.irqs)
        std::cout << "User interrupt " << c.route.irq << " (MSI vector " << c.route.vector << "): " << c.events
                  << (c.events == 1 ? " event" : " events")
                  << (out.requested ? " for " + std::to_string(c.requests) + " requests" : std::string())
                  << timing_text(c.timing, out.requested) << "\n";
    if (!out.mask_check.empty())
        std::cout << "Mask: " << out.mask_check << "\n";
    std::cout << verdict_text(out) << "\n";
}

std::string outcome_json(const identify::IdentifiedDesign& design, const watch::Outcome& out) {
    std::string irqs;
    for (const watch::IrqCount& c : out.irqs)
        irqs += (irqs.empty() ? "" : ", ") + pdt::format("{\"irq\": %u, \"vector\": %u, \"events\": ", c.route.irq,
                                                         c.route.vector) +
                std::to_string(c.events) +
                (out.requested ? ", \"requests\": " + std::to_string(c.requests) + ", \"latency\": "
                               : std::string(", \"interval\": ")) +
                timing_json(c.timing) + "}";
    return "{\"device\": " + pdt::json_quote(design.identity.address.to_string()) +
           ", \"design\": " + pdt::json_quote(design.design->name) + ", \"irqs\": [" + irqs +
           "], \"mask_check\": " + pdt::json_quote(out.mask_check) +
           ", \"verdict\": " + pdt::json_quote(out.failure ? "FAIL" : "PASS") +
           ", \"reason\": " + pdt::json_quote(out.failure.value_or("")) + "}";
}

int fail(const pdt::Error& error) {
    std::cerr << "Error: " << cli::name_options(error).message() << "\n";
    return error.usage ? 2 : 1;
}

// The design's IP's user interrupts: XDMA's (the DMA BAR's IRQ block) or QDMA's (the function's vectors).
pdt::Result<std::unique_ptr<streams::UserInterrupts>> enable_irqs(const identify::IdentifiedDesign& design,
                                                                  const std::vector<streams::UserInterruptRoute>& routes) {
    using Enabled = std::unique_ptr<streams::UserInterrupts>;
    if (design.design->dma_bridge)
        return Enabled(PDT_TRY(xdma::UserInterrupts::enable(*design.device, design.design->dma_bridge->bar, 0, routes)));
    if (design.design->qdma)
        return Enabled(PDT_TRY(qdma::UserInterrupts::enable(*design.device, routes)));
    return pdt::make_error("enable user interrupts", design.identity.address.to_string() + " " + design.design->name,
                           ENOTSUP, "the design has no XDMA or QDMA IP");
}

// One design: its user interrupts enabled, watched, reported; the exit status.
int watch_design(const identify::IdentifiedDesign& design, const IrqRequest& request) {
    watch::Plan plan = request.plan;
    if (request.sim_raise) {
        auto* simulated = dynamic_cast<sim::SimDevice*>(design.device.get());
        if (!simulated)
            return fail(pdt::usage_error("--sim_raise", design.identity.address.to_string(), "not a simulated device"));
        plan.raise = [simulated](unsigned irq) { return simulated->request_user_interrupt(irq); };
    }
    auto irqs = enable_irqs(design, request.routes);
    if (!irqs)
        return fail(irqs.error());
    const watch::Outcome out = watch::watch(**irqs, plan);
    if (request.json)
        std::cout << outcome_json(design, out) << "\n";
    else
        print_outcome(design, out);
    return out.failure ? 1 : 0;
}

int watch_designs(const tool_support::CheckedUsage& checked, const IrqRequest& request) {
    tool_support::OpenedDesigns opened = tool_support::open_designs(checked.registry, checked.selection,
                                                                    request.json ? &std::cerr : &std::cout, std::cerr);
    if (opened.found.designs.empty())
        return opened.status;
    int status = opened.status;
    for (const identify::IdentifiedDesign& design : opened.found.designs)
        status = std::max(status, watch_design(design, request));
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    return tool_support::bar_tool_main<IrqOptions, IrqRequest>(
        argc, argv,
        {"Waits for the user logic's interrupts of an XDMA or QDMA design on their MSI vectors, with no kernel module, "
         "and counts and times them (--sim_raise: the simulated design's user logic requests them).",
         {}, add_irq_options, parse_irq_request, watch_designs, &IrqOptions::lock_timeout});
}
