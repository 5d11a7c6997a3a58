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
    cli.transfer_timeout = "60";
    std::string samples = "100000", max_packet_bytes = "0x100000";
    po::options_description d;
    d.add_options()
        ("sim_design", po::value(&cli.sim_designs)->composing(),
         "test a simulated instance of this design instead of the kernel's VFIO devices (repeatable)")
        ("design_file", po::value(&cli.design_files)->composing(), "add the designs of this JSON file (repeatable)")
        ("device_routing", po::value(&cli.device_routing)->composing(),
         "<bdf>[,<master>:<slave>]... AXI4-Stream Switch routes of a device; unlisted master ports disabled")
        ("samples", po::value(&samples), "latency samples per packet length (default 100000, as fpga_sio)")
        ("max_packet_bytes", po::value(&max_packet_bytes),
         "longest H2C packet; lengths double from the design's tdata width (default 0x100000)")
        ("transfer_timeout", po::value(&cli.transfer_timeout), "seconds to wait for one completion (default 60)")
        ("json", po::bool_switch(&cli.json), "print JSON Lines instead of text (with a device_hold line per device lock)");
    tool_support::add_lock_timeout_option(d, cli.lock_timeout);
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
    return run_on_stream_devices(cli, [&](const std::vector<StreamDevice*>& devices, const StreamRunOptions& run) {
        options.timeout = run.test.transfer_timeout;
        return run_crc64_latency(devices, options, stdout);
    });
}
