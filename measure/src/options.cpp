#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "measure/tool.hpp"

namespace po = boost::program_options;

namespace measure {
namespace {

const std::set<std::string> kSubcommands = {"sweep", "latency", "access", "inflight", "bidir",
                                            "launch", "ceiling", "campaign"};

pdt::Error usage(const std::string& what, const std::string& hint) {
    return pdt::usage_error("pcie_link_measure", what, hint);
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, sep);)
        if (!item.empty())
            out.push_back(item);
    return out;
}

pdt::Result<Direction> parse_direction(const std::string& text) {
    if (text == "H2C" || text == "h2c")
        return Direction::H2C;
    if (text == "C2H" || text == "c2h")
        return Direction::C2H;
    return usage("--access_direction " + text, "expected H2C or C2H");
}

pdt::Result<std::vector<std::string>> parse_choices(const std::string& option, const std::string& text,
                                                    const std::set<std::string>& allowed) {
    std::vector<std::string> out = split(text, ',');
    if (out.empty())
        return usage(option + " " + text, "expected a comma-separated list");
    for (const std::string& c : out)
        if (!allowed.count(c))
            return usage(option + " " + c, "not one of the choices");
    return out;
}

pdt::Result<std::vector<HostMemory>> parse_memories(const std::string& text) {
    const auto names = PDT_TRY(parse_choices("--access_memories", text, {"registered", "huge-pages"}));
    std::vector<HostMemory> out;
    for (const std::string& n : names)
        out.push_back(n == "registered" ? HostMemory::Registered : HostMemory::RegisteredHugePages);
    return out;
}

std::string command_line(int argc, const char* const* argv) {
    std::string out;
    for (int i = 0; i < argc; ++i)
        out += (i ? " " : "") + std::string(argv[i]);
    return out;
}

struct RawOptions {
    std::string min_bytes, max_bytes, latency_bytes, bidir_bytes, active_bytes, staged_chunk;
    std::string access_sizes, access_offsets, access_windows, access_patterns, access_caches, access_memories,
        access_direction, inflight_sizes;
    unsigned repeats = 0;
    std::string transfer_timeout = "10";
    std::vector<std::string> words;  // the subcommand and the campaign file
};

po::options_description tool_options(ToolOptions& o, RawOptions& r) {
    po::options_description d("Options");
    cli::add_help_and_version(d);
    d.add_options()("endpoint", po::value(&o.endpoint)->default_value(o.endpoint),
                    "what to measure (see the endpoint options)");
    cli::add_json_option(d, o.json, cli::JsonForm::Document);
    cli::add_transfer_timeout_option(d, r.transfer_timeout);
    d.add_options()(
        "output", po::value(&o.output_dir), "directory for result.json and latency_samples.csv")(
        "repeats", po::value(&r.repeats), "runs per measurement (sweep, inflight, bidir, launch; default 5)")(
        "predictions", po::value(&o.predictions_file), "JSON file of predicted ranges, read and hashed before the run")(
        "seed", po::value(&o.common.seed)->default_value(o.common.seed), "seed of the random orders, gaps and patterns")(
        "pci_access", po::value(&o.pci_access)->default_value(o.pci_access),
        "config-space access for dump_pci_info and LnkSta: libpci, pciaccess, sim")(
        "min_bytes", po::value(&r.min_bytes), "sweep: smallest size (default 4KiB)")(
        "max_bytes", po::value(&r.max_bytes), "sweep: largest size (default 256MiB)")(
        "iterations", po::value(&o.sweep.iterations), "sweep: copies per size per run (default 64 MiB worth, 5-50)")(
        "no_staged", "sweep: the direct path only")(
        "staged_chunk", po::value(&r.staged_chunk),
        "sweep: the staged pipeline's chunk, a multiple of 64 bytes (default 0: where the direct rate reaches 90%)")(
        "staged_depth", po::value(&o.sweep.staged_depth)->default_value(0),
        "sweep: the staged pipeline's bounce slots in flight (default 0: 4, within the endpoint's limit)")(
        "staged_threads", po::value(&o.sweep.staged_threads)->default_value(0),
        "sweep: threads sharing the staged pipeline's host copies, 1..64 (default 0: 4 on a host of 16 cores or "
        "more, else a quarter of the cores)")(
        "disturbed_bound", po::value(&o.sweep.disturbed_bound)->default_value(o.sweep.disturbed_bound, "0.10"),
        "sweep: the host reference's spread between runs, (max-min)/median, above which the sweep is marked disturbed")(
        "samples", po::value(&o.latency.samples), "latency: copies per direction and mode (default 200)")(
        "latency_bytes", po::value(&r.latency_bytes), "latency: copy size (default 4KiB)")(
        "max_gap_us", po::value(&o.latency.max_gap_us), "latency: largest idle gap (default 1000)")(
        "access_direction", po::value(&r.access_direction), "access: H2C (default) or C2H")(
        "access_sizes", po::value(&r.access_sizes), "access: sizes (default 64B-2KiB powers of two and +-1)")(
        "access_offsets", po::value(&r.access_offsets), "access: offsets, a point each, e.g. 0-63 (default: one point whose transfers spread over offsets 0-63)")(
        "access_windows", po::value(&r.access_windows), "access: host windows (default 4KiB-64MiB doubling)")(
        "access_patterns", po::value(&r.access_patterns), "access: sequential,random")(
        "access_caches", po::value(&r.access_caches), "access: warm,cold")(
        "access_memories", po::value(&r.access_memories), "access: registered,huge-pages")(
        "access_transfers", po::value(&o.access.transfers), "access: transfers per point, each checked (default 256; a card region each)")(
        "inflight_sizes", po::value(&r.inflight_sizes), "inflight: sizes (default 1MiB,4MiB,16MiB,64MiB)")(
        "bidir_bytes", po::value(&r.bidir_bytes), "bidir: copy size (default 64MiB)")(
        "bidir_copies", po::value(&o.bidir.copies), "bidir: copies per direction per run (default 4)")(
        "launch_samples", po::value(&o.launch.samples), "launch: single launches timed (default 50)")(
        "launch_queued", po::value(&o.launch.queued), "launch: kernels queued at once (default 100)")(
        "from", po::value(&o.ceiling_from), "ceiling: a result file with a sweep (default: a fresh sweep)")(
        "active_bytes", po::value(&r.active_bytes), "ceiling: active weight bytes per token, e.g. 1.70GiB")(
        "resident_fraction", po::value(&o.ceiling.resident_fraction), "ceiling: share of them resident on the card")(
        "host_ram_gbps", po::value(&o.ceiling.host_ram_gbps), "ceiling: host RAM bandwidth (default: measured memcpy)");
    return d;
}

