#include "stream_tools/dma_bridge_suite.hpp"
#include "stream_tools/stream_tools.hpp"

#include <cinttypes>
#include <memory>

#include "base/format.hpp"
#include "cli/device_options.hpp"
#include "dma_bridge_suite_shared.hpp"
#include "pattern/worker_pool.hpp"
#include "stream_test/report.hpp"
#include "stream_tools/memory_boundaries.hpp"
#include "stream_tools/stream_subtests.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace stream_tools {

using pdt::hex;  // "0x1f" (base/format.hpp)

bool enabled(const DmaBridgeTestOptions& options, const std::string& test) {
    return options.enabled.empty() || options.enabled.count(test) != 0;
}

ChannelResult result_for(const identify::IdentifiedDesign& design, const std::string& test) {
    ChannelResult result;
    result.device = design.identity.address.to_string();
    result.design = design.design->name;
    result.test = test;
    return result;
}

ChannelResult on_route(ChannelResult base, const streams::LoopRoute& route) {
    base.h2c = route.h2c;
    base.c2h = route.c2h;
    return base;
}

MemoryTestOptions memory_options(const identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options) {
    MemoryTestOptions memory = options.memory;
    const bool xdma = design.dma_bridge.has_value();
    memory.memory_base =
        options.memory_base_override.value_or(xdma ? design.dma_bridge->memory_base : design.design->qdma->memory_base);
    memory.memory_size =
        options.memory_size_override.value_or(xdma ? design.dma_bridge->memory_size : design.design->qdma->memory_size);
    return memory;
}

// fpga_sio's header of each test of a design: "Testing <name> design[ version 0x<v>] <what>", then
// "PCI device <bdf> IOMMU group <g>". Designs with a board version register (Lite/NiteFury
// Project-0) name it, as fpga_sio does.
std::string design_header(const identify::IdentifiedDesign& design, const std::string& what) {
    const std::string version = design.board_version ? pdt::format(" version 0x%x", *design.board_version) : "";
    return pdt::format("Testing %s design%s %s\nPCI device %s IOMMU group %d\n", design.design->text_name().c_str(),
                       version.c_str(), what.c_str(), design.identity.address.to_string().c_str(),
                       design.identity.iommu_group);
}

std::string memory_design_header(const identify::IdentifiedDesign& design, uint64_t memory_base, uint64_t memory_size) {
    return design_header(design, pdt::format("with memory base address 0x%" PRIx64 " size 0x%" PRIx64, memory_base,
                                             memory_size));
}

// A sub-test whose host buffers would exceed --host_memory_limit is not started: its reason,
// printed, and a failed result. Every other sub-test decides for itself.
// card_bytes: simulated card memory the test writes (0 on hardware).
bool over_host_limit(const identify::IdentifiedDesign& design, const std::string& test, uint64_t bytes,
                     uint64_t card_bytes, const char* way_out, const DmaBridgeTestOptions& options, std::FILE* out,
                     std::vector<ChannelResult>& results) {
    const uint64_t limit = options.stream.host_memory_limit;
    if (limit == 0 || bytes + card_bytes <= limit)
        return false;
    ChannelResult result = result_for(design, test);
    result.failure = "Not started: " + test + " on " + design.design->name + " at " +
                     design.identity.address.to_string() + " needs " + hex(bytes + card_bytes) +
                     (card_bytes ? " bytes of host buffers and simulated card memory (" + hex(bytes) + " + " +
                                       hex(card_bytes) + ")"
                                 : std::string(" bytes of host buffers")) +
                     ", more than --host_memory_limit " + hex(limit) + ": " + way_out;
    std::fprintf(out, "%s\n", result.failure->c_str());
    results.push_back(result);
    return true;
}

