// The xdma row: --endpoint xdma (the card memory of an XDMA design, real or --sim_design,
// through its memory-mapped engines) and the designs of the bus as the stream tools' stream
// devices (XDMA designs, and QDMA designs with stream routes).
#include "design_endpoint.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "adapters/qdma_stream_devices.hpp"
#include "adapters/xdma_stream_devices.hpp"
#include "dma_bridge/xdma_copy_endpoint.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;

namespace adapters {
namespace {

std::string short_number(double value) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", value);
    return text;
}

// --sim_rate_gbps and --sim_latency_us on the selection; a usage error when they are out of range or
// given without --sim_design (a real card's link is what it is).
pdt::Result<void> set_sim_link(const XdmaEndpointCli& cli, tool_support::DesignSelection& selection) {
    if (cli.sim_rate_gbps == 0 && cli.sim_latency_us == 0)
        return {};
    if (cli.sim_designs.empty())
        return pdt::usage_error("--sim_rate_gbps / --sim_latency_us", "xdma endpoint",
                                "they set a simulated design's link: give --sim_design NAME");
    if (!(cli.sim_rate_gbps >= 0 && cli.sim_rate_gbps <= 1000))
        return pdt::usage_error("--sim_rate_gbps", std::to_string(cli.sim_rate_gbps),
                                "expected GB/s in [0, 1000] (0: unthrottled)");
    if (!(cli.sim_latency_us >= 0 && cli.sim_latency_us <= 1e6) || cli.sim_latency_us != std::floor(cli.sim_latency_us))
        return pdt::usage_error("--sim_latency_us", std::to_string(cli.sim_latency_us),
                                "expected whole microseconds in [0, 1000000]");
    selection.sim_link_bytes_per_second = cli.sim_rate_gbps * 1e9;
    selection.sim_link_latency = std::chrono::microseconds(static_cast<int64_t>(cli.sim_latency_us));
    return {};
}

}  // namespace

const identify::IdentifiedDesign* xdma_memory_design(const identify::Identification& found) {
    for (const identify::IdentifiedDesign& d : found.designs)
        if (d.dma_bridge && d.dma_bridge->mode == designs::DmaMode::MemoryMapped && d.dma_bridge->memory_size > 0)
            return &d;
    return nullptr;
}

xdma::CopyEndpointConfig xdma_endpoint_config(const identify::IdentifiedDesign& design, const XdmaEndpointCli& cli,
                                              const tool_support::DesignSelection& selection,
                                              const xdma::ModeRequest& modes) {
    xdma::CopyEndpointConfig config;
    config.name = design.identity.address.to_string() + " " + design.design->name;
    if (selection.sim_link_bytes_per_second > 0 || selection.sim_link_latency.count() > 0)
        config.name += " (sim link " + short_number(cli.sim_rate_gbps) + " GB/s, " +
                       std::to_string(selection.sim_link_latency.count()) + " us)";
    config.dma_bar = design.dma_bridge->bar;
    config.card_memory_base = design.dma_bridge->memory_base;
    config.card_memory_size = design.dma_bridge->memory_size;
    config.max_queues = cli.queues;
    config.ip = ip_options(design);
    config.modes = modes;
    return config;
}

