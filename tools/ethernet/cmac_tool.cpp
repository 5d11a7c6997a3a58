#include "cmac_tool.hpp"

#include <iostream>

#include "base/format.hpp"
#include "base/json_text.hpp"
#include "base/numbers.hpp"
#include "cli/device_options.hpp"
#include "cli/option_names.hpp"

namespace cmac_tool {

void add_options(boost::program_options::options_description& description, Options& options) {
    cli::add_device_selection_options(description, options);
    cli::add_lock_timeout_option(description, options.lock_timeout);
    description.add_options()("port", boost::program_options::value(&options.port),
                              "only the CMAC port of this number (default: every port)");
}

namespace {

// The port numbers of the opened designs, as "0, 1".
std::string cmac_tool_port_list(const std::vector<Port>& ports) {
    std::string text;
    for (const Port& port : ports)
        text += (text.empty() ? "" : ", ") + std::to_string(port.number());
    return text;
}

}  // namespace

Opened open(const Options& options) {
    Opened opened;
    std::string usage;
    auto locations = tool_support::parse_locations(options.devices, "--device", usage);
    auto lock_timeout = cli::parse_lock_timeout(options.lock_timeout);
    auto port = options.port.empty() ? pdt::Result<uint64_t>(0) : pdt::parse_number("port", options.port, 0, 255);
    auto registry = designs::Registry::load(options.design_files);
    if (!locations || !lock_timeout || !port || !registry) {
        std::cerr << "Error: "
                  << (!locations      ? usage
                      : !lock_timeout ? lock_timeout.error().message()
                      : !port         ? port.error().message()
                                      : cli::name_options(registry.error()).message())
                  << "\n";
        opened.status = tool_support::kUsageError;
        return opened;
    }
    tool_support::DesignSelection selection{options.sim_designs, *locations};
    selection.lock_timeout = *lock_timeout;
    opened.registry = std::make_unique<designs::Registry>(std::move(*registry));
    opened.designs = tool_support::open_designs(*opened.registry, selection, options.json ? &std::cerr : &std::cout,
                                                std::cerr);
    opened.status = opened.designs.status;
    if (opened.designs.found.designs.empty())
        return opened;
    std::vector<Port> all;
    for (const identify::IdentifiedDesign& design : opened.designs.found.designs) {
        auto ports = ethernet::open_cmac_ports(*design.device, *design.design, design.identity.revision);
        if (!ports) {
            std::cerr << "Error: " << design.identity.address.to_string() << " " << design.design->text_name() << ": "
                      << ports.error().message() << "\n";
            opened.status = 1;
            continue;
        }
        for (ethernet::Cmac& cmac : *ports)
            all.push_back({design.design->text_name(), design.identity.address.to_string(), std::move(cmac)});
    }
    if (all.empty()) {
        std::cerr << "No CMAC designs to operate on\n";
        opened.status = 1;
        return opened;
    }
    for (Port& p : all)
        if (options.port.empty() || p.number() == *port)
            opened.ports.push_back(std::move(p));
    if (opened.ports.empty()) {
        std::cerr << "Error: --port " << options.port << ": no CMAC port " << *port
                  << " in the designs found (their ports: " << cmac_tool_port_list(all) << ")\n";
        opened.status = 1;
    }
    return opened;
}

std::string port_name(const Port& port) {
    return pdt::format("Design %s device %s port %u", port.design.c_str(), port.pci_address.c_str(), port.number());
}

std::string port_json(const Port& port) {
    return "\"design\": " + pdt::json_quote(port.design) + ", \"pci_address\": " + pdt::json_quote(port.pci_address) +
           ", \"port\": " + std::to_string(port.number());
}

int status_of(const pdt::Error& error) { return error.usage ? tool_support::kUsageError : 1; }

}  // namespace cmac_tool