const char* memory_way_out(const std::string& test) {
    if (test == "memory_fixed_buffers")
        return "lower --max_buffer_size, test part of the card memory with --dma_bridge_memory_size_bytes, or raise "
               "the limit";
    if (test == "memory_variable_transfers")
        return "lower --max_buffer_size and --transfer_length, test part of the card memory with "
               "--dma_bridge_memory_size_bytes, or raise the limit";
    if (test == "memory_host_chunks")
        return "raise --host_buffer_divisor, test part of the card memory with --dma_bridge_memory_size_bytes, or "
               "raise the limit";
    return "raise the limit";
}

namespace {

using MemoryTest = MemoryTestResult (*)(vfio::Device&, CardDma&, const MemoryTestOptions&, std::FILE*);

// One memory test on every channel pair given (the first only for memory_addressing), each
// through the CardDma `open` gives it.
void run_memory_test(identify::IdentifiedDesign& design, const std::string& name, MemoryTest test,
                     const MemoryTestOptions& memory, const DmaBridgeTestOptions& options, const MemoryDesign& dma,
                     std::FILE* out, std::vector<ChannelResult>& results) {
    std::fprintf(out, "%s%s\n", memory_design_header(design, memory.memory_base, memory.memory_size).c_str(),
                 dma.modes_line.c_str());  // ours, after fpga_sio's header
    if (over_host_limit(design, name, memory_test_host_bytes(name, memory),
                        options.simulated_card_memory ? memory_test_card_bytes(name, memory) : 0, memory_way_out(name),
                        options, out, results))
        return;
    const size_t most = name == "memory_addressing" ? 1 : dma.pairs.size();
    for (size_t i = 0; i < most; ++i) {
        ChannelResult result = result_for(design, name);
        result.h2c = dma.pairs[i].h2c;
        result.c2h = dma.pairs[i].c2h;
        result.queues = dma.queues;
        auto opened = dma.open(dma.pairs[i], name);
        if (!opened.ok()) {
            std::fprintf(out, "TEST FAIL:\n  H2C failure : %s\n", opened.error().message().c_str());
            result.failure = "H2C failure : " + opened.error().message();
        } else {
            const MemoryTestResult outcome = test(*design.device, **opened, memory, out);
            result.bytes_verified = outcome.passed ? outcome.bytes_verified : 0;
            if (!outcome.passed)
                result.failure = outcome.failure;
            (void)(*opened)->stop();
        }
        results.push_back(result);
    }
}

// The engine modes line every run prints; nullopt, with a failed result, when the IP cannot do
// what --engine_mode / --completion ask.
std::optional<adapters::EngineModes> engine_modes(const identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options,
                                        const std::string& tests, std::FILE* out, std::vector<ChannelResult>& results) {
    auto modes = adapters::describe_engine_modes(design, options.modes);
    if (!modes.ok()) {
        ChannelResult result = result_for(design, tests);
        result.failure = cli::name_xdma_mode_options(modes.error()).message();
        std::fprintf(out, "TEST FAIL:\n  %s\n", result.failure->c_str());
        results.push_back(result);
        return std::nullopt;
    }
    return *modes;
}

// The results since `first` ran with `choice` (their --json total lines say so).
void stamp_engines(std::vector<ChannelResult>& results, size_t first, const streams::EngineChoice& choice) {
    for (size_t i = first; i < results.size(); ++i)
        results[i].engines = choice;
}

}  // namespace

// The memory tests of one design, in order, on the pairs `dma` gives.
void run_memory_tests(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, const MemoryDesign& dma,
                      std::FILE* out, std::vector<ChannelResult>& results) {
    const MemoryTestOptions memory = memory_options(design, options);
    // memory_boundaries first: short, and its guard bands see an engine that writes out of
    // bounds before the long tests overwrite the evidence.
    const std::pair<const char*, MemoryTest> tests[] = {{"memory_boundaries", memory_boundaries},
                                                        {"memory_fixed_buffers", memory_fixed_buffers},
                                                        {"memory_variable_transfers", memory_variable_transfers},
                                                        {"memory_host_chunks", memory_host_chunks},
                                                        {"memory_addressing", memory_addressing}};
    for (const auto& [name, test] : tests)
        if (enabled(options, name))
            run_memory_test(design, name, test, memory, options, dma, out, results);
}

