#include "adapters/stream_devices.hpp"

#include <iostream>

#include "base/numbers.hpp"
#include "cuda_devices.hpp"
#include "etsoc1/fake_card.hpp"
#include "etsoc1/runtime_card.hpp"
#include "etsoc1/stream_device.hpp"
#include "adapters/qdma_stream_devices.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace po = boost::program_options;

namespace adapters {

void add_cuda_stream_options(po::options_description& description, CudaStreamCli& cli) {
    cli::add_cuda_device_option(description, cli.devices);
    description.add_options()
        ("cuda_channels", po::value(&cli.channels), "GPU: channels (CUDA streams) per direction, 1..16 (default 1)")
        ("cuda_host_memory", po::value(&cli.host_memory),
         "GPU: pinned (default: the copy engines DMA the buffers directly) or pageable (staged by the driver)")
        ("cuda_reference_secs", po::value(&cli.reference_seconds),
         "GPU: seconds per mode of the bare cudaMemcpyAsync reference run first (default 2; 0: none)")
        ("cuda_corrupt", po::value(&cli.corrupt),
         "GPU test fault: h2c|c2h,<stream byte offset>: corrupt that byte on the GPU (the run must FAIL)");
    add_cuda_lie_option(description, cli.lie);
}

void add_cuda_lie_option(po::options_description& description, std::string& text) {
    cli::add_lie_option(description, "cuda_lie", "GPU", text);
}

pdt::Result<CudaRunOptions> cuda_run_options(const CudaStreamCli& cli) {
    CudaRunOptions o;
    o.channels = static_cast<unsigned>(PDT_TRY(pdt::parse_number("cuda_channels", cli.channels, 1, 16)));
    if (cli.host_memory != "pinned" && cli.host_memory != "pageable")
        return pdt::make_error("parse option --cuda_host_memory", cli.host_memory, EINVAL,
                                "expected pinned or pageable");
    o.pinned = cli.host_memory == "pinned";
    o.reference_seconds = cli.reference_seconds == "0"
                              ? 0.0
                              : PDT_TRY(pdt::parse_seconds("cuda_reference_secs", cli.reference_seconds));
    if (!cli.corrupt.empty()) {
        const auto comma = cli.corrupt.find(',');
        const std::string direction = cli.corrupt.substr(0, comma);
        if (comma == std::string::npos || (direction != "h2c" && direction != "c2h"))
            return pdt::make_error("parse option --cuda_corrupt", cli.corrupt, EINVAL,
                                    "expected h2c|c2h,<stream byte offset>");
        o.corrupt = std::make_pair(direction == "h2c", PDT_TRY(pdt::parse_number("cuda_corrupt",
                                                                                  cli.corrupt.substr(comma + 1), 0,
                                                                                  UINT64_MAX)));
    }
    o.lie = PDT_TRY(streams::parse_lie("option --cuda_lie", cli.lie));
    return o;
}

void add_etsoc1_stream_options(po::options_description& description, Etsoc1StreamCli& cli) {
    cli::add_etsoc1_options(description, cli);
    description.add_options()("etsoc1_channels", po::value(&cli.channels),
                              "ET-SoC-1: loopback channel pairs per card, 1..4 (default 1)");
    add_etsoc1_window_option(description, cli.window);
}

void add_etsoc1_window_option(po::options_description& description, std::string& text) {
    description.add_options()("etsoc1_window", po::value(&text),
                              "ET-SoC-1: copies in flight per direction on the card, 1..4 (its DMA channels each "
                              "way; default 4); the stream tools share them among the channels");
}

pdt::Result<unsigned> etsoc1_window(const std::string& text) {
    return text.empty() ? 4u : static_cast<unsigned>(PDT_TRY(pdt::parse_number("etsoc1_window", text, 1, 4)));
}

namespace {

using Devices = std::vector<std::unique_ptr<streams::StreamDevice>>;

std::string describe_fake(const etsoc1::FakeParameters& p) {
    char text[320];
    std::snprintf(text, sizeof text,
                  "staged by a %.3g GB/s memcpy, DMA %.3g GB/s per channel (%u read + %u write), link %.3g GB/s H2C, "
                  "%.3g GB/s C2H, polling %lld/%lld us",
                  p.memcpy_gbps, p.dma_channel_gbps, p.limits.read_channels, p.limits.write_channels, p.link_gbps,
                  p.link_gbps * p.c2h_link_ratio, static_cast<long long>(p.poll_busy.count()),
                  static_cast<long long>(p.poll_idle.count()));
    return text;
}

// The fake cards of --etsoc1_device fake, each with a made-up PCI address in a domain no host has.
pdt::Result<void> open_fake_cards(size_t count, const etsoc1::FakeParameters& fake, const etsoc1::StreamDeviceConfig& shape,
                                   std::FILE* out, Devices& devices) {
    for (size_t i = 0; i < count; ++i) {
        auto card = std::make_shared<etsoc1::FakeCard>(fake);
        etsoc1::StreamDeviceConfig config = shape;
        config.info = PDT_TRY(card->info(0));
        config.info.name = "ET-SoC-1 fake " + std::to_string(i);
        config.address.domain = 0xffff;
        config.address.bus = static_cast<uint8_t>(i);
        std::fprintf(out, "%s (PCI address %s made up): %s\n", config.info.name.c_str(),
                     config.address.to_string().c_str(), describe_fake(fake).c_str());
        devices.push_back(etsoc1::make_stream_device(card, std::move(config)));
    }
    return {};
}

// A card whose PCI address the runtime does not give (its daemon) is shown at a made-up address
// in domain fffe, as the fakes are in ffff, and the line says so.
pdt::Result<void> open_runtime_cards(const Etsoc1StreamCli& cli, const std::vector<int>& indices,
                                      const etsoc1::StreamDeviceConfig& shape, std::FILE* out, Devices& devices) {
    std::shared_ptr<etsoc1::Card> card = PDT_TRY(etsoc1::open_runtime_card(etsoc1_runtime_options(cli, out)));
    for (int index : indices) {
        etsoc1::StreamDeviceConfig config = shape;
        config.device = index;
        config.info = PDT_TRY(card->info(index));
        const etsoc1::DeviceInfo& info = config.info;
        if (!info.pci_address.empty()) {
            config.address = PDT_TRY(vfio::PciAddress::parse(info.pci_address));
        } else {
            config.address.domain = 0xfffe;
            config.address.bus = static_cast<uint8_t>(index);
        }
        const etsoc1::DmaLimits limits = PDT_TRY(card->limits(index));
        std::fprintf(out, "%s at %s: link %s x%s, DMA nodes of %llu bytes x %u per command; every copy staged by "
                     "the runtime's bounce buffer\n",
                     info.name.c_str(),
                     info.pci_address.empty() ? ("an unknown PCI address (shown as " + config.address.to_string() + ")").c_str()
                                              : info.pci_address.c_str(),
                     info.link_speed.empty() ? "unknown" : info.link_speed.c_str(),
                     info.link_width.empty() ? "?" : info.link_width.c_str(),
                     static_cast<unsigned long long>(limits.max_node_bytes), limits.max_nodes);
        devices.push_back(etsoc1::make_stream_device(card, std::move(config)));
    }
    return {};
}

// The cards of --etsoc1_device; one line each to out. Usage errors: EINVAL.
pdt::Result<Devices> open_etsoc1_stream_devices(const Etsoc1StreamCli& cli, std::chrono::milliseconds transfer_timeout,
                                                 std::FILE* out) {
    const auto channels = cli.channels.empty()
                              ? 1u
                              : static_cast<unsigned>(PDT_TRY(pdt::parse_number("etsoc1_channels", cli.channels, 1, 4)));
    const unsigned window = PDT_TRY(etsoc1_window(cli.window));
    if (window < channels)
        return pdt::make_error("parse option --etsoc1_window", cli.window, EINVAL,
                                "each of the " + std::to_string(channels) +
                                    " channels needs a copy in flight: at least --etsoc1_channels");
    const etsoc1::FakeParameters fake = PDT_TRY(etsoc1::parse_fake_parameters(cli.fake));
    const auto [fakes, indices] = PDT_TRY(cli::parse_etsoc1_devices(cli.devices));
    Devices devices;
    etsoc1::StreamDeviceConfig shape;
    shape.channels = channels;
    shape.window = window / channels;
    if (transfer_timeout.count() > 0)
        shape.abort_timeout = transfer_timeout;  // a stop's aborts take no longer than a transfer may
    PDT_CHECK(open_fake_cards(fakes, fake, shape, out, devices));
    if (!indices.empty())
        PDT_CHECK(open_runtime_cards(cli, indices, shape, out, devices));
    std::fflush(out);
    return devices;
}

// The devices an adapter opened in place of the designs (GPUs, ET-SoC-1 cards).
OpenedStreamDevices opened_or_failed(pdt::Result<Devices> devices, std::ostream& errors) {
    OpenedStreamDevices opened;
    if (!devices.ok()) {
        errors << "Error: " << devices.error().message() << "\n";
        opened.status = devices.error().code == EINVAL ? tool_support::kUsageError : 1;
        return opened;
    }
    opened.devices = std::move(*devices);
    return opened;
}

OpenedStreamDevices usage_error(const std::string& message, std::ostream& errors) {
    errors << "Error: " << message << "\n";
    OpenedStreamDevices opened;
    opened.status = tool_support::kUsageError;
    return opened;
}

// The designs of the bus, as XDMA stream devices.
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
    tool_support::OpenedDesigns opened = tool_support::open_designs(*result.registry, request.designs, open.progress, errors);
    result.status = opened.status;
    if (opened.status != 0)  // no design, or a device that failed: nothing is tested
        return result;
    result.bus = std::move(opened.bus);
    std::vector<identify::IdentifiedDesign> xdma_designs;
    for (identify::IdentifiedDesign& design : opened.found.designs) {
        if (!design.design->qdma || design.design->qdma->stream_routes.empty()) {
            xdma_designs.push_back(std::move(design));
            continue;  // the XDMA path's, or (a QDMA without routes) nothing to verify
        }
        auto device = make_qdma_stream_device(std::move(design), {use.qdma_ring_entries, use.dma_mask_bits, open.progress});
        if (!device.ok()) {
            errors << "Error: " << device.error().message() << "\n";
            result.status = 1;
            return result;
        }
        if (!result.bus->simulated())
            result.kernel_devices.push_back(&(*device)->device());
        const identify::IdentifiedDesign& identified = (*device)->identified();
        result.designs.push_back({&(*device)->device(), identified.design, identified.identity});
        result.devices.push_back(std::move(*device));
    }
    auto devices = open_xdma_stream_devices(std::move(xdma_designs), open);
    if (!devices.ok()) {
        errors << "Error: " << devices.error().message() << "\n";
        result.status = 1;
        return result;
    }
    for (auto& device : *devices) {
        if (!result.bus->simulated())
            result.kernel_devices.push_back(&device->device());
        const identify::IdentifiedDesign& identified = device->identified();
        result.designs.push_back({&device->device(), identified.design, identified.identity});
        result.devices.push_back(std::move(device));
    }
    return result;
}

}  // namespace

