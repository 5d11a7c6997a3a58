#include "stream_tools/cli.hpp"

#include <iostream>
#include <optional>
#include <thread>

#include "stream_tools/failure_report.hpp"
#include "stream_tools/link_watch.hpp"
#include "stream_tools/xdma_stream_device.hpp"
#include "cli/command_line.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;

namespace stream_tools {

const char* host_memory_limit_help() {
    return "host DMA buffer bytes a run may allocate at once; a run that needs more fails before it starts "
           "(default: half of this machine's memory)";
}

void add_common_options(po::options_description& description, CommonCli& cli) {
    cli::add_sim_design_option(description, cli.sim_designs);
    cli::add_design_file_option(description, cli.design_files);
    description.add_options()
        ("device_routing", po::value(&cli.device_routing)->composing(),
         "<bdf>[,<master>:<slave>]... AXI4-Stream Switch routes of a device; unlisted master ports disabled")
        ("buffer_allocation", po::value(&cli.buffer_allocation), "heap (default), shared_memory or huge_pages")
        ("stream_mapping_size", po::value(&cli.stream_mapping_size),
         "host buffer bytes per channel, a multiple of 4 (default 0x40000000)")
        ("stream_num_descriptors", po::value(&cli.stream_num_descriptors), "buffers (descriptors) per channel, 1..1023 (default 64)")
        ("duration", po::value(&cli.duration), "stop after this many seconds, as Ctrl-C does (default: run until Ctrl-C)")
        ("report_interval", po::value(&cli.report_interval), "seconds between rate lines (default 10)")
        ("host_memory_limit", po::value(&cli.host_memory_limit), host_memory_limit_help())
        ("a32", po::bool_switch(&cli.a32), "IOVAs of the DMA buffers below 4 GiB (a device with a 32-bit DMA mask)")
        ("isolate_iommu_groups", po::bool_switch(&cli.isolate_iommu_groups), "one VFIO container (IOVA space) per IOMMU group; a running VFIO manager decides this itself")
        ("verify_threads", po::value(&cli.verify_threads), "extra threads that share pattern generation and checking (0..256)")
        ("use_one_container_for_mappings", po::bool_switch(&cli.one_container_for_mappings),
         "map every device's DMA buffers through the first device's container: with --isolate_iommu_groups the "
         "other devices' DMA must then fail (tests the isolation; kernel bus only)");
    cli::add_transfer_timeout_option(description, cli.transfer_timeout);
    cli::add_json_option(description, cli.json, cli::JsonForm::Lines);
    cli::add_lock_timeout_option(description, cli.lock_timeout);
    cli::add_xdma_mode_options(description, cli.modes);
}

vfio::Result<xdma::ModeRequest> dma_mode_request(const cli::XdmaModeText& modes) {
    xdma::ModeRequest request;
    request.mode = PDT_TRY(vfio::parse_spelling("engine_mode", modes.engine_mode, xdma::kEngineModeSpellings));
    request.completion = PDT_TRY(vfio::parse_spelling("completion", modes.completion, xdma::kCompletionSpellings));
    return request;
}

std::optional<int> parse_command_line(int argc, char** argv, const po::options_description& description,
                                      const char* summary) {
    po::options_description all("Options");
    cli::add_help_and_version(all);
    all.add(description);
    return cli::parse_command_line(argc, argv, {all, cli::fpga_sio_usage(argv[0], summary)});
}

vfio::Result<StreamRunOptions> run_options(const CommonCli& cli) {
    StreamRunOptions options;
    options.json = cli.json;
    options.allocation = PDT_TRY(parse_buffer_allocation(cli.buffer_allocation));
    options.mapping_size = PDT_TRY(parse_number("stream_mapping_size", cli.stream_mapping_size, 4, uint64_t{1} << 40));
    if (options.mapping_size % 4 != 0)
        return vfio::make_error("parse option --stream_mapping_size", cli.stream_mapping_size, EINVAL,
                                "must be a multiple of 4");
    options.num_descriptors = PDT_TRY(parse_number("stream_num_descriptors", cli.stream_num_descriptors, 1, 1023));
    auto seconds = [](double s) { return std::chrono::milliseconds(static_cast<int64_t>(s * 1000.0 + 0.5)); };
    if (!cli.duration.empty())
        options.test.duration = seconds(PDT_TRY(parse_seconds("duration", cli.duration)));
    options.test.report_interval = seconds(PDT_TRY(parse_seconds("report_interval", cli.report_interval)));
    options.test.transfer_timeout = PDT_TRY(cli::parse_transfer_timeout(cli.transfer_timeout));
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    options.host_memory_limit = PDT_TRY(parse_host_memory_limit(cli.host_memory_limit));
    options.dma_mask_bits = cli.a32 ? 32 : 64;
    if (cli.verify_threads < -1 || cli.verify_threads > static_cast<int>(kMaxVerifyThreads))
        return vfio::make_error("parse option --verify_threads", "\"" + std::to_string(cli.verify_threads) + "\"", EINVAL,
                                "must be in the range 0.." + std::to_string(kMaxVerifyThreads));
    options.verify_threads = cli.verify_threads >= 0 ? static_cast<unsigned>(cli.verify_threads) : std::min(4u, cores / 2);
    PDT_TRY(dma_mode_request(cli.modes));  // a usage error before any device opens
    PDT_TRY(cli::parse_lock_timeout(cli.lock_timeout));
    return options;
}

vfio::Result<std::vector<ChannelSelector>> channel_selectors(const std::string& option,
                                                             const std::vector<std::string>& texts) {
    std::vector<ChannelSelector> selectors;
    for (const std::string& text : texts)
        selectors.push_back(PDT_TRY(parse_channel_selector(option, text)));
    return selectors;
}

namespace {

using StreamBody = std::function<int(const std::vector<streams::StreamDevice*>&, const StreamRunOptions&)>;

// The devices an adapter opened in place of the designs (GPUs, ET-SoC-1 cards): a usage error
// exits 2, any other failure is Overall FAIL; else the body runs on them until done or Ctrl-C.
int run_on_opened(vfio::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> devices, StreamRunOptions options,
                  const StreamBody& body) {
    if (!devices.ok()) {
        std::cerr << "Error: " << devices.error().message() << "\n";
        if (devices.error().code == EINVAL)
            return 2;
        std::cout << "Overall FAIL\n";
        return 1;
    }
    std::vector<streams::StreamDevice*> pointers;
    for (auto& device : *devices)
        pointers.push_back(device.get());
    options.test.stop = stop_on_sigint();
    return body(pointers, options);
}

// --cuda_device: the GPUs replace the designs (nothing of the PCI bus is opened or written).
int run_on_cuda_devices(const CommonCli& cli, StreamRunOptions options, const StreamBody& body) {
    if (!cli.sim_designs.empty() || !cli.device_routing.empty()) {
        std::cerr << "Error: --cuda_device cannot be combined with --sim_design or --device_routing\n";
        return 2;
    }
    auto devices = open_cuda_stream_devices(cli.cuda, options, stdout);
    return run_on_opened(std::move(devices), std::move(options), body);
}

// --etsoc1_device: the ET-SoC-1 cards (or the fake) replace the designs.
int run_on_etsoc1_devices(const CommonCli& cli, StreamRunOptions options, const StreamBody& body) {
    if (!cli.sim_designs.empty() || !cli.device_routing.empty() || !cli.cuda.devices.empty()) {
        std::cerr << "Error: --etsoc1_device cannot be combined with --sim_design, --device_routing or --cuda_device\n";
        return 2;
    }
    auto devices = open_etsoc1_stream_devices(cli.etsoc1, options.json ? stderr : stdout);
    return run_on_opened(std::move(devices), std::move(options), body);
}

}  // namespace

int run_on_stream_devices(const CommonCli& cli,
                          const std::function<int(const std::vector<streams::StreamDevice*>&, const StreamRunOptions&)>& body) {
    auto options = run_options(cli);
    OpenOptions open;
    for (const std::string& text : cli.device_routing) {
        auto routing = parse_device_routing("device_routing", text);
        if (!routing.ok()) {
            std::cerr << "Error: " << routing.error().message() << "\n";
            return 2;
        }
        open.routing.push_back(*routing);
    }
    if (!options.ok()) {
        std::cerr << "Error: " << options.error().message() << "\n";
        return 2;
    }
    if (!cli.etsoc1.devices.empty())
        return run_on_etsoc1_devices(cli, *options, body);
    if (!cli.cuda.devices.empty())
        return run_on_cuda_devices(cli, *options, body);
    auto registry = designs::Registry::load(cli.design_files);
    if (!registry.ok()) {
        std::cerr << "Error: " << registry.error().message() << "\n";
        return 2;
    }
    open.timeout = options->test.transfer_timeout;
    open.modes = *dma_mode_request(cli.modes);  // checked by run_options
    open.dma_mask_bits = options->dma_mask_bits;
    open.progress = cli.json ? &std::cerr : &std::cout;
    report_dma_failures(cli.json ? stderr : stdout);  // registers and AER on a DMA failure
    // The lock timeout was checked by run_options.
    const tool_support::DesignSelection selection{cli.sim_designs, {}, *cli::parse_lock_timeout(cli.lock_timeout),
                                                  cli.isolate_iommu_groups, cli.one_container_for_mappings};
    tool_support::OpenedDesigns opened = tool_support::open_designs(*registry, selection, open.progress, std::cerr);
    if (opened.status != 0) {  // no design, or a device that failed: nothing is tested
        if (opened.status != tool_support::kUsageError)
            std::cout << "Overall FAIL\n";
        return opened.status;
    }
    auto devices = open_xdma_stream_devices(std::move(opened.found.designs), open);
    if (!devices.ok()) {
        std::cerr << "Error: " << devices.error().message() << "\n";
        std::cout << "Overall FAIL\n";
        return 1;
    }
    std::cout.flush();
    std::vector<streams::StreamDevice*> pointers;
    std::vector<vfio::Device*> vfio_devices;
    for (auto& device : *devices) {
        pointers.push_back(device.get());
        vfio_devices.push_back(&device->device());
    }
    // On the kernel bus, the link of each device and its port under load (nothing simulated).
    std::optional<LinkLoadWatcher> watcher;
    if (cli.sim_designs.empty()) {
        watcher.emplace(std::move(vfio_devices), [] { return pcie::open_libpci_backend(false); });
        options->watcher = &*watcher;
    }
    options->test.stop = stop_on_sigint();
    const int status = body(pointers, *options);
    if (cli.json)
        tool_support::report_device_holds(stdout);
    return status;
}

}  // namespace stream_tools