namespace {

void run_memory_design(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, std::FILE* out,
                       std::vector<ChannelResult>& results) {
    const auto modes = engine_modes(design, options, "memory", out, results);
    if (!modes)
        return;
    MemoryDesign dma;
    dma.modes_line = modes->line;
    const unsigned h2c = design.dma_bridge->num_h2c(), c2h = design.dma_bridge->num_c2h();
    for (unsigned h = 0; h < h2c; ++h)
        for (unsigned c = 0; c < c2h && dma.pairs.size() < options.max_channel_combinations; ++c)
            dma.pairs.push_back({h, c});
    const MemoryTestOptions memory = memory_options(design, options);
    dma.open = [&](const DmaPair& pair, const std::string& test) -> pdt::Result<std::unique_ptr<CardDma>> {
        XdmaCardDma::Options dma_options;
        dma_options.dma_bar = design.dma_bridge->bar;
        dma_options.h2c_channel = pair.h2c;
        dma_options.c2h_channel = pair.c2h;
        dma_options.timeout = memory.timeout;
        dma_options.dma_mask_bits = memory.dma_mask_bits;
        dma_options.ring_descriptors = test == "memory_variable_transfers" ? 1023 : 64;
        dma_options.ip = adapters::ip_options(design);
        dma_options.modes = options.modes;
        return std::unique_ptr<CardDma>(std::make_unique<XdmaCardDma>(PDT_TRY(XdmaCardDma::open(*design.device, dma_options))));
    };
    const size_t first = results.size();
    run_memory_tests(design, options, dma, out, results);
    stamp_engines(results, first, modes->choice);
}

}  // namespace