constexpr unsigned kMaxStagedDepth = 64;

pdt::Result<void> apply_raw(const RawOptions& r, const po::variables_map& vm, ToolOptions& o) {
    // Each option given (its text not empty) is parsed in this order, so the first bad one is named.
    for (auto [text, size] : {std::pair{&r.min_bytes, &o.sweep.min_bytes}, std::pair{&r.max_bytes, &o.sweep.max_bytes},
                              std::pair{&r.latency_bytes, &o.latency.bytes}, std::pair{&r.bidir_bytes, &o.bidir.bytes}})
        if (!text->empty())
            *size = PDT_TRY(parse_size(*text));
    if (!r.active_bytes.empty())
        o.ceiling.active_bytes_per_token = static_cast<double>(PDT_TRY(parse_size(r.active_bytes)));
    for (auto [text, list] : {std::pair{&r.access_sizes, &o.access.sizes}, std::pair{&r.access_offsets, &o.access.offsets},
                              std::pair{&r.access_windows, &o.access.windows}})
        if (!text->empty())
            *list = PDT_TRY(parse_size_list(*text));
    if (!r.access_patterns.empty())
        o.access.patterns = PDT_TRY(parse_choices("--access_patterns", r.access_patterns, {"sequential", "random"}));
    if (!r.access_caches.empty())
        o.access.caches = PDT_TRY(parse_choices("--access_caches", r.access_caches, {"warm", "cold"}));
    if (!r.access_memories.empty())
        o.access.memories = PDT_TRY(parse_memories(r.access_memories));
    if (!r.access_direction.empty())
        o.access.direction = PDT_TRY(parse_direction(r.access_direction));
    if (!r.inflight_sizes.empty())
        o.inflight.sizes = PDT_TRY(parse_size_list(r.inflight_sizes));
    if (vm.count("no_staged"))
        o.sweep.staged = false;
    if (!r.staged_chunk.empty()) {
        o.sweep.staged_chunk = PDT_TRY(parse_size(r.staged_chunk));
        if (o.sweep.staged_chunk % 64 != 0)
            return usage("--staged_chunk " + r.staged_chunk, "expected a multiple of 64 bytes (0: from the measured curve)");
    }
    if (o.sweep.staged_threads > 64)
        return usage("--staged_threads " + std::to_string(o.sweep.staged_threads),
                     "expected 0 (from the host's cores) to 64 threads");
    if (o.sweep.staged_depth > kMaxStagedDepth)
        return usage("--staged_depth " + std::to_string(o.sweep.staged_depth),
                     "expected 0 (from the endpoint) to " + std::to_string(kMaxStagedDepth) + " bounce slots");
    if (vm.count("repeats")) {
        if (r.repeats == 0)
            return usage("--repeats 0", "expected 1 or more");
        o.sweep.repeats = o.inflight.repeats = o.bidir.repeats = o.launch.repeats = r.repeats;
    }
    o.common.timeout = PDT_TRY(cli::parse_transfer_timeout(r.transfer_timeout));
    if (!(o.ceiling.resident_fraction >= 0 && o.ceiling.resident_fraction < 1))
        return usage("--resident_fraction", "expected a fraction in [0, 1)");
    if (!(o.latency.max_gap_us >= 0) || o.latency.samples == 0 || o.access.transfers == 0 || o.bidir.copies == 0 ||
        o.launch.samples == 0 || o.launch.queued == 0)
        return usage("a count", "samples, transfers, copies and launches must be 1 or more, gaps 0 or more");
    if (!(o.sweep.disturbed_bound > 0 && o.sweep.disturbed_bound < 10))
        return usage("--disturbed_bound", "expected a fraction above 0 (0.10: a 10% spread)");
    if (o.sweep.min_bytes == 0 || o.sweep.min_bytes > o.sweep.max_bytes)
        return usage("--min_bytes/--max_bytes", "expected 1 <= min_bytes <= max_bytes");
    return {};
}

