// qdma_ctl: QDMA inspection as dma_ip_drivers' dma-ctl gives it (PG302, EQDMA 5.0), from user
// space through VFIO with no kernel module, on a design's QDMA (a --sim_design design, or a
// vfio-pci --device whose design data has a qdma section).
//   --command list      the function's enabled queues (software context qen), from its FMAP
//   --command context   a queue's software, hardware and credit contexts (a C2H stream queue's
//                       completion and prefetch contexts too), each field by PG302's name
//   --command dump      starts a queue in this process (PG302 Queue Setup), reads its contexts
//                       back and compares each field with what the set-up wrote (PASS names how
//                       many fields matched; FAIL names each field that did not), dumps its
//                       descriptor ring, completion ring and interrupt aggregation ring in hex
//                       with their PIDX and CIDX, then tears the queue down (PG302 Queue Teardown)
//   --command reg_dump  the global CSRs by name
//   --command errors    the error status registers and the meaning of each bit set
// list and context write no context: they read the function's FMAP and the queue's contexts
// (each read over a decoy in QDMA_IND_CTXT_DATA). A queue outside the FMAP range is refused.
// Queues do not outlive the process: a queue dump's queue is torn down at its end.
// Exit status: 0 done (dump: every field read back as written), 1 a device failed or a field
// differed, 2 usage error.
#include <algorithm>
#include <iostream>
#include <memory>

#include "base/format.hpp"
#include "base/numbers.hpp"
#include "cli/option_names.hpp"
#include "qdma/qdma_interrupt_ring.hpp"
#include "qdma/qdma_queue.hpp"
#include "qdma_ctl_output.hpp"
#include "tool_support/bar_tool_main.hpp"
#include "tool_support/device_targets.hpp"

namespace po = boost::program_options;