// One loopback route: a fixed amount of data (min_words) through it, checked in full.
ChannelResult run_stream_route(streams::StreamDevice& device, ChannelResult result, const DmaBridgeTestOptions& options,
                               std::FILE* out) {
    const uint64_t h2c_whole = (options.stream.mapping_size / options.stream.num_descriptors) & ~uint64_t{3};
    const streams::ChannelBuffers h2c_buffers{options.stream.num_descriptors,
                                     h2c_whole - h2c_whole % device.packet_granularity(),  // CRC64: whole tdata beats
                                     options.stream.allocation};
    const streams::CardFunction function = device.card_function();
    const uint64_t c2h_whole = (options.c2h_mapping_size / options.c2h_num_descriptors) & ~uint64_t{3};
    const streams::ChannelBuffers c2h_buffers{options.c2h_num_descriptors,
                                     c2h_whole - c2h_whole % options.stream_axi_width_bytes,  // whole stream beats
                                     options.stream.allocation};
    const unsigned h = *result.h2c, c = *result.c2h;
    const char* unit = result.queues ? "queue" : "channel";
    std::fprintf(out, "\nTesting streams using H2C %zu buffers of size 0x%" PRIx64 " bytes, C2H %zu buffers of size 0x%" PRIx64
                      " bytes, H2C %s %u C2H %s %u\n",
                 h2c_buffers.count, h2c_buffers.size, c2h_buffers.count, c2h_buffers.size, unit, h, unit, c);
    std::fflush(out);
    if (h2c_buffers.size == 0 || c2h_buffers.size == 0) {
        result.failure = "H2C failure : stream_mapping_size / stream_num_descriptors is below 4 bytes";
        std::fprintf(out, "TEST FAIL:\n  %s\n", result.failure->c_str());
        return result;
    }
    auto h2c = device.open_channel(streams::Direction::H2C, h, h2c_buffers);
    auto c2h = device.open_channel(streams::Direction::C2H, c, c2h_buffers);
    if (!h2c.ok() || !c2h.ok()) {
        result.failure = std::string(h2c.ok() ? "C2H" : "H2C") + " failure : " +
                         (h2c.ok() ? c2h.error() : h2c.error()).message();
        std::fprintf(out, "TEST FAIL:\n  %s\n", result.failure->c_str());
        return result;
    }
    stream_test::Options test_options = options.stream.test;
    test_options.duration.reset();
    test_options.report_interval = std::chrono::hours(24);
    test_options.bytes_per_source = options.memory.min_words * 4;
    test_options.pool = options.memory.pool;
    stream_test::StreamTest test(test_options);
    const size_t source = *test.add_source(**h2c, 0);
    auto sink = test.add_sink(**c2h, source, function);
    if (!sink.ok()) {
        result.failure = "C2H failure : " + sink.error().message();
        std::fprintf(out, "TEST FAIL:\n  %s\n", result.failure->c_str());
        return result;
    }
    test.add_pair_row("host-to-card and card-to-host DMA", *sink);
    struct Quiet : stream_test::Observer {
        void on_interval(const std::vector<std::pair<std::string, stream_test::Interval>>&) override {}
    } quiet;
    const stream_test::Summary summary = test.run(quiet);
    const auto& row = summary.rows.front();
    const std::string beside = options.stream.health ? options.stream.health->beside(result.device) : "";
    std::fprintf(out, "%s%s\n", stream_test::format_rate_line(row.label, row.total).c_str(), beside.c_str());
    if (summary.passed()) {
        result.bytes_verified = row.words_verified * 4;
        std::fprintf(out, "%sTEST PASS\n",
                     verified_lines(function, row.words_verified,
                                    function == streams::CardFunction::Crc64 ? row.words_verified / 2 : 0,
                                    row.words_verified / 2 * h2c_buffers.size)
                         .c_str());
    } else {
        const stream_test::Failure& f = summary.failures.empty()
                                            ? stream_test::Failure{"C2H " + std::to_string(c), "no data verified", {}, {}}
                                            : summary.failures.front();
        result.failure = std::string(f.channel.find("H2C") != std::string::npos ? "H2C" : "C2H") + " failure : " +
                         f.channel + " " + f.message;
        std::fprintf(out, "TEST FAIL:\n  %s\n", result.failure->c_str());
    }
    return result;
}

std::string enabled_stream_tests(const DmaBridgeTestOptions& options) {
    std::string names;
    for (const std::string& test : kDmaBridgeTests)
        if (test.starts_with("stream_") && enabled(options, test))
            names += (names.empty() ? "" : ",") + test;
    return names;
}

