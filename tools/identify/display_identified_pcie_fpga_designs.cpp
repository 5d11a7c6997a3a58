// display_identified_pcie_fpga_designs: lists the known FPGA designs found on the PCI bus (or on
// a simulated bus of --sim_design designs) with their DMA bridge channels, build timestamp,
// peripherals and AXI4-Stream Switch routes. Read-only: safe while DMA runs.
// Exit status: 0 designs identified, 1 none found, a device failed or a known design's DMA
// bridge could not be read, 2 usage error.
#include <cstdio>
#include <iostream>

#include "identify/identify.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "cli/option_names.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;

namespace {

struct Options : cli::DeviceSelection {
    bool json = false;
    bool list_designs = false;
    std::string lock_timeout;
};

// Returns the exit status when parsing ends the run (help, usage error).
std::optional<int> parse_options(int argc, char** argv, Options& options) {
    po::options_description desc("Options");
    cli::add_help_and_version(desc);
    cli::add_device_selection_options(desc, options);
    desc.add_options()("list_designs", po::bool_switch(&options.list_designs), "list the known designs and exit");
    cli::add_json_option(desc, options.json, cli::JsonForm::Document);
    cli::add_lock_timeout_option(desc, options.lock_timeout);
    return cli::parse_fpga_sio_command_line(argc, argv, desc,
                                            "Identifies the FPGA designs on the PCI bus (or simulated ones) "
                                            "with their DMA bridge channels and peripherals.");
}

void list_designs(const designs::Registry& registry) {
    for (const designs::Design& d : registry.designs()) {
        char device[8] = "*", sub_vendor[8] = "*", sub_device[8] = "*", ids[64];
        if (d.match.device_id)
            std::snprintf(device, sizeof device, "%04x", *d.match.device_id);
        if (d.match.subsystem_vendor_id)
            std::snprintf(sub_vendor, sizeof sub_vendor, "%04x", *d.match.subsystem_vendor_id);
        if (d.match.subsystem_device_id)
            std::snprintf(sub_device, sizeof sub_device, "%04x", *d.match.subsystem_device_id);
        std::snprintf(ids, sizeof ids, "%04x:%s subsystem %s:%s", d.match.vendor_id, device, sub_vendor, sub_device);
        std::cout << d.name << "  " << ids << "  (" << d.source << ")\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches a pipe or file as printed
    Options options;
    if (auto status = parse_options(argc, argv, options))
        return *status;

    tool_support::DesignSelection selection{options.sim_designs, {}};
    std::string usage;
    auto locations = tool_support::parse_locations(options.devices, "--device", usage);
    if (!locations) {
        std::cerr << "Error: " << usage << "\n";
        return 2;
    }
    selection.locations = *locations;
    auto lock_timeout = cli::parse_lock_timeout(options.lock_timeout);
    if (!lock_timeout.ok()) {
        std::cerr << "Error: " << lock_timeout.error().message() << "\n";
        return 2;
    }
    selection.lock_timeout = *lock_timeout;
    auto registry = designs::Registry::load(options.design_files);
    if (!registry) {
        std::cerr << "Error: " << cli::name_options(registry.error()).message() << "\n";
        return 2;
    }
    if (options.list_designs) {
        list_designs(*registry);
        return 0;
    }
    tool_support::OpenedDesigns opened =
        tool_support::open_designs(*registry, selection, options.json ? &std::cerr : &std::cout, std::cerr);
    if (opened.found.designs.empty())
        return opened.status;
    if (options.json) {
        std::cout << identify::format_json(opened.found.designs);
    } else {
        for (identify::IdentifiedDesign& design : opened.found.designs) {
            // fpga_sio's display step: the CMAC ports' status, read twice (clear-on-read).
            for (const std::string& problem : identify::read_cmac_ports(*design.device, design))
                std::cerr << "Warning: " << design.identity.address.to_string() << " " << design.design->name << ": "
                          << problem << "\n";
            std::cout << identify::format_text(design);
        }
    }
    std::cout.flush();
    // A known design whose DMA bridge could not be read is not identified completely.
    int status = opened.status;
    for (const identify::IdentifiedDesign& design : opened.found.designs)
        if (design.design->dma_bridge && !design.dma_bridge) {
            std::cerr << "Error: " << design.identity.address.to_string() << " " << design.design->name
                      << ": cannot read the design's DMA bridge (see the warning above)\n";
            status = 1;
        } else if (design.design->qdma && !design.qdma) {
            std::cerr << "Error: " << design.identity.address.to_string() << " " << design.design->name
                      << ": cannot read the design's QDMA (see the warning above)\n";
            status = 1;
        }
    return status;
}
