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

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_sim(const EduEndpointCli& cli) {
    if (!(cli.sim_delay_ms >= 0 && cli.sim_delay_ms <= 10000))
        return pdt::make_error("--edu_sim_delay_ms", "edu endpoint", EINVAL, "expected 0 to 10000 ms");
    sim::EduModelOptions options;
    options.dma_delay = std::chrono::microseconds(std::llround(cli.sim_delay_ms * 1000));
    options.lie = cli.sim_lie;
    auto owner = std::make_unique<OwningEduEndpoint>();
    owner->owned.sim = sim::make_sim_edu(vfio::PciAddress::parse("0000:01:00.0").value(), options);
    edu::CopyEndpointConfig config;
    config.name = "simulated edu 0000:01:00.0";
    config.report_pci_address = false;  // no function of this machine to read LnkSta of
    owner->inner = PDT_TRY(edu::open_copy_endpoint(*owner->owned.sim.device, config));
    return std::unique_ptr<streams::CopyEndpoint>(std::move(owner));
}

}  // namespace

void add_edu_options(po::options_description& options, EduEndpointCli& cli) {
    options.add_options()("edu_sim", po::bool_switch(&cli.sim),
                          "edu: a simulated edu (register model) instead of the kernel's device")(
        "edu_sim_delay_ms", po::value(&cli.sim_delay_ms)->default_value(cli.sim_delay_ms),
        "edu: the simulated edu's delay from DMA command to transfer (QEMU's edu: 100 ms)");
}

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_edu(const EduEndpointCli& cli, const std::vector<std::string>& devices,
                                                             const std::string& lock_timeout, bool no_iommu) {
    std::string usage;
    auto locations = tool_support::parse_locations(devices, "--device", usage);
    if (!locations)
        return pdt::make_error("--device", "edu endpoint", EINVAL, usage);
    if (locations->size() > 1)
        return pdt::make_error("--device", "edu endpoint", EINVAL, "the edu endpoint measures one device: give one --device");
    const auto timeout = PDT_TRY(cli::parse_lock_timeout(lock_timeout));
    if (cli.sim)
        return open_sim(cli);
    vfio::KernelOptions options = tool_support::kernel_options();
    options.lock.timeout = timeout;
    options.no_iommu = no_iommu;
    vfio::DeviceFilter filter;
    filter.vendor_id = edu::VENDOR_ID;
    filter.device_id = edu::DEVICE_ID;
    options.selection.add_filter(filter);
    for (const vfio::PciAddress& location : *locations)
        options.selection.add_location(location);
    auto owner = std::make_unique<OwningEduEndpoint>();
    owner->owned.bus = std::make_unique<vfio::KernelDeviceBus>(options);
    const auto found = PDT_TRY(owner->owned.bus->scan());
    if (found.empty()) {
        const std::string where = locations->empty() ? "1234:11e8" : locations->front().to_string();
        if (auto why = tool_support::vfio_unavailable(options.dev_vfio_root))
            return pdt::make_error("open edu endpoint", where, ENODEV, *why);
        return pdt::make_error("open edu endpoint", where, ENODEV, "no edu device (1234:11e8) bound to vfio-pci there");
    }
    owner->owned.device = PDT_TRY(owner->owned.bus->open_device(found.front()));
    owner->inner = PDT_TRY(edu::open_copy_endpoint(*owner->owned.device, {}));
    return std::unique_ptr<streams::CopyEndpoint>(std::move(owner));
}

}  // namespace adapters