pdt::Result<void> read_campaign(ToolOptions& o) {
    std::ifstream in(o.campaign_file);
    if (!in)
        return usage("campaign " + o.campaign_file, "cannot read the file");
    nlohmann::json campaign;
    try {
        campaign = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        return usage("campaign " + o.campaign_file, std::string("not JSON: ") + e.what());
    }
    return apply_campaign(campaign, o.campaign_file, o);
}

}  // namespace

pdt::Result<ParsedOptions> parse_options(int argc, const char* const* argv,
                                         const po::options_description& endpoint_options) {
    ParsedOptions parsed;
    ToolOptions& o = parsed.options;
    RawOptions raw;
    po::options_description visible = tool_options(o, raw);
    visible.add(endpoint_options);
    po::options_description all;
    all.add(visible);
    po::variables_map vm;
    const auto request = cli::parse_arguments(argc, argv, {all, cli::Usage{}, &raw.words, "subcommand"}, vm);
    if (!request)
        return usage("options", request.error().hint);
    if (raw.words.size() > 2)
        return usage("argument " + raw.words[2], "expected a subcommand and at most a campaign file");
    o.subcommand = raw.words.empty() ? "" : raw.words[0];
    o.campaign_file = raw.words.size() > 1 ? raw.words[1] : "";
    std::ostringstream help;
    help << "Usage: pcie_link_measure <sweep|latency|access|inflight|bidir|launch|ceiling|campaign FILE> [options]\n"
         << "Measures what the host gets over a PCIe link: every byte timed is also verified.\n\n"
         << visible;
    parsed.help_text = help.str();
    if (*request != cli::Request::Run) {
        parsed.help = *request == cli::Request::Help;
        parsed.version = !parsed.help;
        return parsed;
    }
    if (o.subcommand.empty())
        return usage("subcommand", "expected one of sweep latency access inflight bidir launch ceiling campaign");
    if (!kSubcommands.count(o.subcommand))
        return usage("subcommand " + o.subcommand, "not a subcommand of pcie_link_measure");
    if ((o.subcommand == "campaign") != !o.campaign_file.empty())
        return usage(o.subcommand, o.subcommand == "campaign" ? "campaign needs a file: campaign <file.json>"
                                                              : "unexpected argument " + o.campaign_file);
    PDT_CHECK(apply_raw(raw, vm, o));
    o.command_line = command_line(argc, argv);
    if (o.subcommand == "campaign")
        PDT_CHECK(read_campaign(o));
    else
        o.steps = {o.subcommand};
    // A ceiling without its model's input is a usage error before any copy, not a failure after
    // the sweep it would run.
    const bool ceiling = std::find(o.steps.begin(), o.steps.end(), "ceiling") != o.steps.end();
    if (ceiling && !(o.ceiling.active_bytes_per_token > 0))
        return usage("ceiling", "needs --active_bytes (campaign: \"active_bytes\"), the active weight bytes per token, "
                                "e.g. 1.70GiB");
    return parsed;
}

}  // namespace measure
