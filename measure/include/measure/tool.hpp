// pcie_link_measure as a library: its options, and one run (a subcommand or a campaign) on an
// endpoint, ending in a verdict and an exit status. The main only opens the endpoint.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <map>
#include <ostream>
#include <string>

#include "base/numbers.hpp"
#include "measure/context.hpp"
#include "measure/subcommands.hpp"

namespace measure {

struct Threshold {
    std::string metric;
    std::optional<double> min, max;
};

// Board health beside the run, handed in by the tool main (measure cannot name the sensors);
// each hook may be empty. after_step runs after each step with the result so far (the metrics);
// trip gives the reason once a temperature crossed --max_temperature (the run stops and FAILs
// with it); temperature gives the design's record for the text and the JSON.
struct BoardHealthHooks {
    std::function<void(const RunResult&)> after_step;
    std::function<std::optional<std::string>()> trip;
    std::function<std::optional<BoardHealthRecord>()> temperature;
};

struct ToolOptions {
    std::string subcommand;     // sweep latency access inflight bidir launch ceiling campaign
    std::string campaign_file;  // campaign <file.json>
    std::vector<std::string> steps;  // the subcommands to run (one, or a campaign's)
    std::vector<Threshold> thresholds;
    std::string endpoint = "model";
    bool json = false;
    std::string output_dir, predictions_file, pci_access = "libpci", command_line;
    CommonSettings common;
    SweepSettings sweep;
    LatencySettings latency;
    AccessSettings access;
    InflightSettings inflight;
    BidirSettings bidir;
    LaunchSettings launch;
    CeilingInputs ceiling;
    std::string ceiling_from;  // a result file whose sweep ceiling reads; empty: a fresh sweep
    // What --pci_access sim opens: the tool main hands in sim's topology (measure cannot name sim).
    SimulatedTopology simulated_topology;
    BoardHealthHooks health;
};

struct ParsedOptions {
    ToolOptions options;
    bool help = false;
    bool version = false;  // --version: print the toolkit version and exit
    std::string help_text;
};

// A usage error (exit 2) for an unknown option or subcommand, a malformed value, or a campaign file
// that cannot be read or holds what the tool does not know. `endpoint_options` are the
// adapters' own (endpoints.cpp).
pdt::Result<ParsedOptions> parse_options(int argc, const char* const* argv,
                                         const boost::program_options::options_description& endpoint_options);
// The base's size parsers (base/numbers.hpp): "4KiB", "1.5MiB", "0-63,64".
using pdt::parse_size;
using pdt::parse_size_list;
// Applies a campaign file's steps, settings and thresholds to `options`.
pdt::Result<void> apply_campaign(const nlohmann::json& campaign, const std::string& file, ToolOptions& options);

// Runs the steps on the endpoint, prints the human text (or JSON) to `out`, messages to `err`,
// writes --output, and returns the exit status: 0 PASS / PASS WITH WARNINGS (or SKIPPED beside
// something measured), 1 FAIL or nothing measured.
int run_tool(const ToolOptions& options, CopyEndpoint& endpoint, const std::string& adapter, std::ostream& out,
             std::ostream& err, Progress& progress);

}  // namespace measure
