// test_dma_bridge: functional and throughput test of the DMA bridge of every identified design:
// card-memory tests on memory-mapped designs (fill, write, read back, verify; variable-length
// transfers; write-all-then-read-all; address aliasing), a verified fixed amount of data
// through each loopback route on stream designs. Populate / DMA / verify timing as Min / Mean
// / Max Mbytes/sec. Exit status: 0 Overall PASS, 1 FAIL or nothing tested, 2 usage error.
// Installed also as fpga_sio's test_dma_bridge_memory_addressing (a symbolic link:
// software_tests/tools/CMakeLists.txt), which runs only memory_addressing unless --enabled_tests
// says otherwise.
#include <algorithm>
#include <array>
#include <iostream>
#include <span>
#include <sstream>
#include <string_view>

#include "cli/invoked_name.hpp"
#include "cli/option_names.hpp"
#include "stream_tools/cli.hpp"
#include "stream_tools/dma_bridge_suite.hpp"
#include "stream_tools/failure_report.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;
using namespace stream_tools;

namespace {

struct DmaBridgeToolName {
    std::string_view name;
    std::string_view enabled_tests;  // --enabled_tests's default (empty: every test)
};
constexpr std::array<DmaBridgeToolName, 2> kDmaBridgeToolNames{
    {{"test_dma_bridge", ""}, {"test_dma_bridge_memory_addressing", "memory_addressing"}}};

struct Cli {
    // The stream tools' options this tool takes too, with their defaults (run_options reads them).
    // Its --stream_mapping_size and --stream_num_descriptors are its own (<h2c>[,<c2h>]), and it
    // parses --qdma_ring_entries and --lock_timeout itself, after its own options.
    CommonCli common;
    std::vector<std::string> devices;
    std::string max_buffer_size = "0x8000000", max_channel_combinations = "16";
    std::string stream_mapping_size = "0x40000000", stream_num_descriptors = "64", transfer_length = "0x10000000";
    std::string stream_axi_width_bytes = "16", host_buffer_divisor = "4", memory_base, memory_size, enabled_tests;
    std::string min_words = "0x100000000", qdma_queues = "1", qdma_ring_entries = "0";
    bool qdma_interrupts = false;
    std::string lock_timeout;
};

pdt::Result<DmaBridgeTestOptions> convert(const Cli& cli) {
    DmaBridgeTestOptions o;
    o.memory.max_buffer_size = PDT_TRY(parse_number("max_buffer_size", cli.max_buffer_size, 4, (1u << 28) - 1));
    o.max_channel_combinations = PDT_TRY(parse_number("max_channel_combinations", cli.max_channel_combinations, 1, 16));
    const auto lengths = PDT_TRY(parse_number_pair("transfer_length", cli.transfer_length, 4, uint64_t{1} << 40));
    o.memory.transfer_length = lengths.first;
    o.memory.c2h_transfer_length = lengths.second;
    o.memory.host_buffer_divisor = PDT_TRY(parse_number("host_buffer_divisor", cli.host_buffer_divisor, 1, 1 << 20));
    o.memory.min_words = PDT_TRY(parse_number("min_words", cli.min_words, 1, ~uint64_t{0} / 8));
    if (!cli.memory_base.empty())
        o.memory_base_override = PDT_TRY(parse_number("dma_bridge_memory_base_address", cli.memory_base, 0, ~uint64_t{0}));
    if (!cli.memory_size.empty())
        o.memory_size_override = PDT_TRY(parse_number("dma_bridge_memory_size_bytes", cli.memory_size, 8, ~uint64_t{0}));
    const auto mapping = PDT_TRY(parse_number_pair("stream_mapping_size", cli.stream_mapping_size, 4, uint64_t{1} << 40));
    const auto descriptors = PDT_TRY(parse_number_pair("stream_num_descriptors", cli.stream_num_descriptors, 1, 1023));
    if (mapping.first % 4 != 0 || mapping.second % 4 != 0)
        return pdt::usage_error("parse option --stream_mapping_size", cli.stream_mapping_size,
                                "must be a multiple of 4");
    CommonCli common = cli.common;
    common.stream_mapping_size = std::to_string(mapping.first);
    common.stream_num_descriptors = std::to_string(descriptors.first);
    o.stream = PDT_TRY(run_options(common));
    o.modes = PDT_TRY(dma_mode_request(common.modes));
    o.c2h_mapping_size = mapping.second;
    o.stream_axi_width_bytes = PDT_TRY(parse_number("stream_axi_width_bytes", cli.stream_axi_width_bytes, 4, 4096));
    if (o.stream_axi_width_bytes % 4 != 0)
        return pdt::usage_error("parse option --stream_axi_width_bytes", cli.stream_axi_width_bytes,
                                "must be a multiple of 4");
    o.c2h_num_descriptors = descriptors.second;
    o.memory.timeout = o.stream.test.transfer_timeout;
    o.memory.dma_mask_bits = o.stream.dma_mask_bits;
    o.memory.buffer_kind = o.stream.allocation == streams::BufferAllocation::HugePages      ? vfio::BufferKind::HugePages
                           : o.stream.allocation == streams::BufferAllocation::SharedMemory ? vfio::BufferKind::SharedMemory
                                                                                   : vfio::BufferKind::Anonymous;
    o.qdma_queues = static_cast<unsigned>(PDT_TRY(parse_number("qdma_queues", cli.qdma_queues, 1, 16)));
    o.qdma_ring_entries = static_cast<uint32_t>(PDT_TRY(parse_number("qdma_ring_entries", cli.qdma_ring_entries, 0, 65536)));
    o.qdma_interrupts = cli.qdma_interrupts;
    for (const std::string& text : cli.common.device_routing)
        o.routing.push_back(PDT_TRY(parse_device_routing("device_routing", text)));
    std::stringstream tests(cli.enabled_tests);
    for (std::string test; std::getline(tests, test, ',');) {
        if (std::find(kDmaBridgeTests.begin(), kDmaBridgeTests.end(), test) == kDmaBridgeTests.end())
            return pdt::usage_error("parse option --enabled_tests", test, "unknown test");
        o.enabled.insert(test);
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    line_buffer_stdout();
    const DmaBridgeToolName& invoked =
        cli::name_invoked(argv[0], std::span<const DmaBridgeToolName>(kDmaBridgeToolNames));
    Cli cli;
    cli.enabled_tests = invoked.enabled_tests;
    const std::string enabled_tests_help =
        invoked.enabled_tests.empty() ? "comma-separated subset of the tests"
                                      : "comma-separated subset of the tests (default " +
                                            std::string(invoked.enabled_tests) + ")";
    po::options_description d;
    cli::add_device_option(d, cli.devices);
    cli::add_sim_design_option(d, cli.common.sim_designs);
    cli::add_design_file_option(d, cli.common.design_files);
    d.add_options()
        ("max_buffer_size", po::value(&cli.max_buffer_size), "buffer bytes for memory_fixed_buffers (default 0x8000000)")
        ("max_channel_combinations", po::value(&cli.max_channel_combinations), "H2C x C2H pairs tested at most (16)")
        ("buffer_allocation", po::value(&cli.common.buffer_allocation), "heap, shared_memory or huge_pages")
        ("device_routing", po::value(&cli.common.device_routing)->composing(),
         "<bdf>[,<master>:<slave>]... AXI4-Stream Switch routes of a device; unlisted master ports disabled")
        ("a32", po::bool_switch(&cli.common.a32), "IOVAs of every DMA buffer and descriptor ring below 4 GiB (32-bit DMA mask)")
        ("isolate_iommu_groups", po::bool_switch(&cli.common.isolate_iommu_groups), "one VFIO container (IOVA space) per IOMMU group; a running VFIO manager decides this itself")
        ("stream_mapping_size", po::value(&cli.stream_mapping_size), "<h2c>[,<c2h>] stream host buffer bytes (0x40000000)")
        ("stream_num_descriptors", po::value(&cli.stream_num_descriptors), "<h2c>[,<c2h>] stream buffers (64)")
        ("transfer_length", po::value(&cli.transfer_length), "<h2c>[,<c2h>] bytes per memory_variable_transfers transfer")
        ("stream_axi_width_bytes", po::value(&cli.stream_axi_width_bytes),
         "C2H stream buffers and receives are whole beats of this many bytes (16)")
        ("host_buffer_divisor", po::value(&cli.host_buffer_divisor), "memory_host_chunks host buffer = card / n (4)")
        ("dma_bridge_memory_base_address", po::value(&cli.memory_base), "override the card memory base address")
        ("dma_bridge_memory_size_bytes", po::value(&cli.memory_size), "override the card memory size")
        ("enabled_tests", po::value(&cli.enabled_tests), enabled_tests_help.c_str())
        ("min_words", po::value(&cli.min_words), "words each test moves at least (default 2^32, every LCG value)")
        ("host_memory_limit", po::value(&cli.common.host_memory_limit), host_memory_limit_help())
        ("verify_threads", po::value(&cli.common.verify_threads), "extra threads that share pattern generation and checking (0..256)")
        ("qdma_queues", po::value(&cli.qdma_queues), "QDMA memory tests: MM queue pairs H2C q / C2H q tested, 1..16 (1)")
        ("qdma_ring_entries", po::value(&cli.qdma_ring_entries),
         "QDMA: descriptor ring entries, a QDMA_GLBL_RNG_SZ value (0: 65 for memory, as the stream buffers need)")
        ("qdma_interrupts", po::bool_switch(&cli.qdma_interrupts),
         "QDMA memory tests: completion by MSI-X through an interrupt aggregation ring (default: polling)");
    cli::add_transfer_timeout_option(d, cli.common.transfer_timeout);
    cli::add_json_option(d, cli.common.json, cli::JsonForm::Lines);
    cli::add_lock_timeout_option(d, cli.lock_timeout);
    cli::add_no_iommu_option(d, cli.common.no_iommu);
    cli::add_xdma_mode_options(d, cli.common.modes);
    tool_support::add_board_health_options(d, cli.common.health);
    if (auto status = parse_command_line(argc, argv, d, "Tests the DMA bridge of identified designs."))
        return *status;
    auto options = convert(cli);
    std::string usage;
    auto locations = tool_support::parse_locations(cli.devices, "--device", usage);
    if (!locations) {
        std::cerr << "Error: " << usage << "\n";
        return 2;
    }
    auto registry = designs::Registry::load(cli.common.design_files);
    auto lock_timeout = cli::parse_lock_timeout(cli.lock_timeout);
    if (!options.ok() || !registry.ok() || !lock_timeout.ok()) {
        std::cerr << "Error: "
                  << (!options.ok() ? options.error() : !registry.ok() ? registry.error() : lock_timeout.error()).message()
                  << "\n";
        return 2;
    }
    options->simulated_card_memory = !cli.common.sim_designs.empty();
    if (options->memory_base_override || options->memory_size_override)
        (cli.common.json ? std::cerr : std::cout)
            << "Overriding DMA bridge memory window: tests fail if it lies outside the design's memory\n";
    std::ostream& text = cli.common.json ? std::cerr : std::cout;  // --json: stdout holds only cli.json Lines
    tool_support::DesignSelection selection{cli.common.sim_designs, *locations, *lock_timeout,
                                            cli.common.isolate_iommu_groups};
    selection.no_iommu = cli.common.no_iommu;
    tool_support::OpenedDesigns opened = tool_support::open_designs(*registry, selection, &text, std::cerr);
    if (opened.found.designs.empty()) {
        if (opened.status != tool_support::kUsageError)
            std::cout << (cli.common.json ? kNothingOpenedJson : "Overall FAIL\n");
        return opened.status;
    }
    int health_status = 0;
    auto health = open_board_health(cli.common.health, tool_support::designs_under_test(opened.found), cli.common.json,
                                    health_status);
    if (!health)
        return health_status;
    options->stream.health = health.get();
    report_dma_failures(cli.common.json ? stderr : stdout);  // registers and AER on a DMA failure
    const int status = run_test_dma_bridge(opened.found.designs, *options, stdout);
    if (cli.common.json)
        tool_support::report_device_holds(stdout);
    return opened.status == 0 ? status : opened.status;
}
