#include "device_endpoints.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "dma_bridge/xdma_copy_endpoint.hpp"
#include "measure/tool.hpp"
#include "owning_endpoint.hpp"
#include "stream_tools/cli.hpp"
#include "stream_tools/xdma_stream_device.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"
#ifdef PDT_HAVE_CUDA
#include "cuda_stream/cuda_copy_endpoint.hpp"
#endif

namespace po = boost::program_options;

namespace measure_tool {
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
vfio::Result<void> set_sim_link(const XdmaCli& cli, tool_support::DesignSelection& selection) {
    if (cli.sim_rate_gbps == 0 && cli.sim_latency_us == 0)
        return {};
    if (cli.sim_designs.empty())
        return vfio::make_error("--sim_rate_gbps / --sim_latency_us", "xdma endpoint", EINVAL,
                                "they set a simulated design's link: give --sim_design NAME");
    if (!(cli.sim_rate_gbps >= 0 && cli.sim_rate_gbps <= 1000))
        return vfio::make_error("--sim_rate_gbps", std::to_string(cli.sim_rate_gbps), EINVAL,
                                "expected GB/s in [0, 1000] (0: unthrottled)");
    if (!(cli.sim_latency_us >= 0 && cli.sim_latency_us <= 1e6) || cli.sim_latency_us != std::floor(cli.sim_latency_us))
        return vfio::make_error("--sim_latency_us", std::to_string(cli.sim_latency_us), EINVAL,
                                "expected whole microseconds in [0, 1000000]");
    selection.sim_link_bytes_per_second = cli.sim_rate_gbps * 1e9;
    selection.sim_link_latency = std::chrono::microseconds(static_cast<int64_t>(cli.sim_latency_us));
    return {};
}

}  // namespace

void add_xdma_options(po::options_description& options, XdmaCli& cli) {
    options.add_options()("sim_design", po::value(&cli.sim_designs)->composing(),
                          "xdma: a simulated instance of this design instead of the kernel's devices")(
        "device", po::value(&cli.devices)->composing(), "xdma, edu: only the device at this PCI location")(
        "design_file", po::value(&cli.design_files)->composing(), "xdma: add the designs of this JSON file")(
        "xdma_queues", po::value(&cli.queues)->default_value(cli.queues), "xdma: H2C/C2H engine pairs used at most")(
        "sim_rate_gbps", po::value(&cli.sim_rate_gbps)->default_value(cli.sim_rate_gbps),
        "xdma with --sim_design: the simulated link's rate per direction, GB/s (0: unthrottled)")(
        "sim_latency_us", po::value(&cli.sim_latency_us)->default_value(cli.sim_latency_us),
        "xdma with --sim_design: the simulated link's latency per descriptor, whole us");
    tool_support::add_lock_timeout_option(options, cli.lock_timeout);
    stream_tools::add_dma_mode_options(options, cli.engine_mode, cli.completion);
}

vfio::Result<std::unique_ptr<measure::CopyEndpoint>> open_xdma(const XdmaCli& cli) {
    std::string usage;
    auto locations = tool_support::parse_locations(cli.devices, "--device", usage);
    if (!locations)
        return vfio::make_error("--device", "xdma endpoint", EINVAL, usage);
    const auto modes = PDT_TRY(stream_tools::dma_mode_request(cli.engine_mode, cli.completion));
    const auto lock_timeout = PDT_TRY(tool_support::parse_lock_timeout(cli.lock_timeout));
    if (cli.queues == 0)
        return vfio::make_error("--xdma_queues 0", "xdma endpoint", EINVAL, "expected 1 or more");
    const auto registry = PDT_TRY(designs::Registry::load(cli.design_files));
    tool_support::DesignSelection selection{cli.sim_designs, *locations, lock_timeout, false};
    PDT_CHECK(set_sim_link(cli, selection));
    tool_support::OpenedDesigns opened = tool_support::open_designs(registry, selection, nullptr, std::cerr);
    if (opened.status == tool_support::kUsageError)
        return vfio::make_error("open xdma endpoint", "--sim_design", EINVAL, "see the error above");
    const identify::IdentifiedDesign* design = memory_design(opened.found);
    if (design == nullptr)
        return vfio::make_error("open xdma endpoint", "the selected devices", ENODEV,
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
    config.ip = stream_tools::ip_options(*design);
    config.modes = modes;
    vfio::Device& device = *design->device;
    auto owner = std::make_unique<OwningEndpoint<tool_support::OpenedDesigns>>(std::move(opened));
    owner->inner = PDT_TRY(xdma::open_copy_endpoint(device, config));
    return std::unique_ptr<measure::CopyEndpoint>(std::move(owner));
}

void add_cuda_options(po::options_description& options, CudaCli& cli) {
    options.add_options()("cuda_device", po::value(&cli.gpu)->default_value(cli.gpu), "cuda: the GPU's CUDA ordinal")(
        "cuda_queues", po::value(&cli.queues)->default_value(cli.queues), "cuda: CUDA streams")(
        "cuda_memory", po::value(&cli.memory)->default_value(cli.memory), "cuda: device memory the copies address");
}

vfio::Result<std::unique_ptr<measure::CopyEndpoint>> open_cuda(const CudaCli& cli) {
#ifdef PDT_HAVE_CUDA
    cuda_stream::CopyEndpointConfig config;
    config.gpu = cli.gpu;
    config.queues = cli.queues;
    config.card_memory_bytes = PDT_TRY(measure::parse_size(cli.memory));
    return cuda_stream::open_copy_endpoint(config);
#else
    (void)cli;
    return vfio::make_error("open cuda endpoint", "--endpoint cuda", ENOTSUP, "this build has no CUDA (nvcc not found)");
#endif
}

}  // namespace measure_tool
