// reg_rw (dma_ip_drivers' name): reads, or writes, one 8, 16, 32 or 64-bit register at an offset
// of a BAR of a device (a --sim_design design, or any vfio-pci --device), from user space with no
// kernel module. A read outside the BAR is refused before any access; a write needs --write and
// prints the value before and after. A design's XDMA DMA BAR takes 32-bit accesses only (PG195).
// Exit status: 0 done, 1 a device failed or the access was refused (BAR, offset), 2 usage error.
#include <iostream>

#include "base/format.hpp"
#include "base/numbers.hpp"
#include "cli/option_names.hpp"
#include "tool_support/bar_tool_main.hpp"
#include "tool_support/device_targets.hpp"
#include "user_design/bar_register.hpp"

namespace po = boost::program_options;

namespace {

struct RegOptions : cli::DeviceSelection {
    std::string bar, offset, width = "32", write;
    bool json = false;
};

void add_reg_options(po::options_description& desc, RegOptions& o) {
    desc.add_options()("bar", po::value(&o.bar), "the BAR, 0 to 5 (required)")(
        "offset", po::value(&o.offset), "byte offset of the register in the BAR (required)")(
        "width", po::value(&o.width), "bits of the access: 8, 16, 32 or 64 (default 32)")(
        "write", po::value(&o.write), "write this value, printing the register's value before and after");
    cli::add_json_option(desc, o.json, cli::JsonForm::Document);
}

struct RegRequest {
    user_design::RegisterAccess access;
    std::optional<uint64_t> write;
    tool_support::TargetSelection targets;  // --sim_design, --device
    bool json = false;
};

std::optional<std::string> parse_reg_request(const RegOptions& o, RegRequest& request) {
    if (o.bar.empty() || o.offset.empty())
        return std::string("--bar and --offset are required");
    auto bar = pdt::parse_number("bar", o.bar, 0, 5);
    auto offset = pdt::parse_number("offset", o.offset, 0, UINT64_MAX);
    auto width = pdt::parse_number("width", o.width, 8, 64);
    auto value = pdt::parse_number("write", o.write.empty() ? "0" : o.write, 0, UINT64_MAX);
    if (auto error = tool_support::first_error(bar, offset, width, value))
        return error;
    if (*width != 8 && *width != 16 && *width != 32 && *width != 64)
        return "parse option --width \"" + o.width + "\": expected 8, 16, 32 or 64 bits";
    if (auto error = tool_support::unnamed_device_error(o))
        return error;
    request.access = {static_cast<unsigned>(*bar), *offset, static_cast<unsigned>(*width)};
    if (!o.write.empty())
        request.write = *value;
    request.targets = {o.sim_designs, o.devices};
    request.json = o.json;
    return std::nullopt;
}

std::string register_value(uint64_t value, unsigned bits) {
    return pdt::format("0x%0*llx", static_cast<int>(bits / 4), static_cast<unsigned long long>(value));
}

int access_target(const tool_support::DeviceTarget& t, const RegRequest& r, bool json) {
    const user_design::RegisterAccess& a = r.access;
    const std::vector<unsigned> widths = tool_support::bar_widths(t, a.bar, {1, 2, 4, 8});
    const std::string where = t.device->identity().address.to_string() + " " + tool_support::target_name(t) +
                              " BAR " + std::to_string(a.bar) + " offset " + pdt::hex(a.offset) + " " +
                              std::to_string(a.bits) + " bits";
    const std::string json_head = "{\"device\": \"" + t.device->identity().address.to_string() + "\", \"bar\": " +
                                  std::to_string(a.bar) + ", \"offset\": " + std::to_string(a.offset) +
                                  ", \"bits\": " + std::to_string(a.bits);
    if (!r.write) {
        auto value = user_design::read_register(*t.device, a, widths);
        if (!value) {
            std::cerr << "Error: " << cli::name_options(value.error()).message() << "\n";
            return value.error().usage ? 2 : 1;
        }
        std::cout << (json ? json_head + ", \"value\": " + std::to_string(*value) + "}\n"
                           : "reg_rw " + where + ": " + register_value(*value, a.bits) + "\n");
        return 0;
    }
    auto wrote = user_design::write_register(*t.device, a, *r.write, widths);
    if (!wrote) {
        std::cerr << "Error: " << cli::name_options(wrote.error()).message() << "\n";
        return wrote.error().usage ? 2 : 1;
    }
    std::cout << (json ? json_head + ", \"before\": " + std::to_string(wrote->before) + ", \"written\": " +
                             std::to_string(wrote->written) + ", \"after\": " + std::to_string(wrote->after) + "}\n"
                       : "reg_rw " + where + ": before " + register_value(wrote->before, a.bits) + ", wrote " +
                             register_value(wrote->written, a.bits) + ", after " +
                             register_value(wrote->after, a.bits) + "\n");
    return 0;
}

int access_targets(const tool_support::CheckedUsage& checked, const RegRequest& request) {
    return tool_support::for_each_target(
        checked.registry, request.targets, request.json ? std::cerr : std::cout,
        [&](const tool_support::DeviceTarget& t) { return access_target(t, request, request.json); });
}

}  // namespace

int main(int argc, char** argv) {
    return tool_support::bar_tool_main<RegOptions, RegRequest>(
        argc, argv,
        {"Reads or writes a register at an offset of a BAR (--write VALUE).", {}, add_reg_options, parse_reg_request,
         access_targets});
}
