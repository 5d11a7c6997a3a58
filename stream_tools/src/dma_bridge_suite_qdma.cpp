// test_dma_bridge on QDMA designs (PG302): the memory tests through MM queue pairs (H2C queue q
// / C2H queue q) on a design with card memory, stream_fixed_buffers through the stream queues
// of every route the design data states.
#include <algorithm>
#include <cinttypes>

#include "dma_bridge_suite_shared.hpp"
#include "stream_tools/qdma_card_dma.hpp"
#include "adapters/qdma_stream_devices.hpp"

namespace stream_tools {
namespace {

// QDMA queues have no XDMA engine modes: --engine_mode / --completion asking for one is a FAIL
// with the reason rather than silently ignored.
std::optional<std::string> modes_refused(const DmaBridgeTestOptions& options) {
    if (options.modes.mode == xdma::EngineModeRequest::Auto && options.modes.completion == xdma::CompletionRequest::Auto)
        return std::nullopt;
    return "--engine_mode and --completion choose XDMA engine modes; QDMA queues complete by their status "
           "descriptor writeback, polled";
}

void fail_design(const identify::IdentifiedDesign& design, const std::string& tests, const std::string& why,
                 std::FILE* out, std::vector<ChannelResult>& results) {
    ChannelResult result = result_for(design, tests);
    result.queues = true;
    result.failure = why;
    std::fprintf(out, "TEST FAIL:\n  %s\n", why.c_str());
    results.push_back(result);
}

void run_qdma_memory(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, std::FILE* out,
                     std::vector<ChannelResult>& results) {
    const uint32_t ring = options.qdma_ring_entries ? options.qdma_ring_entries : 65;
    const unsigned function = design.design->card ? design.design->card->physical_function : 0;
    MemoryDesign dma;
    dma.queues = true;
    dma.modes_line = "Device " + design.identity.address.to_string() + " QDMA MM queues: descriptor rings of " +
                     std::to_string(ring) + " entries, MM descriptors of at most 0x8000 bytes, completion " +
                     (options.qdma_interrupts ? "by MSI-X through interrupt aggregation ring " + std::to_string(function)
                                              : std::string("polled")) +
                     " (status descriptor writeback)";
    for (unsigned q = 0; q < std::min(options.qdma_queues, options.max_channel_combinations); ++q)
        dma.pairs.push_back({q, q});
    const MemoryTestOptions memory = memory_options(design, options);
    const auto function_queues = static_cast<uint16_t>(std::max(16u, options.qdma_queues));
    dma.open = [&, ring, function, function_queues](const DmaPair& pair,
                                                    const std::string&) -> pdt::Result<std::unique_ptr<CardDma>> {
        QdmaCardDma::Options o;
        o.bar = design.design->qdma->bar;
        o.function = function;
        o.function_queues = function_queues;
        o.qid_base = static_cast<uint16_t>(function * function_queues);  // each PF its own FMAP range
        o.h2c_queue = pair.h2c;
        o.c2h_queue = pair.c2h;
        o.ring_entries = ring;
        o.dma_mask_bits = memory.dma_mask_bits;
        o.timeout = memory.timeout;
        o.interrupts = options.qdma_interrupts;
        o.interrupt_ring = function;  // one ring per PF
        return std::unique_ptr<CardDma>(PDT_TRY(QdmaCardDma::open(*design.device, o)));
    };
    run_memory_tests(design, options, dma, out, results);
}

// stream_fixed_buffers on each route; the other stream sub-tests drive XDMA engines directly.
void run_qdma_streams(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, std::FILE* out,
                      std::vector<ChannelResult>& results) {
    for (const char* xdma_only : {"stream_fixed_buffers_c2h_continuous", "stream_variable_transfers"})
        if (enabled(options, xdma_only) && !options.enabled.empty())
            std::fprintf(out, "Not testing %s on %s design PCI device %s: it drives XDMA engines\n", xdma_only,
                         design.design->text_name().c_str(), design.identity.address.to_string().c_str());
    if (!enabled(options, "stream_fixed_buffers"))
        return;
    if (over_host_limit(design, "stream_fixed_buffers", options.stream.mapping_size + options.c2h_mapping_size, 0,
                        "lower --stream_mapping_size, or raise the limit", options, out, results))
        return;
    ChannelResult base = result_for(design, "stream_fixed_buffers");
    base.queues = true;
    std::fprintf(out, "%s", design_header(design, "with AXI stream").c_str());
    auto device = adapters::make_qdma_stream_device(std::move(design), {options.qdma_ring_entries,
                                                                            options.stream.dma_mask_bits, nullptr});
    if (!device.ok()) {
        base.failure = "H2C failure : " + device.error().message();
        std::fprintf(out, "TEST FAIL:\n  %s\n", base.failure->c_str());
        results.push_back(base);
        return;
    }
    for (const streams::LoopRoute& route : (*device)->routes()) {
        const ChannelResult result = on_route(base, route);
        std::fprintf(out, "QDMA H2C queue %u -> C2H queue %u (design qdma.stream_routes)\n", route.h2c, route.c2h);
        results.push_back(run_stream_route(**device, result, options, out));
        std::fflush(out);
    }
}

}  // namespace

bool qdma_testable(const designs::Design& design) {
    return design.qdma && (design.qdma->memory_size > 0 || !design.qdma->stream_routes.empty());
}

void test_qdma_design(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, std::FILE* out,
                      std::vector<ChannelResult>& results) {
    const bool memory = design.design->qdma->memory_size > 0 &&
                        std::any_of(kDmaBridgeTests.begin(), kDmaBridgeTests.end(), [&](const std::string& t) {
                            return t.starts_with("memory_") && enabled(options, t);
                        });
    const bool streams = !design.design->qdma->stream_routes.empty() && !enabled_stream_tests(options).empty();
    if (!memory && !streams)
        return;
    const std::string tests = memory ? "memory" : enabled_stream_tests(options);
    if (auto refused = modes_refused(options)) {
        fail_design(design, tests, *refused, out, results);
        return;
    }
    if (auto enabled_bm = design.device->enable_bus_master(); !enabled_bm.ok()) {
        fail_design(design, tests, enabled_bm.error().message(), out, results);
        return;
    }
    if (memory)
        run_qdma_memory(design, options, out, results);
    if (streams)  // last: the stream device takes the design over
        run_qdma_streams(design, options, out, results);
}

}  // namespace stream_tools
