#include "adapter_glue.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "base/numbers.hpp"
#include "dma_bridge/xdma_copy_endpoint.hpp"
#include "owning_endpoint.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"
#include "adapters/stream_devices.hpp"
#include "adapters/xdma_stream_devices.hpp"
#ifdef PDT_HAVE_CUDA
#include "cuda_stream/cuda_copy_endpoint.hpp"
#endif

namespace po = boost::program_options;

namespace adapters {
namespace {

const identify::IdentifiedDesign* memory_design(const identify::Identification& found) {
    for (const identify::IdentifiedDesign& d : found.designs)
        if (d.dma_bridge && d.dma_bridge->mode == designs::DmaMode::MemoryMapped && d.dma_bridge->memory_size > 0)
            return &d;
    return nullptr;
}

std::string short_number(double value) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", value);
    return text;
}

// --sim_rate_gbps and --sim_latency_us on the selection; EINVAL when they are out of range or
// given without --sim_design (a real card's link is what it is).
pdt::Result<void> set_sim_link(const XdmaEndpointCli& cli, tool_support::DesignSelection& selection) {
    if (cli.sim_rate_gbps == 0 && cli.sim_latency_us == 0)
        return {};
    if (cli.sim_designs.empty())
        return pdt::make_error("--sim_rate_gbps / --sim_latency_us", "xdma endpoint", EINVAL,
                                "they set a simulated design's link: give --sim_design NAME");
    if (!(cli.sim_rate_gbps >= 0 && cli.sim_rate_gbps <= 1000))
        return pdt::make_error("--sim_rate_gbps", std::to_string(cli.sim_rate_gbps), EINVAL,
                                "expected GB/s in [0, 1000] (0: unthrottled)");
    if (!(cli.sim_latency_us >= 0 && cli.sim_latency_us <= 1e6) || cli.sim_latency_us != std::floor(cli.sim_latency_us))
        return pdt::make_error("--sim_latency_us", std::to_string(cli.sim_latency_us), EINVAL,
                                "expected whole microseconds in [0, 1000000]");
    selection.sim_link_bytes_per_second = cli.sim_rate_gbps * 1e9;
    selection.sim_link_latency = std::chrono::microseconds(static_cast<int64_t>(cli.sim_latency_us));
    return {};
}

}  // namespace

void add_xdma_options(po::options_description& options, XdmaEndpointCli& cli) {
    cli::add_sim_design_option(options, cli.sim_designs);
    cli::add_device_option(options, cli.devices);
    cli::add_design_file_option(options, cli.design_files);
    options.add_options()(
        "xdma_queues", po::value(&cli.queues)->default_value(cli.queues), "xdma: H2C/C2H engine pairs used at most")(
        "sim_rate_gbps", po::value(&cli.sim_rate_gbps)->default_value(cli.sim_rate_gbps),
        "xdma with --sim_design: the simulated link's rate per direction, GB/s (0: unthrottled)")(
        "sim_latency_us", po::value(&cli.sim_latency_us)->default_value(cli.sim_latency_us),
        "xdma with --sim_design: the simulated link's latency per descriptor, whole us");
    cli::add_lock_timeout_option(options, cli.lock_timeout);
    cli::add_no_iommu_option(options, cli.no_iommu);
    cli::add_xdma_mode_options(options, cli.modes);
}

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_xdma(const XdmaEndpointCli& cli,
                                                               std::vector<tool_support::DesignUnderTest>& designs) {
    std::string usage;
    auto locations = tool_support::parse_locations(cli.devices, "--device", usage);
    if (!locations)
        return pdt::make_error("--device", "xdma endpoint", EINVAL, usage);
    const auto modes = PDT_TRY(dma_mode_request(cli.modes));
    const auto lock_timeout = PDT_TRY(cli::parse_lock_timeout(cli.lock_timeout));
    if (cli.queues == 0)
        return pdt::make_error("--xdma_queues 0", "xdma endpoint", EINVAL, "expected 1 or more");
    // The registry lives with the endpoint: the design of designs_under_test() points into it.
    auto registry = std::make_unique<designs::Registry>(PDT_TRY(designs::Registry::load(cli.design_files)));
    tool_support::DesignSelection selection{cli.sim_designs, *locations, lock_timeout, false};
    selection.no_iommu = cli.no_iommu;
    PDT_CHECK(set_sim_link(cli, selection));
    tool_support::OpenedDesigns opened = tool_support::open_designs(*registry, selection, nullptr, std::cerr);
    if (opened.status == tool_support::kUsageError)
        return pdt::make_error("open xdma endpoint", "--sim_design", EINVAL, "see the error above");
    const identify::IdentifiedDesign* design = memory_design(opened.found);
    if (design == nullptr)
        return pdt::make_error("open xdma endpoint", "the selected devices", ENODEV,
                                opened.found.designs.empty() ? "no known FPGA design found (see above)"
                                                             : "no design with a memory-mapped DMA bridge and card memory");
    xdma::CopyEndpointConfig config;
    config.name = design->identity.address.to_string() + " " + design->design->name;
    if (selection.sim_link_bytes_per_second > 0 || selection.sim_link_latency.count() > 0)
        config.name += " (sim link " + short_number(cli.sim_rate_gbps) + " GB/s, " +
                       std::to_string(selection.sim_link_latency.count()) + " us)";
    config.dma_bar = design->dma_bridge->bar;
    config.card_memory_base = design->dma_bridge->memory_base;
    config.card_memory_size = design->dma_bridge->memory_size;
    config.max_queues = cli.queues;
    config.ip = ip_options(*design);
    config.modes = modes;
    vfio::Device& device = *design->device;
    const tool_support::DesignUnderTest under_test{&device, design->design, design->identity};
    using Owned = std::pair<std::unique_ptr<designs::Registry>, tool_support::OpenedDesigns>;
    auto owner = std::make_unique<OwningEndpoint<Owned>>(Owned{std::move(registry), std::move(opened)});
    owner->inner = PDT_TRY(xdma::open_copy_endpoint(device, config));
    designs = {under_test};
    return std::unique_ptr<streams::CopyEndpoint>(std::move(owner));
}

void add_cuda_options(po::options_description& options, CudaEndpointCli& cli) {
    cli::add_cuda_device_option(options, cli.gpus);
    options.add_options()(
        "cuda_queues", po::value(&cli.queues)->default_value(cli.queues), "cuda: CUDA streams")(
        "cuda_memory", po::value(&cli.memory)->default_value(cli.memory), "cuda: device memory the copies address");
    add_cuda_lie_option(options, cli.lie);
}

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_cuda(const CudaEndpointCli& cli) {
    const streams::Lie lie = PDT_TRY(streams::parse_lie("option --cuda_lie", cli.lie));  // a usage error first
#ifdef PDT_HAVE_CUDA
    cuda_stream::CopyEndpointConfig config;
    config.lie = lie;
    if (cli.gpus.size() > 1)
        return pdt::make_error("--cuda_device", "cuda endpoint", EINVAL, "pcie_link_measure measures one GPU");
    config.gpu = cli.gpus.empty() ? 0 : cli.gpus.front();
    config.queues = cli.queues;
    config.card_memory_bytes = PDT_TRY(pdt::parse_size(cli.memory));
    return cuda_stream::open_copy_endpoint(config);
#else
    (void)cli, (void)lie;
    return pdt::make_error("open cuda endpoint", "--endpoint cuda", ENOTSUP, "this build has no CUDA (nvcc not found)");
#endif
}

}  // namespace adapters
