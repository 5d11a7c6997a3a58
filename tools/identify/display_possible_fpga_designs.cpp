// display_possible_fpga_designs: lists the PCI devices whose identity matches a known design,
// without opening them under VFIO (libpci and sysfs only), with the driver each is bound to and,
// when it is not vfio-pci, the commands that bind it. Run it before binding, or to see why the
// other tools find nothing.
// Exit status: 0 matching devices listed, 1 none matches (or the bus cannot be listed), 2 usage error.
#include <cstdio>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "cli/option_names.hpp"
#include "tool_support/open_designs.hpp"
#include "tool_support/possible_designs.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches a pipe or file as printed
    std::vector<std::string> design_files;
    po::options_description desc("Options");
    cli::add_help_and_version(desc);
    cli::add_design_file_option(desc, design_files);
    if (auto status = cli::parse_fpga_sio_command_line(
            argc, argv, desc, "Lists the PCI devices that match a known design, without opening them."))
        return *status;
    auto registry = designs::Registry::load(design_files);
    if (!registry.ok()) {
        std::cerr << "Error: " << cli::name_options(registry.error()).message() << "\n";
        return 2;
    }
    const vfio::KernelOptions options = tool_support::kernel_options();
    auto found = tool_support::possible_designs(options, *registry);
    if (!found.ok()) {
        std::cerr << "Error: " << found.error().message() << "\n";
        return 1;
    }
    if (found->empty()) {
        std::cout << "No PCI device matches a known design\n";
        return 1;
    }
    bool needs_binding = false;
    for (const tool_support::PossibleDesign& possible : *found) {
        std::cout << tool_support::possible_design_line(possible) << "\n" << tool_support::binding_line(possible) << "\n";
        needs_binding = needs_binding || !possible.device.bound_to_vfio();
    }
    if (needs_binding)
        if (auto cause = tool_support::vfio_unavailable(options.dev_vfio_root))
            std::cout << "Note: " << *cause << "\n";
    return 0;
}