etsoc1::RuntimeOptions etsoc1_runtime_options(const cli::Etsoc1Selection& cli, std::FILE* out) {
    etsoc1::RuntimeOptions options;
    options.socket = cli.socket;
    if (!cli.log.empty())
        options.log_path = cli.log;
    if (etsoc1::runtime_built() && options.log_path != "-")
        std::fprintf(out, "the ET-SoC-1 runtime's own log goes to %s\n", options.log_path.c_str());
    return options;
}

OpenedStreamDevices open_stream_devices(const StreamDeviceRequest& request, const StreamDeviceUse& use,
                                        std::ostream& errors) {
    const bool designs = !request.designs.sim_designs.empty() || !request.routing.empty();
    const auto etsoc1_used = cli::check_etsoc1_options_used(
        request.etsoc1, {{"etsoc1_window", request.etsoc1.window}, {"etsoc1_channels", request.etsoc1.channels}});
    if (!etsoc1_used.ok())
        return usage_error(etsoc1_used.error().message(), errors);
    if (!request.etsoc1.devices.empty()) {
        if (designs || !request.cuda.devices.empty())
            return usage_error("--etsoc1_device cannot be combined with --sim_design, --device_routing or --cuda_device",
                               errors);
        return opened_or_failed(open_etsoc1_stream_devices(request.etsoc1, use.transfer_timeout, use.json ? stderr : stdout), errors);
    }
    if (!request.cuda.devices.empty()) {
        if (designs)
            return usage_error("--cuda_device cannot be combined with --sim_design or --device_routing", errors);
        return opened_or_failed(open_cuda_stream_devices(request.cuda, use), errors);
    }
    return open_designs_as_stream_devices(request, use, errors);
}

}  // namespace adapters
