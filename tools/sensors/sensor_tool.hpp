// What display_sensor_values and display_temperature_values share: their options (the designs
// to open, --json) and opening every identified design's sensor blocks.
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/device_options.hpp"
#include "sensors/report.hpp"
#include "tool_support/open_designs.hpp"

namespace sensor_tool {

struct Options : cli::DeviceSelection {
    std::string lock_timeout;
    bool json = false;
};
void add_design_options(boost::program_options::options_description& description, Options& options);

struct DesignBlocks {
    sensors::DesignPlace place;
    std::vector<std::unique_ptr<streams::SensorBlock>> blocks;
};

struct Opened {
    int status = 0;  // open_designs' status, or 2 for a usage error, 1 when a block cannot be opened
    std::unique_ptr<designs::Registry> registry;
    tool_support::OpenedDesigns designs;
    std::vector<DesignBlocks> found;  // every identified design, with its blocks (maybe none)
};

// Opens the designs the options name and their sensor blocks; the errors are on stderr.
Opened open(const Options& options);

}  // namespace sensor_tool
