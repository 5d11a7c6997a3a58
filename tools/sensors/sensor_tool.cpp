#include "sensor_tool.hpp"

#include <iostream>

#include "cli/device_options.hpp"
#include "cli/option_names.hpp"
#include "sensors/open_sensors.hpp"

namespace sensor_tool {

void add_design_options(boost::program_options::options_description& description, Options& options) {
    cli::add_device_option(description, options.devices);
    cli::add_sim_design_option(description, options.sim_designs);
    cli::add_design_file_option(description, options.design_files);
    cli::add_lock_timeout_option(description, options.lock_timeout);
}

Opened open(const Options& options) {
    Opened opened;
    tool_support::DesignSelection selection{options.sim_designs, {}};
    std::string usage;
    auto locations = tool_support::parse_locations(options.devices, "--device", usage);
    auto lock_timeout = cli::parse_lock_timeout(options.lock_timeout);
    auto registry = designs::Registry::load(options.design_files);
    if (!locations || !lock_timeout || !registry) {
        std::cerr << "Error: "
                  << (!locations      ? usage
                      : !lock_timeout ? lock_timeout.error().message()
                                      : cli::name_options(registry.error()).message())
                  << "\n";
        opened.status = tool_support::kUsageError;
        return opened;
    }
    selection.locations = *locations;
    selection.lock_timeout = *lock_timeout;
    opened.registry = std::make_unique<designs::Registry>(std::move(*registry));
    opened.designs = tool_support::open_designs(*opened.registry, selection, options.json ? &std::cerr : &std::cout,
                                                std::cerr);
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
