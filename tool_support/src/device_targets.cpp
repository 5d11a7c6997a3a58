#include "tool_support/device_targets.hpp"

#include <cstdio>
#include <iostream>

#include "cli/option_names.hpp"
#include "sim/edu_model.hpp"
#include "tool_support/open_designs.hpp"
#include "vfio_access/kernel.hpp"

namespace tool_support {

bool is_dma_bar(const DeviceTarget& t, unsigned bar) {
    for (const designs::Design* d : t.designs)
        if (d->dma_bridge && d->dma_bridge->bar == bar)
            return true;
    return false;
}

std::vector<unsigned> bar_widths(const DeviceTarget& t, unsigned bar, const std::vector<unsigned>& otherwise) {
    if (is_dma_bar(t, bar))
        return {4};
    const vfio::DeviceIdentity& id = t.device->identity();
    if (id.vendor_id == 0x1234 && id.device_id == 0x11e8)
        return {4, 8};
    return otherwise;
}

std::string target_name(const DeviceTarget& t) {
    const vfio::DeviceIdentity& id = t.device->identity();
    if (!t.designs.empty())
        return t.designs.front()->name;
    char text[16];
    std::snprintf(text, sizeof text, "%04x:%04x", id.vendor_id, id.device_id);
    return text;
}

namespace {

int run_simulated(const designs::Registry& registry, const TargetSelection& s, std::ostream& info,
                  const std::function<int(const DeviceTarget&)>& fn) {
    DesignSelection selection{s.sim_designs, {}};
    for (const std::string& text : s.devices)  // checked by the main
        selection.locations.push_back(vfio::PciAddress::parse(text).value());
    OpenedDesigns opened = open_designs(registry, selection, &info, std::cerr);
    int status = opened.status;
    for (const identify::IdentifiedDesign& d : opened.found.designs)
        status = std::max(status, fn({d.device.get(), {d.design}, true}));
    return status;
}

}  // namespace

int for_each_target(const designs::Registry& registry, const TargetSelection& s, std::ostream& info,
                    const std::function<int(const DeviceTarget&)>& fn) {
    if (s.edu_sim) {
        sim::SimEdu edu = sim::make_sim_edu(vfio::PciAddress::parse("0000:01:00.0").value());
        info << "simulated edu 0000:01:00.0 (QEMU's edu register model)" << std::endl;
        return fn({edu.device.get(), {}, true});
    }
    if (!s.sim_designs.empty())
        return run_simulated(registry, s, info, fn);
    vfio::KernelOptions options = kernel_options();
    for (const std::string& text : s.devices)
        options.selection.add_location(vfio::PciAddress::parse(text).value());
    vfio::KernelDeviceBus bus(options);
    auto found = bus.scan();
    if (!found.ok() || found->empty()) {
        const auto why = vfio_unavailable(options.dev_vfio_root);
        std::cerr << "Error: "
                  << (!found.ok() ? cli::name_options(found.error()).message()
                                  : "no vfio-pci device at the --device locations" + (why ? ": " + *why : std::string()))
                  << "\n";
        return 1;
    }
    int status = 0;
    for (const vfio::DeviceIdentity& identity : *found) {
        auto device = bus.open_device(identity);
        if (!device.ok()) {
            std::cerr << "Error: " << cli::name_options(device.error()).message() << "\n";
            status = 1;
            continue;
        }
        status = std::max(status, fn({device->get(), registry.candidates(identity), false}));
    }
    return status;
}

}  // namespace tool_support
