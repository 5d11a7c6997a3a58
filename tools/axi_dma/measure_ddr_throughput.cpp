// measure_ddr_throughput (fpga_sio's name): the throughput of the card memory behind an AXI DMA
// (PG021, Direct Register Mode) in TEF1001_ddr3_throughput. As fpga_sio it times MM2S alone,
// S2MM alone and both, through the whole memory; by our rule it passes only when bytes were
// verified, which needs the design's M_AXIS_MM2S looped to S_AXIS_S2MM and the memory in a BAR
// (docs/examples/TEF1001_ddr3_throughput_loopback.json): then every byte is written by S2MM,
// read by MM2S once and checked. Exit status: 0 verified, 1 failed or nothing verified, 2 usage.
#include "base/numbers.hpp"
#include "cli/device_options.hpp"
#include "ddr_throughput_run.hpp"
#include "tool_support/bar_tool_main.hpp"

namespace po = boost::program_options;

namespace {

struct Options : cli::DeviceSelection {
    std::string memory_size;
    std::string transfer_timeout = std::to_string(cli::kDefaultTransferTimeout.count());
    bool json = false;
};

void add_ddr_options(po::options_description& desc, Options& o) {
    desc.add_options()("memory_size", po::value(&o.memory_size),
                       "bytes of the card memory measured, from address 0 (default: all the design gives)");
    cli::add_transfer_timeout_option(desc, o.transfer_timeout);
    cli::add_json_option(desc, o.json, cli::JsonForm::Document);
}

std::optional<std::string> parse_request(const Options& o, ddr_throughput::Request& request) {
    auto timeout = cli::parse_transfer_timeout(o.transfer_timeout);
    auto size = o.memory_size.empty() ? pdt::Result<uint64_t>(0) : pdt::parse_size(o.memory_size);
    if (auto error = tool_support::first_error(timeout, size))
        return error;
    if (!o.memory_size.empty() && *size == 0)
        return "parse option --memory_size \"" + o.memory_size + "\": at least one byte";
    request = {o.sim_designs, o.devices, std::nullopt, *timeout, o.json};
    if (!o.memory_size.empty())
        request.memory_size = *size;
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    return tool_support::bar_tool_main<Options, ddr_throughput::Request>(
        argc, argv,
        {"Measures the throughput of the card memory behind an AXI DMA (PG021) and verifies the bytes it moved "
         "where the design lets the host read them.",
         {}, add_ddr_options, parse_request, ddr_throughput::run});
}