void add_xdma_options(po::options_description& options, EndpointSettings& settings) {
    XdmaEndpointCli& cli = settings.xdma;
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

OpenedCopyEndpoint open_xdma_endpoint(const EndpointSettings& settings, EndpointHolds& holds) {
    const XdmaEndpointCli& cli = settings.xdma;
    std::string usage;
    auto locations = tool_support::parse_locations(cli.devices, "--device", usage);
    if (!locations)
        return pdt::usage_error("--device", "xdma endpoint", usage);
    const auto modes = PDT_TRY(dma_mode_request(cli.modes));
    const auto lock_timeout = PDT_TRY(cli::parse_lock_timeout(cli.lock_timeout));
    if (cli.queues == 0)
        return pdt::usage_error("--xdma_queues 0", "xdma endpoint", "expected 1 or more");
    // The registry lives with the endpoint: the design of designs_under_test() points into it.
    auto registry = std::make_unique<designs::Registry>(PDT_TRY(designs::Registry::load(cli.design_files)));
    tool_support::DesignSelection selection = endpoint_selection(cli, *locations, lock_timeout);
    PDT_CHECK(set_sim_link(cli, selection));
    EndpointDesign opened = PDT_TRY(open_endpoint_design(std::move(registry), selection, "xdma", xdma_memory_design,
                                                         "no design with a memory-mapped DMA bridge and card memory"));
    const xdma::CopyEndpointConfig config = xdma_endpoint_config(*opened.design, cli, selection, modes);
    auto inner = PDT_TRY(xdma::open_copy_endpoint(*opened.design->device, config));
    return own_design_endpoint(std::move(opened), std::move(inner), holds);
}

pdt::Result<bool> designs_named(const StreamDeviceRequest& request) {
    return !request.designs.sim_designs.empty() || !request.routing.empty();
}

namespace {

// A design opened as a stream device joins the result: its device (on the kernel bus) and the
// design whose sensors are watched.
template <typename Device>
void add_design_device(std::unique_ptr<Device> device, OpenedStreamDevices& result) {
    if (!result.bus->simulated())
        result.kernel_devices.push_back(&device->device());
    const identify::IdentifiedDesign& identified = device->identified();
    result.designs.push_back({&device->device(), identified.design, identified.identity});
    result.devices.push_back(std::move(device));
}

// The QDMA designs with stream routes among `found` as stream devices; the rest are left in
// `xdma_designs` for the XDMA path (a QDMA design without routes: nothing to verify).
pdt::Result<void> open_qdma_designs(std::vector<identify::IdentifiedDesign>& found, const StreamDeviceUse& use,
                                    std::ostream* progress, std::vector<identify::IdentifiedDesign>& xdma_designs,
                                    OpenedStreamDevices& result) {
    for (identify::IdentifiedDesign& design : found) {
        if (!design.design->qdma || design.design->qdma->stream_routes.empty()) {
            xdma_designs.push_back(std::move(design));
            continue;
        }
        add_design_device(PDT_TRY(make_qdma_stream_device(std::move(design),
                                                          {use.qdma_ring_entries, use.dma_mask_bits, progress})),
                          result);
    }
    return {};
}

// The designs of the bus, as stream devices; an error when one cannot be opened.
pdt::Result<void> open_design_devices(tool_support::OpenedDesigns& opened, const OpenOptions& open,
                                      const StreamDeviceUse& use, OpenedStreamDevices& result) {
    std::vector<identify::IdentifiedDesign> xdma_designs;
    PDT_CHECK(open_qdma_designs(opened.found.designs, use, open.progress, xdma_designs, result));
    auto xdma_devices = PDT_TRY(open_xdma_stream_devices(std::move(xdma_designs), open));
    for (auto& device : xdma_devices)
        add_design_device(std::move(device), result);
    return {};
}

}  // namespace

OpenedStreamDevices open_designs_as_stream_devices(const StreamDeviceRequest& request, const StreamDeviceUse& use,
                                                   std::ostream& errors) {
    OpenedStreamDevices result;
    auto registry = designs::Registry::load(request.design_files);
    if (!registry.ok()) {
        errors << "Error: " << registry.error().message() << "\n";
        result.status = tool_support::kUsageError;
        return result;
    }
    result.registry = std::make_unique<designs::Registry>(std::move(*registry));
    OpenOptions open;
    open.routing = request.routing;
    open.timeout = use.transfer_timeout;
    open.modes = request.modes;
    open.dma_mask_bits = use.dma_mask_bits;
    open.progress = use.json ? &std::cerr : &std::cout;
    tool_support::OpenedDesigns opened =
        tool_support::open_designs(*result.registry, request.designs, open.progress, errors);
    result.status = opened.status;
    if (opened.status != 0)  // no design, or a device that failed: nothing is tested
        return result;
    result.bus = std::move(opened.bus);
    if (auto devices = open_design_devices(opened, open, use, result); !devices.ok()) {
        errors << "Error: " << devices.error().message() << "\n";
        result.status = 1;
    }
    return result;
}

}  // namespace adapters
