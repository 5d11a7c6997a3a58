// display_physical_slots: every PCI function that has a physical slot, from sysfs
// (/sys/bus/pci/slots/*/address) or from the Slot Capabilities of the function or a port above
// it, with its NUMA node. Lines as fpga_sio's tool of the same name prints them. Installed also
// under fpga_sio's names (pci_tool.hpp).
#include <array>
#include <cstdlib>
#include <iostream>
#include <span>
#include <string>

#include "pcie_tools/dump_info.hpp"
#include "pcie_tools/physical_slots.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "pci_tool.hpp"

namespace po = boost::program_options;

namespace {

// The backends with this machine behind them read its sysfs; dump files and the simulation
// only a tree named with --sysfs_root.
std::optional<std::string> sysfs_root_for(const std::string& access, const po::variables_map& vm,
                                          const std::string& given) {
    if (vm.count("sysfs_root"))
        return given;
    if (access == "libpci" || access == "pciaccess" || access == "vfio") {
        const char* environment = std::getenv("PDT_SYSFS_ROOT");
        return std::string(environment && *environment ? environment : "/sys");
    }
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    auto [tool, access] = pci_tool::start(argv[0], "display_physical_slots");
    std::string sysfs_root;
    std::vector<std::string> devices;
    po::options_description visible(
        "Usage: " + tool + " [options] [<bdf> | <vendor>:<device> | <vendor>]...\n"
        "Lists the PCI functions that have a physical slot (sysfs, or the Physical Slot Number in the Slot "
        "Capabilities of the function or a port above it) and their NUMA node; no argument: every function.\n\nOptions");
    cli::add_help_and_version(visible);
    pci_tool::add_access_option(visible, access,
                                "config-space access: libpci, pciaccess, vfio, dump:<lspci -xxxx file>, sim");
    visible.add_options()(
        "sysfs_root", po::value(&sysfs_root),
        "sysfs tree to read slots and NUMA nodes from (default: $PDT_SYSFS_ROOT, else /sys, for libpci, pciaccess "
        "and vfio; none for dump: and sim)");
    bool json = false;
    cli::add_json_option(visible, json, cli::JsonForm::Document);
    po::variables_map vm;
    if (auto status = cli::parse_command_line(
            argc, argv, {visible, cli::tool_usage(tool), &devices, "device"}, &vm))
        return *status;
    pci_tool::warn_unless_root(access, "slots are found from sysfs only");
    auto bus = pci_tool::open_config_backend(access, false, std::chrono::milliseconds(0));
    if (!bus)
        return cli::report_error(tool, bus.error());
    pcie::SlotOptions options;
    options.sysfs_root = sysfs_root_for(access, vm, sysfs_root);
    std::optional<std::vector<pcie::PciAddress>> only;
    if (!devices.empty()) {
        auto selected = pcie::select_devices(**bus, devices);
        if (!selected)
            return cli::report_error(tool, selected.error());
        only = *selected;
    }
    auto report = pcie::find_physical_slots(**bus, options, only);
    if (!report)
        return cli::report_error(tool, report.error());
    if (json) {
        std::cout << pcie::physical_slots_json(*report).dump(2) << "\n";
        return 0;
    }
    for (const std::string& note : report->notes)
        std::cerr << note << "\n";
    if (report->slots.empty()) {
        std::cout << "No PCI function has a physical slot (none in sysfs, no Slot Capabilities with a Physical Slot "
                     "Number)\n";
        return 0;
    }
    for (const std::string& line : pcie::format_physical_slots(*report))
        std::cout << line << "\n";
    return 0;
}
