// crc64_stream_latency: latency percentiles of the CRC64 stream designs for each packet length
// (stream_tools/crc64_latency.hpp), every CRC64 result verified.
// Exit status: 0 every sample verified, 1 a failure or no CRC64 design tested, 2 usage error.
#include <iostream>

#include "stream_tools/cli.hpp"
#include "stream_tools/crc64_latency.hpp"
#include "tool_support/device_locks.hpp"

namespace po = boost::program_options;
using namespace stream_tools;

int main(int argc, char** argv) {
    line_buffer_stdout();
    CommonCli cli;
    std::string samples = "100000", max_packet_bytes = "0x100000";
    po::options_description d;
    cli::add_sim_design_option(d, cli.sim_designs);
    cli::add_design_file_option(d, cli.design_files);
    d.add_options()
        ("device_routing", po::value(&cli.device_routing)->composing(),
         "<bdf>[,<master>:<slave>]... AXI4-Stream Switch routes of a device; unlisted master ports disabled")
        ("samples", po::value(&samples), "latency samples per packet length (default 100000, as fpga_sio)")
        ("max_packet_bytes", po::value(&max_packet_bytes),
         "longest H2C packet; lengths double from the design's tdata width (default 0x100000)");
    cli::add_transfer_timeout_option(d, cli.transfer_timeout);
    cli::add_json_option(d, cli.json, cli::JsonForm::Lines);
    cli::add_lock_timeout_option(d, cli.lock_timeout);
    cli::add_no_iommu_option(d, cli.no_iommu);
    if (auto status = parse_command_line(argc, argv, d, "Measures CRC64 stream latency for each packet length."))
        return *status;
    LatencyOptions options;
    options.json = cli.json;
    auto parsed_samples = parse_number("samples", samples, 1, 100000000);
    auto parsed_max = parse_number("max_packet_bytes", max_packet_bytes, 8, 0x10000000);
    for (const auto* parsed : {&parsed_samples, &parsed_max})
        if (!parsed->ok()) {
            std::cerr << "Error: " << parsed->error().message() << "\n";
            return 2;
        }
    options.samples = *parsed_samples;
    options.max_packet_bytes = *parsed_max;
    return run_on_stream_devices(cli, [&](const std::vector<streams::StreamDevice*>& devices, const StreamRunOptions& run) {
        options.timeout = run.test.transfer_timeout;
        return run_crc64_latency(devices, options, stdout);
    });
}