namespace {

constexpr uint16_t kDumpQueues = 16;  // the FMAP a dump gives its function: 16 queues from function * 16

struct CtlOptions : cli::DeviceSelection {
    std::string command, idx, dir, mode = "mm", ring_entries = "65";
    bool interrupt_ring = false;
};

void add_ctl_options(po::options_description& desc, CtlOptions& o) {
    desc.add_options()("command", po::value(&o.command),
                       "list, context, dump, reg_dump or errors (required)")(
        "idx", po::value(&o.idx), "context, dump: the function's queue (dump: 0..15)")(
        "dir", po::value(&o.dir), "context, dump: h2c or c2h")(
        "mode", po::value(&o.mode), "context, dump: mm or st (default mm)")(
        "ring_entries", po::value(&o.ring_entries),
        "dump: descriptor (and completion) ring entries, a QDMA_GLBL_RNG_SZ value (default 65)")(
        "interrupt_ring", po::bool_switch(&o.interrupt_ring),
        "dump: the queue interrupts through an interrupt aggregation ring, dumped too");
}

enum class Command { List, Context, Dump, RegDump, Errors };

struct CtlRequest {
    Command command = Command::List;
    uint32_t idx = 0;
    qdma::QueueDirection direction = qdma::QueueDirection::H2C;
    qdma::QueueKind kind = qdma::QueueKind::MemoryMapped;
    uint32_t ring_entries = 65;
    bool interrupt_ring = false;
    tool_support::TargetSelection targets;
};

std::optional<Command> command_named(const std::string& name) {
    if (name == "list") return Command::List;
    if (name == "context") return Command::Context;
    if (name == "dump") return Command::Dump;
    if (name == "reg_dump") return Command::RegDump;
    if (name == "errors") return Command::Errors;
    return std::nullopt;
}

// --idx and --dir for context and dump; nothing of them for the others.
std::optional<std::string> parse_queue(const CtlOptions& o, CtlRequest& r) {
    const bool queue = r.command == Command::Context || r.command == Command::Dump;
    if (!queue)
        return o.idx.empty() && o.dir.empty() ? std::nullopt
                                              : std::optional<std::string>("--idx and --dir are for context and dump");
    if (o.idx.empty() || o.dir.empty())
        return std::string("--command ") + o.command + " needs --idx and --dir";
    auto idx = pdt::parse_number("idx", o.idx, 0, r.command == Command::Dump ? kDumpQueues - 1 : 2047);
    auto entries = pdt::parse_number("ring_entries", o.ring_entries, 3, 65536);
    if (auto error = tool_support::first_error(idx, entries))
        return error;
    if (o.dir != "h2c" && o.dir != "c2h")
        return "parse option --dir \"" + o.dir + "\": expected h2c or c2h";
    if (o.mode != "mm" && o.mode != "st")
        return "parse option --mode \"" + o.mode + "\": expected mm or st";
    r.idx = static_cast<uint32_t>(*idx);
    r.ring_entries = static_cast<uint32_t>(*entries);
    r.direction = o.dir == "h2c" ? qdma::QueueDirection::H2C : qdma::QueueDirection::C2H;
    r.kind = o.mode == "mm" ? qdma::QueueKind::MemoryMapped : qdma::QueueKind::Stream;
    return std::nullopt;
}

std::optional<std::string> parse_ctl_request(const CtlOptions& o, CtlRequest& r) {
    if (o.command.empty())
        return std::string("--command is required: list, context, dump, reg_dump or errors");
    const auto command = command_named(o.command);
    if (!command)
        return "parse option --command \"" + o.command + "\": expected list, context, dump, reg_dump or errors";
    r.command = *command;
    if (auto error = parse_queue(o, r))
        return error;
    if (o.interrupt_ring && r.command != Command::Dump)
        return std::string("--interrupt_ring is for dump");
    if (auto error = tool_support::unnamed_device_error(o))
        return error;
    r.interrupt_ring = o.interrupt_ring;
    r.targets = {o.sim_designs, o.devices};
    return std::nullopt;
}

int failed(const pdt::Error& error) {
    std::cerr << "Error: " << cli::name_options(error).message() << "\n";
    return error.usage ? 2 : 1;
}

bool c2h_stream(const CtlRequest& r) {
    return r.direction == qdma::QueueDirection::C2H && r.kind == qdma::QueueKind::Stream;
}

std::string queue_name(const CtlRequest& r, uint32_t hw_qid) {
    return "queue " + std::to_string(r.idx) + " " + qdma::to_string(r.direction) +
           (r.kind == qdma::QueueKind::MemoryMapped ? " MM" : " ST") + " (physical qid " + std::to_string(hw_qid) + ")";
}

int list_queues(qdma::Function& f) {
    auto listed = qdma::list_enabled_queues(f);
    if (!listed)
        return failed(listed.error());
    for (const qdma::ListedQueue& q : *listed)
        std::cout << "queue " << q.qid << " " << qdma::to_string(q.direction) << (q.is_mm ? " MM" : " ST")
                  << " (physical qid " << q.hw_qid << "): rngsz_idx " << q.rngsz_idx << ", dsc_base "
                  << pdt::hex(q.dsc_base) << "\n";
    std::cout << listed->size() << " enabled queue(s) of " << f.options().queues << "\n";
    return 0;
}

int show_contexts(qdma::Function& f, const CtlRequest& r) {
    auto contexts = qdma::read_queue_contexts(f, r.idx, r.direction, c2h_stream(r));
    if (!contexts)
        return failed(contexts.error());
    const uint32_t hw_qid = f.options().qid_base + r.idx;
    for (const qdma::QueueContext& c : *contexts)
        qdma_ctl::print_context(std::cout, c, queue_name(r, hw_qid));
    return 0;
}

// The contexts set-up did not write (hardware, credit), read over a decoy and printed.
pdt::Result<void> show_unwritten(qdma::Function& f, const CtlRequest& r, const qdma::Queue& q,
                                 const qdma::SetUpCheck& check) {
    const auto all = PDT_TRY(qdma::read_queue_contexts(f, r.idx, r.direction, c2h_stream(r)));
    for (const qdma::QueueContext& c : all) {
        const bool written = std::any_of(check.read.begin(), check.read.end(),
                                         [&](const qdma::QueueContext& w) { return w.sel == c.sel; });
        if (!written)
            qdma_ctl::print_context(std::cout, c, queue_name(r, q.hw_qid()) + ", read as the IP keeps it");
    }
    return {};
}

pdt::Result<void> show_interrupt_ring(qdma::Function& f, const qdma::InterruptRing& ring) {
    const qdma::QueueContext c = PDT_TRY(qdma::read_interrupt_context(f, ring.index()));
    qdma_ctl::print_context(std::cout, c, "interrupt aggregation ring " + std::to_string(ring.index()));
    qdma_ctl::print_ring(std::cout, "interrupt aggregation ring " + std::to_string(ring.index()), ring.view(), false);
    return {};
}

// The verdict of a dump: every field of every context written read back as written.
int verdict(const qdma::SetUpCheck& check) {
    if (check.fields_compared == 0) {
        std::cout << "FAIL: no context field was compared (the set-up wrote no context)\n";
        return 1;
    }
    for (const std::string& line : check.differences)
        std::cout << "differs: " << line << "\n";
    if (!check.differences.empty()) {
        std::cout << "FAIL: " << check.differences.size() << " of " << check.fields_compared << " fields of "
                  << check.written.size() << " context(s) read back unlike the set-up wrote them\n";
        return 1;
    }
    std::cout << "PASS: " << check.fields_compared << " fields of " << check.written.size()
              << " context(s) read back as the set-up wrote them\n";
    return 0;
}

int dump_queue(qdma::Function& f, const CtlRequest& r) {
    std::unique_ptr<qdma::InterruptRing> ring;
    if (r.interrupt_ring) {
        auto opened = qdma::InterruptRing::open(f, f.options().function, 0);
        if (!opened)
            return failed(opened.error());
        ring = std::move(opened).value();
    }
    qdma::QueueOptions o;
    o.qid = r.idx;
    o.direction = r.direction;
    o.kind = r.kind;
    o.ring_entries = o.completion_entries = r.ring_entries;
    if (ring)
        o.interrupt_ring = ring->index();
    auto queue = qdma::Queue::open(f, o);
    if (!queue)
        return failed(queue.error());
    const qdma::Queue& q = **queue;
    std::cout << queue_name(r, q.hw_qid()) << " started\n";
    auto check = qdma::check_set_up(f, q);
    if (!check)
        return failed(check.error());
    for (const qdma::QueueContext& c : check->read)
        qdma_ctl::print_context(std::cout, c, queue_name(r, q.hw_qid()) + ", as set up");
    if (auto shown = show_unwritten(f, r, q, *check); !shown)
        return failed(shown.error());
    qdma_ctl::print_ring(std::cout, "descriptor ring", q.descriptor_ring(), true);
    if (c2h_stream(r))
        qdma_ctl::print_ring(std::cout, "completion ring", q.completion_ring(), true);
    if (ring)
        if (auto shown = show_interrupt_ring(f, *ring); !shown)
            return failed(shown.error());
    return verdict(*check);
}

int show_errors(const qdma::Function& f) {
    const unsigned with_errors = qdma_ctl::print_error_status(std::cout, qdma::read_error_status(f));
    std::cout << with_errors << " error status register(s) with bits set\n";
    return 0;
}

const designs::Design* qdma_design(const tool_support::DeviceTarget& t) {
    for (const designs::Design* d : t.designs)
        if (d->qdma)
            return d;
    return nullptr;
}

int run_target(const tool_support::DeviceTarget& t, const CtlRequest& r) {
    const designs::Design* design = qdma_design(t);
    if (!design)
        return failed(pdt::make_error("inspect the QDMA of", t.device->identity().address.to_string() + " " +
                                                                 tool_support::target_name(t),
                                      ENODEV, "its design data has no qdma section: not a QDMA design"));
    qdma::FunctionOptions o;
    o.bar = design->qdma->bar;
    o.function = design->card ? design->card->physical_function : 0;
    o.read_fmap = r.command != Command::Dump;  // only a dump sets anything up
    o.queues = kDumpQueues;
    o.qid_base = static_cast<uint16_t>(o.function * kDumpQueues);
    auto function = qdma::Function::open(*t.device, o);
    if (!function)
        return failed(function.error());
    qdma::Function& f = **function;
    std::cout << f.name() << " (" << tool_support::target_name(t) << "): FMAP qid_base " << f.options().qid_base
              << ", " << f.options().queues << " queue(s)\n";
    switch (r.command) {
    case Command::List: return list_queues(f);
    case Command::Context: return show_contexts(f, r);
    case Command::Dump: return dump_queue(f, r);
    case Command::RegDump: qdma_ctl::print_registers(std::cout, qdma::read_global_registers(f)); return 0;
    case Command::Errors: return show_errors(f);
    }
    return 1;
}

int run_targets(const tool_support::CheckedUsage& checked, const CtlRequest& request) {
    return tool_support::for_each_target(checked.registry, request.targets, std::cout,
                                         [&](const tool_support::DeviceTarget& t) { return run_target(t, request); });
}

}  // namespace

int main(int argc, char** argv) {
    return tool_support::bar_tool_main<CtlOptions, CtlRequest>(
        argc, argv,
        {"Inspects a QDMA (PG302) as dma-ctl does: queues, contexts, rings, global and error registers.",
         {}, add_ctl_options, parse_ctl_request, run_targets});
}
