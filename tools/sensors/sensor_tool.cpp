#include "sensor_tool.hpp"

#include <iostream>

#include "sensors/open_sensors.hpp"
#include "tool_support/bar_tool_usage.hpp"

namespace sensor_tool {

void add_design_options(boost::program_options::options_description& description, Options& options) {
    cli::add_device_selection_options(description, options);
    cli::add_lock_timeout_option(description, options.lock_timeout);
}

Opened open(const Options& options) {
    Opened opened;
    tool_support::NamedDesigns named =
        tool_support::open_named_designs(options, options.lock_timeout, options.json ? &std::cerr : &std::cout);
    opened.status = named.status;
    opened.registry = std::move(named.registry);
    opened.designs = std::move(named.designs);
    for (const identify::IdentifiedDesign& design : opened.designs.found.designs) {
        DesignBlocks entry{{design.design->name, design.identity.address.to_string(), design.identity.iommu_group,
                            design.design->text_name()},
                           {}};
        auto blocks = sensors::open_sensor_blocks(*design.device, *design.design, design.identity.revision);
        if (!blocks) {
            std::cerr << "Error: " << entry.place.address << " " << entry.place.design << ": "
                      << blocks.error().message() << "\n";
            opened.status = 1;
        } else {
            entry.blocks = std::move(*blocks);
        }
        opened.found.push_back(std::move(entry));
    }
    return opened;
}

}  // namespace sensor_tool
