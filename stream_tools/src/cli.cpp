#include "stream_tools/cli.hpp"

#include <cerrno>
#include <iostream>
#include <optional>
#include <thread>

#include "stream_tools/failure_report.hpp"
#include "stream_tools/link_watch.hpp"
#include "cli/command_line.hpp"
#include "cli/option_names.hpp"
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
        ("h2c_replay", po::bool_switch(&cli.h2c_replay),
         "an H2C channel whose card checks the data and poisons each destination first (CUDA, independent) "
         "generates each buffer once and resends it: no host core spent generating")
        ("use_one_container_for_mappings", po::bool_switch(&cli.one_container_for_mappings),
         "map every device's DMA buffers through the first device's container: with --isolate_iommu_groups the "
         "other devices' DMA must then fail (tests the isolation; kernel bus only)");
    cli::add_transfer_timeout_option(description, cli.transfer_timeout);
    cli::add_json_option(description, cli.json, cli::JsonForm::Lines);
    cli::add_lock_timeout_option(description, cli.lock_timeout);
    cli::add_no_iommu_option(description, cli.no_iommu);
    cli::add_xdma_mode_options(description, cli.modes);
    description.add_options()("qdma_ring_entries", po::value(&cli.qdma_ring_entries),
                              "QDMA stream queues: descriptor and completion ring entries, a QDMA_GLBL_RNG_SZ value "
                              "(default 0: the smallest holding the buffers); the queues are polled");
    tool_support::add_board_health_options(description, cli.health);
}

std::optional<int> parse_command_line(int argc, char** argv, const po::options_description& description,
                                      const char* summary) {
    po::options_description all("Options");
    cli::add_help_and_version(all);
    all.add(description);
    return cli::parse_command_line(argc, argv, {all, cli::fpga_sio_usage(argv[0], summary)});
}

pdt::Result<StreamRunOptions> run_options(const CommonCli& cli) {
    StreamRunOptions options;
    options.json = cli.json;
    options.allocation = PDT_TRY(parse_buffer_allocation(cli.buffer_allocation));
    options.mapping_size = PDT_TRY(parse_number("stream_mapping_size", cli.stream_mapping_size, 4, uint64_t{1} << 40));
    if (options.mapping_size % 4 != 0)
        return pdt::usage_error("parse option --stream_mapping_size", cli.stream_mapping_size,
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
    options.qdma_ring_entries =
        static_cast<uint32_t>(PDT_TRY(parse_number("qdma_ring_entries", cli.qdma_ring_entries, 0, 65536)));
    if (cli.verify_threads < -1 || cli.verify_threads > static_cast<int>(kMaxVerifyThreads))
        return pdt::usage_error("parse option --verify_threads", "\"" + std::to_string(cli.verify_threads) + "\"",
                                "must be in the range 0.." + std::to_string(kMaxVerifyThreads));
    options.verify_threads = cli.verify_threads >= 0 ? static_cast<unsigned>(cli.verify_threads) : std::min(4u, cores / 2);
    options.test.h2c_replay = cli.h2c_replay;
    PDT_TRY(dma_mode_request(cli.modes));  // a usage error before any device opens
    PDT_TRY(cli::parse_lock_timeout(cli.lock_timeout));
    return options;
}

pdt::Result<std::vector<ChannelSelector>> channel_selectors(const std::string& option,
                                                            const std::vector<std::string>& texts) {
    std::vector<ChannelSelector> selectors;
    for (const std::string& text : texts)
        selectors.push_back(PDT_TRY(parse_channel_selector(option, text)));
    return selectors;
}

std::unique_ptr<tool_support::BoardHealth> open_board_health(const tool_support::BoardHealthCli& cli,
                                                             const std::vector<tool_support::DesignUnderTest>& designs,
                                                             bool json, int& status) {
    auto health = tool_support::BoardHealth::open(cli, program_invocation_short_name, designs, stdout, json);
    if (health)
        return std::move(*health);
    std::cerr << "Error: " << health.error().message() << "\n";
    status = health.error().usage ? tool_support::kUsageError : 1;
    return nullptr;
}

int run_on_stream_devices(const CommonCli& cli,
                          const std::function<int(const std::vector<streams::StreamDevice*>&, const StreamRunOptions&)>& body) {
    auto options = run_options(cli);
    adapters::StreamDeviceRequest request;
    for (const std::string& text : cli.device_routing) {
        auto routing = parse_device_routing("device_routing", text);
        if (!routing.ok()) {
            std::cerr << "Error: " << routing.error().message() << "\n";
            return 2;
        }
        request.routing.push_back(*routing);
    }
    if (!options.ok()) {
        std::cerr << "Error: " << options.error().message() << "\n";
        return 2;
    }
    request.design_files = cli.design_files;
    // The modes and the lock timeout were checked by run_options.
    request.designs = {cli.sim_designs, {}, *cli::parse_lock_timeout(cli.lock_timeout), cli.isolate_iommu_groups,
                       cli.one_container_for_mappings};
    request.designs.no_iommu = cli.no_iommu;
    request.modes = *dma_mode_request(cli.modes);
    request.cuda = cli.cuda;
    request.etsoc1 = cli.etsoc1;
    const adapters::StreamDeviceUse use{options->num_descriptors, options->mapping_size,
                                            options->test.transfer_timeout, options->dma_mask_bits,
                                            options->qdma_ring_entries, cli.json};
    report_dma_failures(cli.json ? stderr : stdout);  // registers and AER on a DMA failure
    adapters::OpenedStreamDevices opened = [&] {
        cli::OptionNamingStream errors(std::cerr);  // the options of the requests the libraries' errors name
        return adapters::open_stream_devices(request, use, errors);
    }();
    if (opened.status != 0) {
        if (opened.status != tool_support::kUsageError)
            std::cout << "Overall FAIL\n";
        return opened.status;
    }
    std::cout.flush();
    std::vector<streams::StreamDevice*> pointers;
    for (auto& device : opened.devices)
        pointers.push_back(device.get());
    // On the kernel bus, the link of each device and its port under load (nothing simulated).
    std::optional<LinkLoadWatcher> watcher;
    if (!opened.kernel_devices.empty()) {
        watcher.emplace(opened.kernel_devices, [] { return pcie::open_libpci_backend(false); });
        options->watcher = &*watcher;
    }
    // NUMA placement only for devices on this machine's bus (a simulated design's address may
    // name some other real device here).
    if (opened.kernel_devices.empty() && cli.cuda.devices.empty() && cli.etsoc1.devices.empty())
        options->sysfs_root.clear();
    int health_status = 0;
    auto health = open_board_health(cli.health, opened.designs, cli.json, health_status);
    if (!health)
        return health_status;
    options->health = health.get();
    options->test.stop = stop_on_sigint();
    const int status = body(pointers, *options);
    if (cli.json && cli.cuda.devices.empty() && cli.etsoc1.devices.empty())
        tool_support::report_device_holds(stdout);
    return status;
}

}  // namespace stream_tools