namespace {

StreamSubtestOptions subtest_options(const DmaBridgeTestOptions& options, unsigned bar, const streams::LoopRoute& route) {
    StreamSubtestOptions o;
    o.dma_bar = bar;
    o.h2c_channel = route.h2c;
    o.c2h_channel = route.c2h;
    o.h2c_buffers = options.stream.num_descriptors;
    o.c2h_buffers = options.c2h_num_descriptors;
    o.h2c_mapping = options.stream.mapping_size;
    o.c2h_mapping = options.c2h_mapping_size;
    o.stream_width = options.stream_axi_width_bytes;
    o.h2c_transfer = options.memory.transfer_length;
    o.c2h_transfer = options.memory.c2h_transfer_length ? options.memory.c2h_transfer_length
                                                        : options.memory.transfer_length;
    o.min_bytes = options.memory.min_words * 4;
    o.dma_mask_bits = options.stream.dma_mask_bits;
    o.buffer_kind = options.memory.buffer_kind;
    o.timeout = options.stream.test.transfer_timeout;
    o.pool = options.memory.pool;
    return o;
}

ChannelResult with(ChannelResult result, const MemoryTestResult& outcome) {
    result.bytes_verified = outcome.passed ? outcome.bytes_verified : 0;
    if (!outcome.passed)
        result.failure = outcome.failure;
    return result;
}

// The stream tests of one design, in fpga_sio's order: each enabled test on every loopback
// route, after the design's header (fpga_sio prints it before each test).
void run_stream_design(identify::IdentifiedDesign design, const DmaBridgeTestOptions& options, std::FILE* out,
                       std::vector<ChannelResult>& results) {
    ChannelResult base = result_for(design, enabled_stream_tests(options));
    const auto modes = engine_modes(design, options, enabled_stream_tests(options), out, results);
    if (!modes)
        return;
    base.engines = modes->choice;
    const std::string header = design_header(design, "with AXI stream") + modes->line + "\n";
    if (over_host_limit(design, enabled_stream_tests(options), options.stream.mapping_size + options.c2h_mapping_size, 0,
                        "lower --stream_mapping_size, or raise the limit", options, out, results))
        return;
    const unsigned bar = design.dma_bridge->bar;
    const xdma::IpOptions ip = adapters::ip_options(design);
    adapters::OpenOptions open;
    open.modes = options.modes;
    open.timeout = options.stream.test.transfer_timeout;
    open.routing = options.routing;
    open.dma_mask_bits = options.stream.dma_mask_bits;
    auto device = adapters::make_xdma_stream_device(std::move(design), open);
    if (!device.ok()) {
        base.failure = "H2C failure : " + device.error().message();
        std::fprintf(out, "%sTEST FAIL:\n  %s\n", header.c_str(), base.failure->c_str());
        results.push_back(base);
        return;
    }
    if ((*device)->routes().empty()) {
        base.failure = "no loopback route from an H2C to a C2H channel: the stream tests have nothing they can verify";
        std::fprintf(out, "%sNot testing %s design PCI device %s: %s\n", header.c_str(), base.design.c_str(),
                     base.device.c_str(), base.failure->c_str());
        results.push_back(base);
        return;
    }
    for (const std::string& test : kDmaBridgeTests) {
        if (!test.starts_with("stream_") || !enabled(options, test))
            continue;
        std::fprintf(out, "%s", header.c_str());
        for (const streams::LoopRoute& route : (*device)->routes()) {
            ChannelResult result = on_route(base, route);
            result.test = test;
            if (test == "stream_fixed_buffers") {
                results.push_back(run_stream_route(**device, result, options, out));
                continue;
            }
            StreamSubtestOptions sub = subtest_options(options, bar, route);
            sub.ip = ip;
            sub.modes = options.modes;
            sub.function = (*device)->card_function();
            sub.packet_granularity = (*device)->packet_granularity();
            const auto subtest = test == "stream_variable_transfers" ? stream_variable_transfers
                                                                     : stream_fixed_buffers_c2h_continuous;
            results.push_back(with(result, subtest((*device)->device(), sub, out)));
        }
        std::fflush(out);
    }
}

void test_design(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, std::FILE* out,
                 std::vector<ChannelResult>& results) {
    if (!design.dma_bridge) {
        test_qdma_design(design, options, out, results);
        return;
    }
    const unsigned h2c = design.dma_bridge->num_h2c(), c2h = design.dma_bridge->num_c2h();
    const bool memory = design.dma_bridge->mode == designs::DmaMode::MemoryMapped;
    const bool any = memory ? std::any_of(kDmaBridgeTests.begin(), kDmaBridgeTests.end(),
                                          [&](const std::string& t) { return t.starts_with("memory_") && enabled(options, t); })
                            : !enabled_stream_tests(options).empty();
    if (!any)
        return;
    if (h2c == 0 || c2h == 0) {
        std::fprintf(out, "Skipping design %s PCI device %s IOMMU group %d due to num_h2c_channels=%u num_c2h_channels=%u\n",
                     design.design->text_name().c_str(), design.identity.address.to_string().c_str(),
                     design.identity.iommu_group, h2c, c2h);
        ChannelResult result = result_for(design, memory ? "memory" : enabled_stream_tests(options));
        result.failure = "num_h2c_channels=" + std::to_string(h2c) + " num_c2h_channels=" + std::to_string(c2h) +
                         ": no H2C x C2H channel pair to test";
        results.push_back(result);
        return;
    }
    if (auto enabled_bm = design.device->enable_bus_master(); !enabled_bm.ok()) {
        ChannelResult result = result_for(design, memory ? "memory" : enabled_stream_tests(options));
        result.failure = enabled_bm.error().message();
        results.push_back(result);
        return;
    }
    if (memory)
        run_memory_design(design, options, out, results);
    else
        run_stream_design(std::move(design), options, out, results);
}

// After a design's tests: its temperature (text), the metrics of the results so far, and a
// failed result when a temperature crossed --max_temperature (the tests stop there).
void report_board_health(tool_support::BoardHealth& health, const identify::IdentifiedDesign& design,
                         std::vector<ChannelResult>& results, const VerdictOutput& verdict, bool last) {
    const std::string address = design.identity.address.to_string();
    if (const std::string beside = health.beside(address); !beside.empty())
        std::fprintf(verdict.text, "Board health: %s %s%s\n", address.c_str(), design.design->name.c_str(),
                     beside.c_str());
    if (health.tripped()) {
        ChannelResult tripped{address, design.design->name, "board_health", {}, {}, 0, health.trip_reason(), {}};
        results.push_back(tripped);
    }
    std::vector<tool_support::RowMetrics> rows;
    bool passing = true;
    for (const ChannelResult& r : results) {
        const bool failed = r.failure || r.bytes_verified == 0;  // the verdict's rule (verdict.cpp)
        rows.push_back({r.device + " " + r.test + (r.h2c ? " H2C " + std::to_string(*r.h2c) : "") +
                            (r.c2h ? " C2H " + std::to_string(*r.c2h) : ""),
                        0, r.bytes_verified, failed ? 1u : 0u});
        passing = passing && !failed;
    }
    health.publish(rows, passing, last);
}

}  // namespace

