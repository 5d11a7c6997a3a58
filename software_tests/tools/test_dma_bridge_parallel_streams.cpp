// test_dma_bridge_parallel_streams: every looped-back H2C -> C2H stream pair of every stream
// design (or those --stream_device selects), all at once, continuously, with every received
// byte checked while running. A rate line per pair every 10 s; Ctrl-C (or --duration) stops,
// drains and prints the totals. Exit status: 0 PASS, 1 FAIL (also when nothing was tested),
// 2 usage error.
#include <cstdio>
#include <iostream>

#include "stream_tools/cli.hpp"

int main(int argc, char** argv) {
    stream_tools::line_buffer_stdout();
    stream_tools::CommonCli cli;
    std::vector<std::string> stream_devices;
    boost::program_options::options_description description;
    description.add_options()("stream_device", boost::program_options::value(&stream_devices)->composing(),
                              "<bdf>,<h2c_channel>: test only this pair (repeatable)");
    stream_tools::add_common_options(description, cli);
    adapters::add_cuda_stream_options(description, cli.cuda);
    adapters::add_etsoc1_stream_options(description, cli.etsoc1);
    cli.cuda.loopback = true;  // each channel's data comes back through GPU memory
    if (auto status = stream_tools::parse_command_line(
            argc, argv, description, "Soak-tests looped-back DMA stream pairs in parallel, verifying every byte."))
        return *status;
    auto selectors = stream_tools::channel_selectors("stream_device", stream_devices);
    if (!selectors.ok()) {
        std::cerr << "Error: " << selectors.error().message() << "\n";
        return 2;
    }
    return stream_tools::run_on_stream_devices(cli, [&](const auto& devices, const auto& options) {
        return stream_tools::run_parallel_streams(devices, *selectors, options, stdout);
    });
}
