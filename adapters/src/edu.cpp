// The edu row: --endpoint edu, QEMU's edu bound to vfio-pci (edu::open_copy_endpoint on the
// kernel's device) or its register model (--edu_sim).
#include "adapter_glue.hpp"

#include <cmath>

#include "edu/edu_copy_endpoint.hpp"
#include "owning_endpoint.hpp"
#include "sim/edu_model.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;

namespace adapters {
namespace {

// What the edu endpoint copies through: the bus and device, or the simulated edu.
struct EduOwned {
    std::unique_ptr<vfio::KernelDeviceBus> bus;
    std::unique_ptr<vfio::KernelDevice> device;
    sim::SimEdu sim;
};
using OwningEduEndpoint = OwningEndpoint<EduOwned>;

OpenedCopyEndpoint open_sim_edu(const EduEndpointCli& cli, const streams::Lie& lie) {
    if (!(cli.sim_delay_ms >= 0 && cli.sim_delay_ms <= 10000))
        return pdt::usage_error("--edu_sim_delay_ms", "edu endpoint", "expected 0 to 10000 ms");
    sim::EduModelOptions options;
    options.dma_delay = std::chrono::microseconds(std::llround(cli.sim_delay_ms * 1000));
    options.lie = lie;
    auto owner = std::make_unique<OwningEduEndpoint>();
    owner->owned.sim = sim::make_sim_edu(vfio::PciAddress::parse("0000:01:00.0").value(), options);
    edu::CopyEndpointConfig config;
    config.name = "simulated edu 0000:01:00.0";
    config.report_pci_address = false;  // no function of this machine to read LnkSta of
    owner->inner = PDT_TRY(edu::open_copy_endpoint(*owner->owned.sim.device, config));
    return std::unique_ptr<streams::CopyEndpoint>(std::move(owner));
}

// The edu bound to vfio-pci at `locations` (anywhere when empty).
OpenedCopyEndpoint open_kernel_edu(const std::vector<vfio::PciAddress>& locations, std::chrono::milliseconds timeout,
                                   bool no_iommu) {
    vfio::KernelOptions options = tool_support::kernel_options();
    options.lock.timeout = timeout;
    options.no_iommu = no_iommu;
    vfio::DeviceFilter filter;
    filter.vendor_id = edu::VENDOR_ID;
    filter.device_id = edu::DEVICE_ID;
    options.selection.add_filter(filter);
    for (const vfio::PciAddress& location : locations)
        options.selection.add_location(location);
    auto owner = std::make_unique<OwningEduEndpoint>();
    owner->owned.bus = std::make_unique<vfio::KernelDeviceBus>(options);
    const auto found = PDT_TRY(owner->owned.bus->scan());
    if (found.empty()) {
        const std::string where = locations.empty() ? "1234:11e8" : locations.front().to_string();
        if (auto why = tool_support::vfio_unavailable(options.dev_vfio_root))
            return pdt::make_error("open edu endpoint", where, ENODEV, *why);
        return pdt::make_error("open edu endpoint", where, ENODEV, "no edu device (1234:11e8) bound to vfio-pci there");
    }
    owner->owned.device = PDT_TRY(owner->owned.bus->open_device(found.front()));
    owner->inner = PDT_TRY(edu::open_copy_endpoint(*owner->owned.device, {}));
    return std::unique_ptr<streams::CopyEndpoint>(std::move(owner));
}

}  // namespace

void add_edu_options(po::options_description& options, EndpointSettings& settings) {
    EduEndpointCli& cli = settings.edu;
    options.add_options()("edu_sim", po::bool_switch(&cli.sim),
                          "edu: a simulated edu (register model) instead of the kernel's device")(
        "edu_sim_delay_ms", po::value(&cli.sim_delay_ms)->default_value(cli.sim_delay_ms),
        "edu: the simulated edu's delay from DMA command to transfer (QEMU's edu: 100 ms)");
}

// The device is xdma's --device (one) and --lock_timeout; a lie (--model_lie) only with --edu_sim.
OpenedCopyEndpoint open_edu_endpoint(const EndpointSettings& settings, EndpointHolds&) {
    const EduEndpointCli& cli = settings.edu;
    const std::string& lie = settings.model.lie;
    if (!lie.empty() && !cli.sim)
        return pdt::usage_error("--model_lie", "edu endpoint", "a lie is for the simulated edu: add --edu_sim");
    const streams::Lie sim_lie = lie.empty() ? streams::Lie{} : PDT_TRY(streams::parse_lie("option --model_lie", lie));
    std::string usage;
    auto locations = tool_support::parse_locations(settings.xdma.devices, "--device", usage);
    if (!locations)
        return pdt::usage_error("--device", "edu endpoint", usage);
    if (locations->size() > 1)
        return pdt::usage_error("--device", "edu endpoint", "the edu endpoint measures one device: give one --device");
    const auto timeout = PDT_TRY(cli::parse_lock_timeout(settings.xdma.lock_timeout));
    if (cli.sim)
        return open_sim_edu(cli, sim_lie);
    return open_kernel_edu(*locations, timeout, settings.xdma.no_iommu);
}

}  // namespace adapters
