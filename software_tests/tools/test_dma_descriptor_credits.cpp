// test_dma_descriptor_credits: the Descriptor Credits register, then rings of 1023 descriptors
// driven only by credits (memory pages, or growing stream messages per loopback route).
// Exit status: 0 every design passed, 1 a failure or nothing tested, 2 usage error.
#include <iostream>

#include "stream_tools/cli.hpp"
#include "stream_tools/descriptor_credits.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;
using namespace stream_tools;

int main(int argc, char** argv) {
    std::vector<std::string> devices, routing_texts, sim_designs, design_files;
    po::options_description d;
    d.add_options()
        ("device,d", po::value(&devices)->composing(), "only the device at this PCI location (repeatable)")
        ("device_routing,s", po::value(&routing_texts)->composing(), "<bdf>[,<master>:<slave>]... switch routes")
        ("sim_design", po::value(&sim_designs)->composing(), "test a simulated instance of this design (repeatable)")
        ("design_file", po::value(&design_files)->composing(), "add the designs of this JSON file (repeatable)");
    if (auto status = parse_command_line(argc, argv, d, "Tests XDMA descriptor credits."))
        return *status;
    CreditsOptions options;
    std::string usage;
    auto locations = tool_support::parse_locations(devices, "-d", usage);
    if (!locations) {
        std::cerr << "Error: " << usage << "\n";
        return 2;
    }
    for (const std::string& text : routing_texts) {
        auto routing = parse_device_routing("device_routing", text);
        if (!routing.ok()) {
            std::cerr << "Error: " << routing.error().message() << "\n";
            return 2;
        }
        options.routing.push_back(*routing);
    }
    auto registry = designs::Registry::load(design_files);
    if (!registry.ok()) {
        std::cerr << "Error: " << registry.error().message() << "\n";
        return 2;
    }
    tool_support::OpenedDesigns opened =
        tool_support::open_designs(*registry, {sim_designs, *locations}, &std::cout, std::cerr);
    if (opened.found.designs.empty()) {
        if (opened.status != tool_support::kUsageError)
            std::cout << "Overall FAIL\n";
        return opened.status;
    }
    const int status = run_descriptor_credits(opened.found.designs, options, stdout);
    return opened.status == 0 ? status : opened.status;
}
