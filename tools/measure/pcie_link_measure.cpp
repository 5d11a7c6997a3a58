// pcie_link_measure: what the host really gets over a PCIe link, measured through the
// copy-endpoint seam with every timed byte verified. Subcommands sweep, latency, access,
// inflight, bidir, launch, ceiling and campaign; see measure/README.md.
#include <cstdio>
#include <iostream>

#include "measure/tool.hpp"
#include "pdt_version/version.hpp"
#include "sim/config_topology.hpp"
#include "tool_support/copy_endpoints.hpp"

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    tool_support::CopyEndpoints endpoints;
    auto parsed = measure::parse_options(argc, argv, endpoints.options());
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
    auto endpoint = endpoints.open(options.endpoint, adapter);
    if (!endpoint) {
        std::cerr << "pcie_link_measure: " << endpoint.error().message() << "\n";
        return endpoint.error().code == EINVAL ? 2 : 1;
    }
    measure::Progress progress = measure::Progress::for_stderr();
    return measure::run_tool(options, **endpoint, adapter, std::cout, std::cerr, progress);
}
