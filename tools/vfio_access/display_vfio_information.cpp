// display_vfio_information: VFIO API version and extensions, the IOMMU model of the container
// (page sizes, IOVA ranges, capabilities), and per selected vfio-pci device its group, flags,
// regions and IRQ blocks. Exit 0 all reported, 1 none found or one failed, 2 usage error.
#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "vfio_access/kernel.hpp"
#include "vfio_manager/client.hpp"
#include "vfio_report.hpp"

namespace po = boost::program_options;

namespace {

struct Options {
    vfio::KernelOptions kernel = vfio::kernel_options_from_environment();
    bool json = false;
};

// Returns the options, or the exit code to leave with (0 for --help, 2 for a usage error).
std::variant<Options, int> parse_options(int argc, char** argv) {
    po::options_description description(
        "Usage: display_vfio_information [options]\nShows the VFIO API version and extensions, the IOMMU model of the "
        "container, and per vfio-pci device its group, flags, regions and interrupts.\n\nOptions");
    std::vector<std::string> locations;
    std::string vendor, device_id, subsystem_vendor, subsystem_id;
    std::string lock_timeout;
    Options options;
    cli::add_help_and_version(description);
    cli::add_device_option(description, locations);
    description.add_options()
        ("vendor", po::value(&vendor), "vendor ID, hex")
        ("device-id", po::value(&device_id), "device ID, hex")
        ("subsystem-vendor", po::value(&subsystem_vendor), "subsystem vendor ID, hex")
        ("subsystem-id", po::value(&subsystem_id), "subsystem device ID, hex");
    cli::add_json_option(description, options.json, cli::JsonForm::Document);
    cli::add_lock_timeout_option(description, lock_timeout);
    if (auto status = cli::parse_command_line(
            argc, argv, {description, cli::tool_usage("display_vfio_information")}))
        return *status;
    const auto lock_wait = cli::parse_lock_timeout(lock_timeout);
    if (!lock_wait)
        return cli::report_error("display_vfio_information", lock_wait.error());
    options.kernel.lock.directory = vfio::configured_lock_directory();
    options.kernel.lock.timeout = *lock_wait;
    vfio::DeviceFilter filter;
    const std::pair<const std::string*, std::optional<uint16_t>*> ids[] = {
        {&vendor, &filter.vendor_id}, {&device_id, &filter.device_id},
        {&subsystem_vendor, &filter.subsystem_vendor_id}, {&subsystem_id, &filter.subsystem_device_id}};
    const char* names[] = {"--vendor", "--device-id", "--subsystem-vendor", "--subsystem-id"};
    for (size_t i = 0; i < 4; ++i) {
        if (ids[i].first->empty())
            continue;
        auto parsed = vfio::parse_hex_id(*ids[i].first, names[i]);
        if (!parsed) {
            std::cerr << "display_vfio_information: " << parsed.error().message() << "\n";
            return 2;
        }
        *ids[i].second = *parsed;
    }
    if (filter.vendor_id || filter.device_id || filter.subsystem_vendor_id || filter.subsystem_device_id)
        options.kernel.selection.add_filter(filter);
    for (const std::string& location : locations) {
        auto added = options.kernel.selection.add_location(location);
        if (!added) {
            std::cerr << "display_vfio_information: " << added.error().message() << "\n";
            return 2;
        }
    }
    return options;
}

// Why no device was found, and for each --device location why it is not usable (absent, or
// bound to another driver: with the commands that bind it).
void report_no_device(const vfio::KernelOptions& kernel) {
    std::cerr << "No device found: no " << (kernel.selection.empty() ? "" : "selected ")
              << "PCI device is bound to vfio-pci\n";
    for (const vfio::PciAddress& location : kernel.selection.locations())
        if (auto bound = vfio::check_bound_to_vfio(kernel.sysfs_root, location); !bound)
            std::cerr << "  " << bound.error().message() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches a pipe or file as printed
    auto parsed = parse_options(argc, argv);
    if (const int* exit_code = std::get_if<int>(&parsed))
        return *exit_code;
    const Options& options = std::get<Options>(parsed);

    vfio::KernelOptions kernel = options.kernel;
    auto manager = vfio_manager::connect_if_running();  // a running VFIO manager owns the groups
    if (!manager) {
        std::cerr << "Error: " << manager.error().message() << "\n";
        return 1;
    }
    kernel.broker = *manager;
    vfio::KernelDeviceBus bus(kernel);
    auto ids = bus.scan();
    if (!ids) {
        std::cerr << "Error: " << ids.error().message() << "\n";
        return 1;
    }
    vfio::report::Report report;
    std::vector<std::unique_ptr<vfio::KernelDevice>> open_devices;  // held until the report is done
    for (const vfio::DeviceIdentity& id : *ids) {
        auto device = bus.open_device(id);
        auto gathered = device ? vfio::report::gather_device(**device) : pdt::Result<vfio::report::DeviceReport>(device.error());
        if (gathered)
            report.devices.push_back(std::move(gathered).value());
        else
            report.errors.push_back(gathered.error().message());
        if (device)
            open_devices.push_back(std::move(device).value());
    }
    auto container = bus.container_info();
    if (!container) {
        std::cerr << "Error: " << container.error().message() << "\n";
        for (const std::string& error : report.errors)  // why each device could not be opened
            std::cerr << "Error: " << error << "\n";
        if (ids->empty())
            report_no_device(options.kernel);
        return 1;
    }
    report.container = std::move(container).value();
    if (options.json)
        std::cout << vfio::report::to_json(report).dump(2) << "\n";
    else
        std::cout << vfio::report::format_text(report);
    for (const std::string& error : report.errors)
        std::cerr << "Error: " << error << "\n";
    if (ids->empty()) {
        report_no_device(options.kernel);
        return 1;
    }
    return report.errors.empty() ? 0 : 1;
}
