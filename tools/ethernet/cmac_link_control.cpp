// cmac_link_control: brings the CMAC ports (PG203) of the identified designs up as fpga_sio's
// cmac_link_control does -- shows a sample of each port's registers, enables what is disabled
// (the RS-FEC in each direction the port has, then ctl_tx_enable, then ctl_rx_enable), showing
// the registers again after each change -- then waits (--align_timeout, bounded) for the receive
// side to align and says why it does not: lanes without block lock or alignment-marker sync, a
// local fault; a remote fault once aligned. --down clears ctl_tx_enable and ctl_rx_enable instead.
// Each field set is read back. When it changed a setting on a terminal, it waits for return
// before closing the devices (a VFIO close may reset the CMAC), as fpga_sio does.
// Exit status: 0 every port up (aligned where it has a receive side) or down, 1 no design or no
// CMAC port found, a port not aligned or with a remote fault, a field that did not read back,
// 2 usage error.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <utility>

#include "base/format.hpp"
#include "base/json_text.hpp"
#include "base/numbers.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "cmac_tool.hpp"

namespace po = boost::program_options;
namespace pg203 = ethernet::pg203;

namespace {

using Registers = std::vector<std::pair<std::string, std::string>>;

// fpga_sio's sample of a port's registers, by its names, in its order.
Registers sample_registers(const ethernet::Cmac& cmac) {
    const auto field = [&](uint32_t offset, pg203::Field f) {
        return std::to_string(f.get(cmac.read_register(offset)));
    };
    const uint32_t version = cmac.read_register(pg203::CORE_VERSION_REG);
    return {
        {"core_version", pdt::format("%u.%u", pg203::core_version_major.get(version),
                                     pg203::core_version_minor.get(version))},
        {"gt_reset_all", field(pg203::GT_RESET_REG, pg203::ctl_gt_reset_all)},
        {"usr_rx_serdes_reset", field(pg203::RESET_REG, pg203::usr_rx_serdes_reset)},
        {"usr_rx_reset", field(pg203::RESET_REG, pg203::usr_rx_reset)},
        {"usr_tx_reset", field(pg203::RESET_REG, pg203::usr_tx_reset)},
        {"switch_core_mode_reg", field(pg203::SWITCH_CORE_MODE_REG, pg203::Field{0, 1})},
        {"configuration_tx_reg1_ctl_tx_enable", field(pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_enable)},
        {"configuration_tx_reg1_ctl_tx_send_lfi", field(pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_send_lfi)},
        {"configuration_tx_reg1_ctl_tx_send_rfi", field(pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_send_rfi)},
        {"configuration_tx_reg1_ctl_tx_send_idle", field(pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_send_idle)},
        {"configuration_tx_reg1_ctl_tx_test_pattern", field(pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_test_pattern)},
        {"core_mode_reg", field(pg203::CORE_MODE_REG, pg203::core_mode)},
        {"configuration_rx_reg1_ctl_rx_enable_mask", field(pg203::CONFIGURATION_RX_REG1, pg203::ctl_rx_enable)},
        {"rsfec_config_enable_ctl_rx_rsfec_enable", field(pg203::RSFEC_CONFIG_ENABLE, pg203::ctl_rx_rsfec_enable)},
        {"rsfec_config_enable_ctl_tx_rsfec_enable", field(pg203::RSFEC_CONFIG_ENABLE, pg203::ctl_tx_rsfec_enable)},
    };
}

struct PortRun {
    const cmac_tool::Port* port = nullptr;
    bool json = false;
    bool changed = false;
    std::string registers_json;  // the last sample
    std::string actions_json;
    std::string aligned_json = "null";
    std::string why;

    void show() {
        const Registers registers = sample_registers(port->cmac);
        registers_json.clear();
        for (const auto& [name, value] : registers) {
            if (!json)
                std::printf("%s = %s\n", name.c_str(), value.c_str());
            registers_json += (registers_json.empty() ? "\"" : ", \"") + name + "\": " +
                              (name == "core_version" ? pdt::json_quote(value) : value);
        }
    }

    // One change, when the field is not yet as wanted: the action's line, the write (read
    // back by the driver), and the registers again.
    int apply(bool now, bool wanted, const char* action, std::optional<bool> ethernet::CmacConfigChange::*field) {
        if (now == wanted)
            return 0;
        if (!json)
            std::printf("\n%s\n", action);
        actions_json += (actions_json.empty() ? "" : ", ") + pdt::json_quote(action);
        ethernet::CmacConfigChange change;
        change.*field = wanted;
        if (auto set = port->cmac.configure(change); !set) {
            std::cerr << "Error: " << cmac_tool::port_name(*port) << ": " << set.error().message() << "\n";
            return cmac_tool::status_of(set.error());
        }
        changed = true;
        show();
        return 0;
    }

