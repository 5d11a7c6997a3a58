// display_sensor_values: one read of every sensor (XADC, SYSMON and its slave SYSMONs, CMS) of
// every identified design, each reading with its unit, min and max where the block keeps them,
// and the block's alarms. A design without sensors says so; that is not an error.
// Exit status: 0 every block read, 1 no design found or a block could not be read, 2 usage error.
#include <cstdio>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "sensor_tool.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    sensor_tool::Options options;
    po::options_description description("Options");
    cli::add_help_and_version(description);
    sensor_tool::add_design_options(description, options);
    cli::add_json_option(description, options.json, cli::JsonForm::Document);
    if (auto status = cli::parse_fpga_sio_command_line(argc, argv, description,
                                                       "Displays the sensor values (temperature, supplies, alarms) "
                                                       "of the identified FPGA designs."))
        return *status;
    sensor_tool::Opened opened = sensor_tool::open(options);
    if (opened.found.empty())
        return opened.status;
    int status = opened.status;
    std::string json;
    for (const sensor_tool::DesignBlocks& design : opened.found) {
        if (design.blocks.empty() && !options.json)
            std::cout << "No sensors in design " << design.place.text_name() << " in PCI device " << design.place.address
                      << "\n\n";
        for (const auto& block : design.blocks) {
            auto sample = block->sample();
            if (!sample) {
                std::cerr << "Error: " << design.place.address << " " << block->kind() << " at " << block->location()
                          << ": " << sample.error().message() << "\n";
                status = 1;
                continue;
            }
            if (options.json)
                json += (json.empty() ? "" : ",\n  ") + sensors::format_sample_json(design.place, *block, *sample);
            else
                std::cout << sensors::format_sample_text(design.place, *block, *sample);
        }
    }
    if (options.json)
        std::cout << "{\"blocks\": [" << (json.empty() ? "" : "\n  " + json + "\n") << "]}\n";
    return status;
}
