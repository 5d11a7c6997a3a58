// pcie_set_speed <bdf> [speed]: set the Target Link Speed of a link and retrain it from the
// port that owns it; exit 1 when the link did not reach the target.
#include <array>
#include <iostream>
#include <optional>
#include <span>
#include <string>

#include "pcie_tools/retrain.hpp"
#include "cli/command_line.hpp"
#include "pci_tool.hpp"

// Installed also under fpga_sio's names (pci_tool.hpp).

namespace po = boost::program_options;

namespace {

constexpr unsigned kMaxTimeoutMs = 600000;

// Decimal milliseconds, 1..kMaxTimeoutMs (a sign, a suffix or an overflow is no number).
std::optional<unsigned> parse_timeout_ms(const std::string& text) {
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    const unsigned long value = std::stoul(text);
    if (value < 1 || value > kMaxTimeoutMs)
        return std::nullopt;
    return static_cast<unsigned>(value);
}

}  // namespace

int main(int argc, char** argv) {
    auto [tool, access] = pci_tool::start(argv[0], "pcie_set_speed");
    std::vector<std::string> arguments;
    std::string timeout_text = "1000";
    po::options_description visible(
        tool + " [options] <domain>:<bus>:<dev>.<func> [<new_speed>]\n"
        "new_speed: Target Link Speed code 1..6 (2.5/5/8/16/32/64 GT/s) or a rate such as 8GT/s; default: the "
        "port's maximum.\n\nOptions");
    cli::add_help_and_version(visible);
    pci_tool::add_access_option(visible, access,
                                "config-space access: libpci, pciaccess, vfio (functions bound to vfio-pci read "
                                "through their VFIO config region, the port above written through libpci), "
                                "dump:<lspci -xxxx file> (read-only), sim");
    visible.add_options()(
        "timeout-ms", po::value(&timeout_text)->default_value(timeout_text),
        "how long to wait for Link Training to clear, before and after Retrain Link (1..600000)");
    if (auto status = cli::parse_command_line(
            argc, argv, {visible, cli::tool_usage(tool, "Usage: "), &arguments, "argument"}))
        return *status;
    if (arguments.empty() || arguments.size() > 2) {
        std::cerr << "Usage: " << tool << " <domain>:<bus>:<dev>.<func> [<new_speed>]\n";
        return 2;
    }
    auto address = pcie::parse_bdf(arguments[0]);
    if (!address) {
        std::cerr << "Invalid PCI device location " << arguments[0] << ": " << address.error().message() << "\n";
        return 2;
    }
    const std::optional<unsigned> timeout_ms = parse_timeout_ms(timeout_text);
    if (!timeout_ms) {
        std::cerr << tool << ": invalid --timeout-ms " << timeout_text
                  << ": expected milliseconds in the range 1.." << kMaxTimeoutMs << "\n";
        return 2;
    }
    pcie::RetrainOptions options;
    options.timeout = std::chrono::milliseconds(*timeout_ms);
    if (arguments.size() == 2) {
        auto speed = pcie::parse_target_speed(arguments[1]);
        if (!speed) {
            std::cerr << "Invalid target link speed " << arguments[1] << ": " << speed.error().message() << "\n";
            return 2;
        }
        options.target_speed = *speed;
    }
    // --access vfio opens the device through VFIO: take its advisory lock first (fail at once when held).
    auto bus = pci_tool::open_config_backend(access, true, std::chrono::milliseconds(0));
    if (!bus)
        return cli::report_error(tool, bus.error());
    auto report = pcie::set_link_speed(**bus, *address, options, [](const std::string& line) { std::cout << line << "\n"; });
    if (!report) {
        std::cout.flush();
        std::cerr << tool << ": " << report.error().message() << "\n";
        return 1;
    }
    return report->reached ? 0 : 1;
}
