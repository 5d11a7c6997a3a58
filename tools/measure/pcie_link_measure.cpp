// pcie_link_measure: what the host really gets over a PCIe link, measured through the
// copy-endpoint seam with every timed byte verified. Subcommands sweep, latency, access,
// inflight, bidir, launch, ceiling and campaign; see measure/README.md. The sensors of an xdma
// endpoint's design are watched beside the run (--max_temperature, --metrics).
#include <signal.h>

#include <cstdio>
#include <iostream>

#include "cli/device_options.hpp"
#include "cli/option_names.hpp"
#include "measure/copying.hpp"
#include "measure/tool.hpp"
#include "pdt_version/version.hpp"
#include "sim/config_topology.hpp"
#include "tool_support/board_health.hpp"
#include "adapters/copy_endpoints.hpp"

namespace {

// The run's figures as metric rows: the large-copy rate of each direction of the sweep, with
// the bytes the run verified on the first.
std::vector<tool_support::RowMetrics> row_metrics(const measure::RunResult& r) {
    std::vector<tool_support::RowMetrics> rows;
    const std::string address = r.endpoint.pci_address;
    const uint64_t errors = r.failures.size();
    if (r.sweep)
        for (const auto& [key, gbps] : r.sweep->large_copy_gbps)
            rows.push_back({address + " " + key, gbps * 1e9, rows.empty() ? r.bytes_verified : 0, rows.empty() ? errors : 0});
    if (rows.empty())
        rows.push_back({address + " run", 0, r.bytes_verified, errors});
    return rows;
}

void hook_health(measure::ToolOptions& options, tool_support::BoardHealth& health,
                 const std::vector<tool_support::DesignUnderTest>& designs) {
    const std::string address = designs.empty() ? "" : designs.front().identity.address.to_string();
    // Between steps: no failure so far; at the end, the verdict itself (FAIL, SKIPPED and a run
    // that verified nothing are not a pass).
    options.health.after_step = [&health](const measure::RunResult& r) {
        const bool finished = !r.verdict.empty();
        const bool passing = finished ? r.verdict.rfind("PASS", 0) == 0 : r.failures.empty();
        health.publish(row_metrics(r), passing, finished);
    };
    measure::stop_when(&health.tripped(), "a board-health trip");
    options.health.trip = [&health]() -> std::optional<std::string> {
        if (!health.tripped())
            return std::nullopt;
        return health.trip_reason();
    };
    options.health.temperature = [&health, address]() -> std::optional<measure::BoardHealthRecord> {
        const auto t = health.watch().temperature(address);
        if (!t)
            return std::nullopt;
        return measure::BoardHealthRecord{t->celsius, t->max_celsius, t->max_sensor};
    };
}

extern "C" void on_stop_signal(int) { measure::request_stop("SIGINT or SIGTERM"); }

// Ctrl-C or SIGTERM (a batch system's stop): no copy starts after it, those in flight complete,
// the run fails naming the signal, and the endpoint closes with its engines stopped and proven.
// A second signal takes the default action.
void stop_copies_on_signals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    adapters::CopyEndpoints endpoints;
    tool_support::BoardHealthCli health_cli;
    boost::program_options::options_description adapter_options;
    adapter_options.add(endpoints.options());
    boost::program_options::options_description health_options("Board health options");
    tool_support::add_board_health_options(health_options, health_cli);
    adapter_options.add(health_options);
    auto parsed = measure::parse_options(argc, argv, adapter_options);
    if (!parsed) {
        std::cerr << "pcie_link_measure: " << parsed.error().message() << "\n"
                  << "Run pcie_link_measure --help for the options.\n";
        return 2;
    }
    if (parsed->help) {
        std::cout << parsed->help_text;
        return 0;
    }
    if (parsed->version) {
        std::cout << pdt_version::version_line(argv[0]) << "\n";
        return 0;
    }
    measure::ToolOptions& options = parsed->options;
    options.simulated_topology = sim::open_demo_topology;
    std::string adapter;
    endpoints.set_transfer_timeout(options.common.timeout);
    stop_copies_on_signals();  // from before the open: a stop asked for meanwhile starts no copy
    auto endpoint = endpoints.open(options.endpoint, adapter);
    if (!endpoint) {
        std::cerr << "pcie_link_measure: " << cli::name_options(cli::name_xdma_mode_options(endpoint.error())).message()
                  << "\n";
        return endpoint.error().usage ? 2 : 1;
    }
    auto health = tool_support::BoardHealth::open(health_cli, "pcie_link_measure", endpoints.designs_under_test(),
                                                  options.json ? stderr : stdout, options.json);
    if (!health) {
        std::cerr << "pcie_link_measure: " << health.error().message() << "\n";
        return health.error().usage ? 2 : 1;
    }
    hook_health(options, **health, endpoints.designs_under_test());
    (*health)->start();
    measure::Progress progress = measure::Progress::for_stderr();
    // A step's failure quotes the library's hint: the tool names the option of each request in it.
    cli::OptionNamingStream out(std::cout);
    const int status = measure::run_tool(options, **endpoint, adapter, out, std::cerr, progress);
    out.flush();
    (*health)->stop();
    return status;
}
