#include "tool_support/open_designs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ostream>

#include "cli/option_names.hpp"
#include "sim/design_sim.hpp"
#include "tool_support/possible_designs.hpp"
#include "vfio_manager/client.hpp"

namespace tool_support {

std::string unknown_design_message(const std::string& name) {
    return "--sim_design " + name +
           ": unknown design (display_identified_pcie_fpga_designs --list_designs lists the known designs)";
}

std::optional<std::string> selection_error(const DesignSelection& selection, const designs::Registry& registry) {
    for (const std::string& name : selection.sim_designs)
        if (!registry.find(name))
            return unknown_design_message(name);
    return std::nullopt;
}

vfio::KernelOptions kernel_options() {
    vfio::KernelOptions options = vfio::kernel_options_from_environment();
    options.lock.directory = lock_directory();
    return options;
}

std::string lock_directory() { return vfio::configured_lock_directory(); }

vfio::LockOptions sim_lock_options(std::chrono::milliseconds timeout) {
    vfio::LockOptions lock;
    if (const char* text = std::getenv("PDT_LOCK_SIM"); text && std::string(text) == "1") {
        lock.directory = lock_directory();
        lock.timeout = timeout;
    }
    return lock;
}

pdt::Result<std::unique_ptr<vfio::DeviceBus>> open_bus(const DesignSelection& selection, const designs::Registry& registry) {
    if (!selection.sim_designs.empty())
        return std::unique_ptr<vfio::DeviceBus>(
            PDT_TRY(sim::make_design_bus(selection.sim_designs, registry, sim_lock_options(selection.lock_timeout),
                                         {selection.sim_link_bytes_per_second, selection.sim_link_latency})));
    vfio::KernelOptions options = kernel_options();
    options.lock.timeout = selection.lock_timeout;
    options.one_container_for_mappings = selection.one_container_for_mappings;
    options.no_iommu = selection.no_iommu;
    for (const vfio::PciAddress& location : selection.locations)
        options.selection.add_location(location);
    options.isolate_iommu_groups = selection.isolate_iommu_groups;  // a running manager decides for itself
    // A running VFIO manager owns the groups: the devices then come from it (and stay open).
    options.broker = PDT_TRY(vfio_manager::connect_if_running());
    return std::unique_ptr<vfio::DeviceBus>(std::make_unique<vfio::KernelDeviceBus>(std::move(options)));
}

std::optional<std::string> vfio_unavailable(const std::string& dev_vfio_root) {
    auto available = vfio::check_vfio_available(dev_vfio_root);
    if (available.ok())
        return std::nullopt;
    if (available.error().code == ENODEV)
        return "vfio-pci is not loaded: " + available.error().object + " does not exist (load it: sudo modprobe vfio-pci)";
    return available.error().message();
}

std::vector<std::string> explain_no_design(const vfio::KernelOptions& options, const designs::Registry& registry,
                                           const std::vector<vfio::PciAddress>& locations) {
    std::vector<std::string> causes;
    if (auto cause = vfio_unavailable(options.dev_vfio_root))
        causes.push_back(*cause);
    auto scanned = vfio::scan_pci_bus(options);
    if (!scanned.ok()) {
        causes.push_back("cannot list the PCI devices: " + scanned.error().message());
        return causes;
    }
    unsigned matching = 0;
    for (const vfio::ScannedDevice& device : *scanned) {
        if (!locations.empty() &&
            std::find(locations.begin(), locations.end(), device.identity.address) == locations.end())
            continue;
        const std::vector<const designs::Design*> candidates = registry.candidates(device.identity);
        if (candidates.empty())
            continue;
        ++matching;
        if (device.bound_to_vfio())
            continue;
        causes.push_back(device.identity.description() + " (design " + identify::candidate_names(candidates) + ") is " +
                         (device.driver.empty() ? "bound to no driver" : "bound to " + device.driver) +
                         ", not vfio-pci; bind it: " + vfio::bind_to_vfio_commands(device.identity.address, device.driver));
    }
    if (matching == 0)
        causes.push_back("no PCI device " + std::string(locations.empty() ? "" : "at the given locations ") +
                         "matches a known design (" + std::to_string(scanned->size()) + " PCI devices listed)");
    return causes;
}

void set_physical_slots(identify::Identification& found, const std::string& sysfs_root) {
    for (identify::IdentifiedDesign& design : found.designs)
        design.physical_slot = physical_slot(sysfs_root, design.identity.address);
}

void report_warnings(const identify::Identification& found, std::ostream& errors) {
    for (const identify::IdentifiedDesign& design : found.designs)
        for (const std::string& warning : design.warnings)
            errors << "Warning: " << design.identity.address.to_string() << " " << design.design->name << ": "
                   << warning << "\n";
}

OpenedDesigns open_designs(const designs::Registry& registry, const DesignSelection& selection, std::ostream* progress,
                           std::ostream& errors) {
    OpenedDesigns opened;
    if (auto usage = selection_error(selection, registry)) {
        errors << "Error: " << *usage << "\n";
        opened.status = kUsageError;
        return opened;
    }
    auto bus = open_bus(selection, registry);
    if (!bus.ok()) {
        errors << "Error: " << cli::name_options(bus.error()).message() << "\n";
        opened.status = bus.error().usage ? kUsageError : 1;
        return opened;
    }
    opened.bus = std::move(bus).value();
    identify::IdentifyOptions options;
    options.locations = selection.locations;
    options.progress = progress;
    auto found = identify::identify_designs(*opened.bus, registry, options);
    if (progress)
        progress->flush();
    if (!found.ok()) {
        errors << "Error: " << cli::name_options(found.error()).message() << "\n";
        opened.status = 1;
        return opened;
    }
    opened.found = std::move(found).value();
    if (!opened.bus->simulated())  // a simulated device sits in no slot
        set_physical_slots(opened.found, kernel_options().sysfs_root);
    report_warnings(opened.found, errors);
    for (const pdt::Error& failure : opened.found.failures)
        errors << "Error: " << cli::name_options(failure).message() << "\n";
    if (!opened.found.failures.empty())
        opened.status = 1;
    if (opened.found.designs.empty() && opened.found.failures.empty()) {
        errors << "Error: no known FPGA design found on the " << opened.bus->name() << " bus"
               << (selection.locations.empty() ? "" : " at the given --device locations") << "\n";
        if (!opened.bus->simulated())
            for (const std::string& cause : explain_no_design(kernel_options(), registry, selection.locations))
                errors << "  " << cause << "\n";
        opened.status = 1;
    }
    errors.flush();
    return opened;
}

std::optional<std::vector<vfio::PciAddress>> parse_locations(const std::vector<std::string>& texts,
                                                             const std::string& option, std::string& error) {
    std::vector<vfio::PciAddress> locations;
    for (const std::string& text : texts) {
        auto address = vfio::PciAddress::parse(text);
        if (!address.ok()) {
            error = option + ": " + address.error().message();
            return std::nullopt;
        }
        locations.push_back(*address);
    }
    return locations;
}

std::vector<DesignUnderTest> designs_under_test(const identify::Identification& found) {
    std::vector<DesignUnderTest> designs;
    for (const identify::IdentifiedDesign& design : found.designs)
        if (design.device)
            designs.push_back({design.device.get(), design.design, design.identity});
    return designs;
}

}  // namespace tool_support