int run_test_dma_bridge(std::vector<identify::IdentifiedDesign>& designs, const DmaBridgeTestOptions& given,
                        std::FILE* out) {
    const VerdictOutput verdict{given.stream.json ? stderr : out, given.stream.json ? out : nullptr};
    std::vector<identify::IdentifiedDesign*> dma_designs;
    for (identify::IdentifiedDesign& design : designs)
        if (design.device && (design.dma_bridge || qdma_testable(*design.design)))
            dma_designs.push_back(&design);
    if (dma_designs.empty())
        return report_nothing_tested("No design with a DMA bridge was tested", verdict);
    DmaBridgeTestOptions options = given;
    std::unique_ptr<pattern::WorkerPool> pool;
    if (options.stream.verify_threads > 0) {
        pool = std::make_unique<pattern::WorkerPool>(options.stream.verify_threads);
        options.memory.pool = pool.get();
    }
    std::vector<ChannelResult> results;
    options.stream.test.stop = stop_on_sigint();  // Ctrl-C or SIGTERM: stop, prove the stops, report
    tool_support::BoardHealth* health = options.stream.health;
    if (health) {
        options.stream.test.stop_failing = &health->tripped();
        stop_on_trip(&health->tripped());  // the memory tests' copies stop too
        health->start();
    }
    for (identify::IdentifiedDesign* design : dma_designs) {
        if (!health || !health->tripped())
            test_design(*design, options, verdict.text, results);
        if (health)  // a trip adds its failed result
            report_board_health(*health, *design, results, verdict, design == dma_designs.back() || health->tripped());
        std::fflush(verdict.text);
        if ((health && health->tripped()) || stop_requested())
            break;  // a card too hot, or a stop asked for: nothing after it is tested
    }
    if (health) {
        stop_on_trip(nullptr);
        health->stop();
    }
    if (results.empty())
        return report_nothing_tested(
            "No design with a DMA bridge was tested: --enabled_tests selects no test for the designs found", verdict);
    return report_verdict(results, verdict);
}

}  // namespace stream_tools
