// cmac_configuration: reads, and sets, the configuration fields of the CMAC ports (PG203) of the
// identified designs that fpga_sio's cmac_configuration sets, by its field names:
//   cmac_configuration [--port N] [--dump] [--reset] [field_name=<value> ...]
// Each field given is written on every chosen port whose CMAC was built with it, then read back
// (a field that does not read back as written fails naming its register and field); --reset
// resets the ports after; --dump shows every field, as it does when nothing else is asked.
// The DRP attributes fpga_sio also sets (ctl_rx_max_packet_len, ...) need the CMAC's DRP window,
// which the driver does not reach yet: naming one is a usage error that says so.
// Exit status: 0 done, 1 no design or no CMAC port found, a field that did not read back or a
// port that could not be read, 2 usage error.
#include <array>
#include <cstdio>
#include <iostream>
#include <optional>

#include "base/format.hpp"
#include "base/numbers.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "cmac_tool.hpp"

namespace po = boost::program_options;

namespace {

enum class Needs { Tx, Rx, RsFec, GtLoopback };

// A field this tool sets: fpga_sio's name, the driver's field, what the port needs to have it.
struct ConfigField {
    const char* name;
    Needs needs;
    bool ethernet::CmacConfig::*value;
    std::optional<bool> ethernet::CmacConfigChange::*change;
};

using C = ethernet::CmacConfig;
using D = ethernet::CmacConfigChange;
const ConfigField kConfigFields[] = {
    {"tx_enable", Needs::Tx, &C::ctl_tx_enable, &D::ctl_tx_enable},
    {"tx_send_lfi", Needs::Tx, &C::ctl_tx_send_lfi, &D::ctl_tx_send_lfi},
    {"tx_send_rfi", Needs::Tx, &C::ctl_tx_send_rfi, &D::ctl_tx_send_rfi},
    {"tx_send_idle", Needs::Tx, &C::ctl_tx_send_idle, &D::ctl_tx_send_idle},
    {"tx_test_pattern", Needs::Tx, &C::ctl_tx_test_pattern, &D::ctl_tx_test_pattern},
    {"rx_enable", Needs::Rx, &C::ctl_rx_enable, &D::ctl_rx_enable},
    {"rx_force_resync", Needs::Rx, &C::ctl_rx_force_resync, &D::ctl_rx_force_resync},
    {"rx_test_pattern", Needs::Rx, &C::ctl_rx_test_pattern, &D::ctl_rx_test_pattern},
    {"rx_rsfec_enable", Needs::RsFec, &C::ctl_rx_rsfec_enable, &D::ctl_rx_rsfec_enable},
    {"tx_rsfec_enable", Needs::RsFec, &C::ctl_tx_rsfec_enable, &D::ctl_tx_rsfec_enable},
    {"gt_loopback", Needs::GtLoopback, &C::ctl_gt_loopback, &D::ctl_gt_loopback},
};
constexpr size_t kFieldCount = sizeof kConfigFields / sizeof kConfigFields[0];
// fpga_sio's DRP attributes: not reachable through this driver yet.
const char* const kDrpFields[] = {"ctl_tx_ignore_fcs", "ctl_tx_fcs_ins_enable", "ctl_tx_ipg_value",
                                  "ctl_rx_delete_fcs", "ctl_rx_min_packet_len", "ctl_rx_max_packet_len"};

bool has_field(const ethernet::CmacBuild& build, Needs needs) {
    switch (needs) {
    case Needs::Tx: return build.tx;
    case Needs::Rx: return build.rx;
    case Needs::RsFec: return build.rs_fec;
    case Needs::GtLoopback: return build.gt_loopback;
    }
    return false;
}

using Requests = std::array<std::optional<unsigned>, kFieldCount>;

// fpga_sio's field_name=<value> words; a usage error names the word.
std::optional<std::string> parse_requests(const std::vector<std::string>& words, Requests& requests) {
    for (const std::string& word : words) {
        const size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == word.size())
            return "Invalid field_name=<value> : " + word;
        const std::string name = word.substr(0, eq);
        for (const char* drp : kDrpFields)
            if (name == drp)
                return "field " + name + " is a DRP attribute: the CMAC driver does not reach the DRP window yet";
        size_t index = 0;
        while (index < kFieldCount && name != kConfigFields[index].name)
            ++index;
        if (index == kFieldCount)
            return "Unknown field name " + name;
        const auto value = pdt::parse_number(name, word.substr(eq + 1), 0, 0xffffffffu);
        if (!value)
            return "Invalid field_name=<value> : " + word;
        if (requests[index])
            return "Multiple values specified for field " + name;
        if (*value > 1)
            return pdt::format("Value %llu is too large for field %s", static_cast<unsigned long long>(*value),
                               name.c_str());
        requests[index] = static_cast<unsigned>(*value);
    }
    return std::nullopt;
}

struct PortReport {
    std::string changes;  // JSON objects
    std::string fields;   // JSON members
};

