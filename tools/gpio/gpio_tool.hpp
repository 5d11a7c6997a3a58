// What ddr3_reset_control and flash_m2_led share: the options naming the designs to open, and
// opening every identified design that lists a GPIO of one kind.
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/device_options.hpp"
#include "designs/registry.hpp"
#include "gpio/axi_gpio.hpp"
#include "tool_support/bar_tool_usage.hpp"

namespace gpio_tool {

struct Options : cli::DeviceSelection {
    std::string lock_timeout;
};
// --device (-d), --sim_design, --design_file and --lock_timeout.
void add_options(boost::program_options::options_description& description, Options& options);

// A design's GPIO of the kind asked for.
struct DesignGpio {
    const identify::IdentifiedDesign* design = nullptr;
    gpio::AxiGpio gpio;
};

struct Opened {
    // 0: GPIOs to operate on; 1: no design with one, or a design whose GPIO could not be opened;
    // 2: usage error. The errors are on stderr.
    int status = 0;
    tool_support::NamedDesigns named;  // holds the devices the GPIOs' windows are in
    std::vector<DesignGpio> gpios;     // in the order the designs were found
};

// Opens the designs the options name and their GPIO of `type`. With none: "No designs with a
// <display name> found" on stderr, status 1.
Opened open(const Options& options, designs::PeripheralType type);

}  // namespace gpio_tool
