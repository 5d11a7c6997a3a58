// dump_pci_info: fpga_sio's dump of PCI functions and their bridges up to the root (or lspci
// -vvv's text with --lspci), with the link summary of the whole path. Arguments as fpga_sio's:
// BDFs, vendor:device or vendor IDs.
#include <array>
#include <iostream>
#include <span>
#include <string>

#include "pcie_tools/decode.hpp"
#include "pcie_tools/dump_info.hpp"
#include "pcie_tools/config_text.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "pci_tool.hpp"

// Installed also under fpga_sio's names (pci_tool.hpp).

namespace po = boost::program_options;

namespace {

// `lspci -vvv`'s text for one function: the same decoder the lspci comparison test checks
// token by token against lspci itself.
pdt::Result<pcie::Lines> lspci_lines(pcie::ConfigBackend& bus, const pcie::PciAddress& address) {
    pcie::ConfigSpace* space = PDT_TRY(bus.open(address));
    const pcie::DeviceConfig decoded = PDT_TRY(pcie::decode_device(*space));
    return pcie::format_lspci_function(decoded);
}

}  // namespace

int main(int argc, char** argv) {
    auto [tool, access] = pci_tool::start(argv[0], "dump_pci_info");
    std::string lock_timeout;
    std::vector<std::string> devices;
    po::options_description visible(tool + " [options] [<bdf> | <vendor>:<device> | <vendor>]...\n"
                                              "Dumps config space of each device and its bridges up to the root; no argument "
                                              "dumps every vendor 10ee device.\n\nOptions");
    cli::add_help_and_version(visible);
    pci_tool::add_access_option(visible, access,
                                "config-space access: libpci, pciaccess, vfio (vfio-pci bound functions via their "
                                "VFIO config region), dump:<lspci -xxxx file>, sim");
    visible.add_options()(
        "lspci", "print each function as `lspci -vvv` does (title, header, every capability) instead of fpga_sio's layout");
    bool json = false;
    cli::add_json_option(visible, json, cli::JsonForm::Document);
    cli::add_lock_timeout_option(visible, lock_timeout);  // --access vfio
    po::variables_map vm;
    if (auto status = cli::parse_command_line(
            argc, argv, {visible, cli::tool_usage(tool, "Usage: "), &devices, "device"}, &vm))
        return *status;
    pci_tool::warn_unless_root(access, "PCI Express capabilities cannot be shown");
    const auto lock_wait = cli::parse_lock_timeout(lock_timeout);
    if (!lock_wait)
        return cli::report_error(tool, lock_wait.error());
    auto bus = pci_tool::open_config_backend(access, false, *lock_wait);
    if (!bus)
        return cli::report_error(tool, bus.error());
    auto selected = pcie::select_devices(**bus, devices);
    if (!selected)
        return cli::report_error(tool, selected.error());
    int status = 0;
    nlohmann::json out = nlohmann::json::array();
    for (const pcie::PciAddress& address : *selected) {
        if (json) {
            auto j = pcie::dump_device_json(**bus, address);
            if (j)
                out.push_back(*j);
            else
                out.push_back({{"device", address.to_string()}, {"error", j.error().message()}});
            status = j ? status : 1;
            continue;
        }
        auto lines = vm.count("lspci") ? lspci_lines(**bus, address) : pcie::dump_device(**bus, address);
        if (!lines) {
            std::cerr << tool << ": " << lines.error().message() << "\n";
            status = 1;
            continue;
        }
        for (const std::string& line : *lines)
            std::cout << line << "\n";
        std::cout << "\n";
    }
    if (json)
        std::cout << out.dump(2) << "\n";
    return status;
}