// Sets each requested field the port has, one at a time, each read back by the driver.
int modify(const cmac_tool::Port& port, const Requests& requests, bool json, PortReport& report) {
    for (size_t i = 0; i < kFieldCount; ++i) {
        if (!requests[i])
            continue;
        const ConfigField& f = kConfigFields[i];
        if (!has_field(port.cmac.build(), f.needs)) {
            if (!json)
                std::printf("Unable to modify %s as required CMAC features not present\n", f.name);
            report.changes += pdt::format("%s{\"field\": \"%s\", \"unable\": \"required CMAC features not present\"}",
                                          report.changes.empty() ? "" : ", ", f.name);
            continue;
        }
        auto before = port.cmac.read_config();
        if (!before) {
            std::cerr << "Error: " << cmac_tool::port_name(port) << ": " << before.error().message() << "\n";
            return 1;
        }
        const unsigned from = (*before).*f.value ? 1 : 0, to = *requests[i];
        if (from != to) {
            ethernet::CmacConfigChange change;
            change.*f.change = to != 0;
            if (auto set = port.cmac.configure(change); !set) {
                std::cerr << "Error: " << cmac_tool::port_name(port) << " field " << f.name << ": "
                          << set.error().message() << "\n";
                return cmac_tool::status_of(set.error());
            }
            if (!json)
                std::printf("%s field %s changed from %u -> %u\n", cmac_tool::port_name(port).c_str(), f.name, from, to);
        } else if (!json) {
            std::printf("%s field %s value unchanged at value %u\n", cmac_tool::port_name(port).c_str(), f.name, to);
        }
        report.changes += pdt::format("%s{\"field\": \"%s\", \"from\": %u, \"to\": %u}",
                                      report.changes.empty() ? "" : ", ", f.name, from, to);
    }
    return 0;
}

int dump(const cmac_tool::Port& port, bool json, PortReport& report) {
    auto config = port.cmac.read_config();
    if (!config) {
        std::cerr << "Error: " << cmac_tool::port_name(port) << ": " << config.error().message() << "\n";
        return 1;
    }
    if (!json)
        std::printf("%s:\n", cmac_tool::port_name(port).c_str());
    for (const ConfigField& f : kConfigFields) {
        if (!has_field(port.cmac.build(), f.needs))
            continue;
        const unsigned value = (*config).*f.value ? 1 : 0;
        if (!json)
            std::printf("  %s=%u\n", f.name, value);
        report.fields += pdt::format("%s\"%s\": %u", report.fields.empty() ? "" : ", ", f.name, value);
    }
    return 0;
}

std::string field_list() {
    std::string text;
    for (const ConfigField& f : kConfigFields)
        text += std::string(text.empty() ? "" : ", ") + f.name;
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    cmac_tool::Options options;
    std::vector<std::string> words;
    bool dump_config = false, reset_port = false;
    po::options_description description("Options");
    cli::add_help_and_version(description);
    cmac_tool::add_options(description, options);
    description.add_options()("dump", po::bool_switch(&dump_config), "then show every field each port has")(
        "reset", po::bool_switch(&reset_port), "after the changes, pulse each port's GT and user resets");
    cli::add_json_option(description, options.json, cli::JsonForm::Document);
    const cli::CommandLine line(
        description,
        cli::fpga_sio_usage(argv[0], "Displays, or modifies with field_name=<value> arguments, the configuration "
                                     "of the CMAC ports of the identified FPGA designs. Fields (1 bit each): " +
                                         field_list() + "."),
        &words, "field");
    if (auto status = cli::parse_command_line(argc, argv, line))
        return *status;
    Requests requests{};
    if (auto error = parse_requests(words, requests)) {
        std::cerr << "Error: " << *error << "\n";
        return 2;
    }
    const bool modifying = !words.empty();
    cmac_tool::Opened opened = cmac_tool::open(options);
    if (opened.ports.empty())
        return opened.status;
    int status = opened.status;
    std::vector<PortReport> reports(opened.ports.size());
    for (size_t i = 0; i < opened.ports.size(); ++i)
        if (modifying)
            status = std::max(status, modify(opened.ports[i], requests, options.json, reports[i]));
    for (const cmac_tool::Port& port : opened.ports)
        if (reset_port) {
            port.cmac.reset_port();
            if (!options.json)
                std::printf("Reset design %s device %s port %u\n", port.design.c_str(), port.pci_address.c_str(),
                            port.number());
        }
    for (size_t i = 0; i < opened.ports.size(); ++i)
        if (dump_config || (!modifying && !reset_port))
            status = std::max(status, dump(opened.ports[i], options.json, reports[i]));
    if (options.json) {
        std::string ports;
        for (size_t i = 0; i < opened.ports.size(); ++i)
            ports += (i ? ", {" : "{") + cmac_tool::port_json(opened.ports[i]) + ", \"changes\": [" +
                     reports[i].changes + "], \"reset\": " + (reset_port ? "true" : "false") + ", \"fields\": {" +
                     reports[i].fields + "}}";
        std::printf("{\"ports\": [%s]}\n", ports.c_str());
    }
    return status;
}
