#include "probe_json.hpp"

#include "base/format.hpp"
#include "base/json_text.hpp"

namespace probe_json {
namespace {

using pdt::json_quote;

std::string head(const std::string& device, const std::string& design) {
    return "{\"device\": " + json_quote(device) + ", \"design\": " + json_quote(design);
}

std::string block_json(const xdma::FoundBlock& b) {
    return "{\"offset\": " + json_quote(pdt::hex(b.offset)) + ", \"target\": " + std::to_string(b.target()) +
           ", \"name\": " + json_quote(xdma::target_name(b.target())) + ", \"channel\": " + std::to_string(b.channel_id()) +
           ", \"stream\": " + (b.stream() ? "true" : "false") + ", \"version\": " + std::to_string(b.version()) +
           ", \"identifier\": " + json_quote(pdt::hex(b.identifier)) + "}";
}

std::string test_json(const xdma::RegisterTest& t) {
    std::string mismatches;
    for (const std::string& m : t.mismatches)
        mismatches += (mismatches.empty() ? "" : ", ") + json_quote(m);
    return "{\"channel\": " + json_quote(t.channel) + ", \"register\": " + json_quote(t.name) +
           ", \"patterns\": " + std::to_string(t.patterns) + ", \"mismatches\": [" + mismatches + "], \"original\": " +
           json_quote(pdt::hex(t.original)) + ", \"restored\": " + json_quote(pdt::hex(t.restored)) +
           ", \"pass\": " + (t.ok() ? "true" : "false") + "}";
}

}  // namespace

std::string not_probed_json(const std::string& device, const std::string& design, const std::string& why) {
    return head(device, design) + ", \"not_probed\": " + json_quote(why) + "}";
}

std::string design_json(const std::string& device, const std::string& design, unsigned dma_bar,
                        const xdma::ProbeOptions& options, const pdt::Result<xdma::ProbeSummary>& summary) {
    if (!summary.ok())
        return head(device, design) + ", \"dma_bar\": " + std::to_string(dma_bar) +
               ", \"error\": " + json_quote(summary.error().message()) + "}";
    std::string blocks, tests;
    for (const xdma::FoundBlock& b : summary->blocks)
        blocks += (blocks.empty() ? "" : ", ") + block_json(b);
    for (const xdma::RegisterTest& t : summary->tests)
        tests += (tests.empty() ? "" : ", ") + test_json(t);
    std::string text = head(device, design) + ", \"dma_bar\": " + std::to_string(dma_bar) + ", \"blocks\": [" + blocks +
                       "], \"msix\": " + json_quote(summary->msix);
    if (summary->register_read && options.read)
        text += ", \"register\": {\"bar\": " + std::to_string(options.read->bar) + ", \"offset\": " +
                json_quote(pdt::hex(options.read->offset)) + ", \"name\": " + json_quote(summary->register_read->name) +
                ", \"value\": " + json_quote(pdt::hex(summary->register_read->value)) + "}";
    if (options.write_tests)
        text += ", \"write_tests\": [" + tests + "], \"registers_tested\": " + std::to_string(summary->registers_tested) +
                ", \"registers_failed\": " + std::to_string(summary->registers_failed);
    return text + "}";
}

}  // namespace probe_json
