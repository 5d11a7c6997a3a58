// xilinx_axi_stream_switch_set_routing: sets the AXI4-Stream Switch (PG085) routes of stream
// designs: --device_routing for the devices named (only those are opened), or the design's
// default routes with --default_routing. A VFIO close resets the device and so disables every
// port again: --pause_before_vfio_close keeps the devices open until Enter.
// Exit status: 0 routes applied, 1 no device processed or a device failed, 2 usage error.
#include <iostream>
#include <string>

#include "stream_tools/cli.hpp"
#include "cli/device_options.hpp"
#include "adapters/xdma_stream_devices.hpp"
#include "cli/option_names.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;
using namespace stream_tools;

int main(int argc, char** argv) {
    stream_tools::line_buffer_stdout();
    std::vector<std::string> routing_texts, sim_designs, design_files;
    bool default_routing = false, force = false, pause = false;
    std::string lock_timeout_text;
    po::options_description description;
    description.add_options()
        ("device_routing", po::value(&routing_texts)->composing(),
         "<bdf>[,<master>:<slave>]...: routes for this device; unlisted master ports are disabled (repeatable)")
        ("default_routing", po::bool_switch(&default_routing), "the design's default routes on every device with a switch")
        ("force_update", po::bool_switch(&force), "write and commit the routes even when unchanged")
        ("pause_before_vfio_close", po::bool_switch(&pause), "wait for Enter before closing the devices");
    cli::add_sim_design_option(description, sim_designs);
    cli::add_design_file_option(description, design_files);
    cli::add_lock_timeout_option(description, lock_timeout_text);
    if (auto status = parse_command_line(argc, argv, description, "Sets AXI4-Stream Switch routes."))
        return *status;
    if (default_routing == !routing_texts.empty()) {
        std::cerr << "Error: " << (default_routing ? "Use of both default_routing and device_routing options is invalid"
                                                   : "Either default_routing or at least one device_routing option "
                                                     "must be specified")
                  << "\n";
        return 2;
    }
    auto lock_timeout = cli::parse_lock_timeout(lock_timeout_text);
    if (!lock_timeout.ok()) {
        std::cerr << "Error: " << lock_timeout.error().message() << "\n";
        return 2;
    }
    std::vector<DeviceRouting> routings;
    std::vector<vfio::PciAddress> locations;
    for (const std::string& text : routing_texts) {
        auto routing = parse_device_routing("device_routing", text);
        if (!routing.ok()) {
            std::cerr << "Error: " << routing.error().message() << "\n";
            return 2;
        }
        routings.push_back(*routing);
        locations.push_back(routing->address);
    }
    auto registry = designs::Registry::load(design_files);
    if (!registry.ok()) {
        std::cerr << "Error: " << cli::name_options(registry.error()).message() << "\n";
        return 2;
    }
    tool_support::OpenedDesigns opened =
        tool_support::open_designs(*registry, {sim_designs, locations, *lock_timeout}, &std::cout, std::cerr);
    if (opened.status == tool_support::kUsageError)
        return opened.status;
    int processed = 0, switches = 0, failed = static_cast<int>(opened.found.failures.size());
    for (identify::IdentifiedDesign& design : opened.found.designs) {
        if (!design.axi_switch)
            continue;
        ++switches;
        adapters::SwitchRoutes wanted = adapters::default_switch_routes(*design.design, design.identity.revision);
        wanted.resize(design.axi_switch->routes.size());
        for (const DeviceRouting& routing : routings) {
            if (routing.address != design.identity.address)
                continue;
            wanted.assign(design.axi_switch->routes.size(), std::nullopt);
            for (const SwitchRoute& route : routing.routes) {
                if (route.master >= wanted.size()) {
                    std::cerr << "Error: " << routing.address.to_string() << " master port " << route.master
                              << " out of range: the switch has " << wanted.size() << " master ports\n";
                    return 2;
                }
                wanted[route.master] = route.slave;
            }
        }
        auto update = adapters::update_switch_routes(design, wanted, force);
        if (!update.ok()) {
            std::cerr << "Error: " << update.error().message() << "\n";
            ++failed;
            continue;
        }
        std::cout << update->line << "\n";
        ++processed;
    }
    if (processed == 0) {
        std::cout << (switches == 0 ? "No devices processed: no design with an AXI4-Stream Switch found\n"
                                    : "No devices processed: no AXI4-Stream Switch took its routes (see the errors)\n");
        return 1;
    }
    if (pause) {
        std::cout << "Routes processed in " << processed << " devices. Press return to close the VFIO devices."
                  << std::endl;
        std::string line;
        std::getline(std::cin, line);
    }
    return failed == 0 ? 0 : 1;
}
