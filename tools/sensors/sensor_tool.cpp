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
    auto checked = tool_support::checked_usage(std::nullopt, options, options.lock_timeout);
    if (!checked) {
        opened.status = tool_support::kUsageError;
        return opened;
    }
    opened.registry = std::make_unique<designs::Registry>(std::move(checked->registry));
    opened.designs = tool_support::open_designs(*opened.registry, checked->selection,
                                                options.json ? &std::cerr : &std::cout, std::cerr);
    opened.status = opened.designs.status;
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
