#include "gpio_tool.hpp"

#include <iostream>

namespace gpio_tool {

void add_options(boost::program_options::options_description& description, Options& options) {
    cli::add_device_selection_options(description, options);
    cli::add_lock_timeout_option(description, options.lock_timeout);
}

Opened open(const Options& options, designs::PeripheralType type) {
    Opened opened;
    opened.named = tool_support::open_named_designs(options, options.lock_timeout, &std::cout);
    opened.status = opened.named.status;
    for (const identify::IdentifiedDesign& design : opened.named.designs.found.designs) {
        auto gpio = gpio::open_design_gpio(*design.device, *design.design, design.identity.revision, type);
        if (!gpio) {
            std::cerr << "Error: " << design.identity.address.to_string() << " " << design.design->text_name() << ": "
                      << gpio.error().message() << "\n";
            opened.status = 1;
        } else if (*gpio) {
            opened.gpios.push_back({&design, std::move(**gpio)});
        }
    }
    if (opened.gpios.empty() && opened.status != tool_support::kUsageError) {
        std::cerr << "No " << designs::display_name(type) << " found in the designs\n";
        opened.status = 1;
    }
    return opened;
}

}  // namespace gpio_tool