    int bring(bool up) {
        const ethernet::CmacBuild& build = port->cmac.build();
        auto config = port->cmac.read_config();
        if (!config) {
            std::cerr << "Error: " << cmac_tool::port_name(*port) << ": " << config.error().message() << "\n";
            return 1;
        }
        using D = ethernet::CmacConfigChange;
        int status = 0;
        if (up && build.rs_fec && build.rx)
            status = apply(config->ctl_rx_rsfec_enable, true, "Enabling RX RSFEC", &D::ctl_rx_rsfec_enable);
        if (!status && up && build.rs_fec && build.tx)
            status = apply(config->ctl_tx_rsfec_enable, true, "Enabling TX RSFEC", &D::ctl_tx_rsfec_enable);
        if (!status && build.tx)
            status = apply(config->ctl_tx_enable, up, up ? "Setting TX_ENABLE" : "Clearing TX_ENABLE", &D::ctl_tx_enable);
        if (!status && build.rx)
            status = apply(config->ctl_rx_enable, up, up ? "Setting RX_ENABLE" : "Clearing RX_ENABLE", &D::ctl_rx_enable);
        return status;
    }

    // Where the port has a receive side: waits for stat_rx_aligned, then checks the remote fault.
    int check_aligned(std::chrono::milliseconds timeout) {
        const std::string name = cmac_tool::port_name(*port);
        if (!port->cmac.build().rx) {
            if (!json)
                std::printf("%s: built Simplex TX: no receive side to align\n", name.c_str());
            return 0;
        }
        auto status = port->cmac.wait_aligned(timeout);
        if (!status) {
            why = status.error().message();
            aligned_json = "false";
            std::cerr << "Error: " << name << ": " << why << "\n";
            return 1;
        }
        aligned_json = "true";
        if (status->rx_remote_fault) {
            why = "aligned, but stat_rx_remote_fault is set: the link partner sends a remote fault indication";
            std::cerr << "Error: " << name << ": " << why << "\n";
            return 1;
        }
        if (!json)
            std::printf("%s: RX aligned\n", name.c_str());
        return 0;
    }

    std::string json_text() const {
        return "{" + cmac_tool::port_json(*port) + ", \"registers\": {" + registers_json + "}, \"actions\": [" +
               actions_json + "], \"aligned\": " + aligned_json + ", \"why\": " +
               (why.empty() ? std::string("null") : pdt::json_quote(why)) + "}";
    }
};

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    cmac_tool::Options options;
    bool down = false;
    std::string timeout_text = "2";
    po::options_description description("Options");
    cli::add_help_and_version(description);
    cmac_tool::add_options(description, options);
    description.add_options()("down", po::bool_switch(&down), "bring the ports down: clear ctl_tx_enable and "
                                                              "ctl_rx_enable")(
        "align_timeout", po::value(&timeout_text), "seconds to wait for RX alignment after bringing a port up (default 2)");
    cli::add_json_option(description, options.json, cli::JsonForm::Document);
    if (auto status = cli::parse_fpga_sio_command_line(argc, argv, description,
                                                       "Brings up (enables) the CMAC ports of the identified FPGA "
                                                       "designs and reports why a port does not align."))
        return *status;
    const auto timeout = pdt::parse_seconds("align_timeout", timeout_text);
    if (!timeout || *timeout > 600) {
        std::cerr << "Error: "
                  << (!timeout ? timeout.error().message() : "--align_timeout " + timeout_text + ": at most 600 seconds")
                  << "\n";
        return 2;
    }
    cmac_tool::Opened opened = cmac_tool::open(options);
    if (opened.ports.empty())
        return opened.status;
    int status = opened.status;
    std::vector<PortRun> runs;
    for (const cmac_tool::Port& port : opened.ports) {
        PortRun run;
        run.port = &port;
        run.json = options.json;
        if (!options.json)
            std::printf("%s:\n", cmac_tool::port_name(port).c_str());
        run.show();
        int port_status = run.bring(!down);
        if (!port_status && !down)
            port_status = run.check_aligned(std::chrono::milliseconds(static_cast<long long>(*timeout * 1000 + 0.5)));
        status = std::max(status, port_status);
        runs.push_back(std::move(run));
    }
    if (options.json) {
        std::string ports;
        for (const PortRun& run : runs)
            ports += (ports.empty() ? "" : ", ") + run.json_text();
        std::printf("{\"ports\": [%s]}\n", ports.c_str());
    }
    bool changed = false;
    for (const PortRun& run : runs)
        changed = changed || run.changed;
    if (changed && ::isatty(STDIN_FILENO)) {
        std::printf("Settings changed. Press return to close the VFIO devices.\n");
        std::getchar();
    }
    return status;
}
