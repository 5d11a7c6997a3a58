#include "identify/bus_choice.hpp"

#include "sim/design_sim.hpp"

#if __has_include("vfio_access/kernel.hpp")
#include "vfio_access/kernel.hpp"
#define PDT_HAVE_KERNEL_BUS 1
#endif

namespace identify {

vfio::Result<std::unique_ptr<vfio::Bus>> open_bus(const std::vector<std::string>& sim_designs,
                                                  const designs::Registry& registry,
                                                  const std::vector<vfio::PciAddress>& locations) {
    if (!sim_designs.empty())
        return std::unique_ptr<vfio::Bus>(PDT_TRY(sim::make_design_bus(sim_designs, registry)));
#ifdef PDT_HAVE_KERNEL_BUS
    vfio::KernelOptions options;
    for (const vfio::PciAddress& location : locations)
        options.selection.add_location(location);
    return std::unique_ptr<vfio::Bus>(std::make_unique<vfio::KernelBus>(std::move(options)));
#else
    // SEAM: helper "vfio"'s vfio::KernelBus (vfio_access/kernel.hpp) is used once merged.
    (void)locations;
    return vfio::make_error("scan VFIO devices", "kernel bus", ENODEV,
                            "no VFIO devices: this build has no kernel VFIO backend; --sim_design NAME selects a "
                            "simulated design");
#endif
}

}  // namespace identify
