// What the CMAC tools (cmac_statistics, cmac_configuration, cmac_link_control) share: their
// options (the designs to open, --port, --json), opening every identified design's CMAC ports
// and choosing the ports the options name, the line fpga_sio heads a port with, and JSON text.
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/device_options.hpp"
#include "designs/registry.hpp"
#include "ethernet/open_cmac.hpp"
#include "tool_support/open_designs.hpp"

namespace cmac_tool {

struct Options : cli::DeviceSelection {
    std::string lock_timeout;
    std::string port;  // --port: one port number, or empty for every port
    bool json = false;
};
// --device, --sim_design, --design_file, --lock_timeout and --port.
void add_options(boost::program_options::options_description& description, Options& options);

// One CMAC port of an identified design.
struct Port {
    std::string design;       // the design's display name, as fpga_sio names it
    std::string pci_address;  // the device, as fpga_sio names it ("0000:15:00.0")
    ethernet::Cmac cmac;
    unsigned number() const { return cmac.build().port; }
};

struct Opened {
    // 0: ports to operate on; 1: no design, no CMAC, no such port or a port that could not be
    // opened; 2: usage error. The errors are on stderr.
    int status = 0;
    std::unique_ptr<designs::Registry> registry;
    tool_support::OpenedDesigns designs;  // holds the devices the ports' windows are in
    std::vector<Port> ports;              // the chosen ports, design by design in port order
};

// Opens the designs the options name and their CMAC ports (those --port names). With none:
// fpga_sio's "No CMAC designs to operate on", or the port that does not exist, on stderr.
Opened open(const Options& options);

// fpga_sio's head of a port's lines: "Design <name> device <bdf> port <n>".
std::string port_name(const Port& port);

// The port's identity as JSON members: "design": ..., "pci_address": ..., "port": n.
std::string port_json(const Port& port);

// 2 for a usage error, else 1 (a main's exit status for a failed operation).
int status_of(const pdt::Error& error);

}  // namespace cmac_tool
