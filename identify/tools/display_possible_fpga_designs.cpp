// display_possible_fpga_designs: lists the PCI devices whose identity matches a known design,
// without opening them under VFIO (libpci and sysfs only), with the driver each is bound to and,
// when it is not vfio-pci, the commands that bind it. Run it before binding, or to see why the
// other tools find nothing.
// Exit status: 0 matching devices listed, 1 none matches (or the bus cannot be listed), 2 usage error.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "pdt_version/version.hpp"
#include "tool_support/open_designs.hpp"
#include "tool_support/possible_designs.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches a pipe or file as printed
    std::vector<std::string> design_files;
    po::options_description desc("Options");
    desc.add_options()
        ("help,h", "show this help")
        ("version", "print the toolkit version and exit")
        ("design_file", po::value(&design_files)->composing(), "add the designs of this JSON file to the built-in ones (repeatable)");
    try {
        po::variables_map vm;
        po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
        po::notify(vm);
        if (vm.count("help")) {
            std::cout << "Usage: " << argv[0] << " [options]\nLists the PCI devices that match a known design, "
                      << "without opening them.\n\n" << desc;
            return 0;
        }
        if (vm.count("version")) {
            std::cout << pdt_version::version_line(argv[0]) << "\n";
            return 0;
        }
    } catch (const po::error& e) {
        std::cerr << "Error: " << e.what() << "\nUsage: " << argv[0] << " [options] (--help for the list)\n";
        return 2;
    }
    auto registry = designs::Registry::load(design_files);
    if (!registry.ok()) {
        std::cerr << "Error: " << registry.error().message() << "\n";
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
