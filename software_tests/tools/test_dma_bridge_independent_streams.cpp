// test_dma_bridge_independent_streams: every H2C and C2H stream channel of every stream design
// (or those --h2c_stream_device / --c2h_stream_device select) as independent streams, each
// kept busy on its own. Unlike fpga_sio, every C2H channel fed by an H2C channel under test is
// verified byte for byte. Exit status: 0 PASS, 1 FAIL (also when nothing was tested), 2 usage.
#include <cstdio>
#include <iostream>

#include "stream_tools/cli.hpp"

int main(int argc, char** argv) {
    stream_tools::line_buffer_stdout();
    namespace po = boost::program_options;
    stream_tools::CommonCli cli;
    std::vector<std::string> h2c_devices, c2h_devices;
    po::options_description description;
    description.add_options()
        ("h2c_stream_device", po::value(&h2c_devices)->composing(), "<bdf>,<channel>: test this H2C channel (repeatable)")
        ("c2h_stream_device", po::value(&c2h_devices)->composing(), "<bdf>,<channel>: test this C2H channel (repeatable)");
    stream_tools::add_common_options(description, cli);
    adapters::add_cuda_stream_options(description, cli.cuda);
    adapters::add_etsoc1_stream_options(description, cli.etsoc1);
    if (auto status = stream_tools::parse_command_line(
            argc, argv, description, "Soak-tests DMA stream channels as independent streams, verifying every byte."))
        return *status;
    auto h2c = stream_tools::channel_selectors("h2c_stream_device", h2c_devices);
    auto c2h = stream_tools::channel_selectors("c2h_stream_device", c2h_devices);
    if (!h2c.ok() || !c2h.ok()) {
        std::cerr << "Error: " << (h2c.ok() ? c2h.error() : h2c.error()).message() << "\n";
        return 2;
    }
    return stream_tools::run_on_stream_devices(cli, [&](const auto& devices, const auto& options) {
        return stream_tools::run_independent_streams(devices, *h2c, *c2h, options, stdout);
    });
}
