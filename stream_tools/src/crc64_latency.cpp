#include "stream_tools/crc64_latency.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "base/format.hpp"
#include "pattern/crc64.hpp"
#include "stream_test/report.hpp"
#include "stream_tools/stream_tools.hpp"
#include "streams/fallbacks.hpp"

namespace stream_tools {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kResultBytes = 8;

using pdt::format;

struct Measured {
    std::vector<double> latencies_us;  // sorted
    uint64_t verified = 0;             // CRC64 results checked (every iteration, the first too)
};

// One packet length on one route: samples + 1 round trips, each CRC checked.
pdt::Result<Measured> measure(streams::StreamDevice& device, const streams::LoopRoute& route, uint64_t length,
                              const LatencyOptions& options, uint64_t& sequence) {
    auto h2c = PDT_TRY(device.open_channel(streams::Direction::H2C, route.h2c, streams::ChannelBuffers{1, length}));
    auto c2h = PDT_TRY(device.open_channel(streams::Direction::C2H, route.c2h, streams::ChannelBuffers{1, kResultBytes}));
    auto* words = reinterpret_cast<uint64_t*>(h2c->buffer(0));
    for (uint64_t w = 0; w < length / 8; ++w)
        words[w] = sequence = pattern::lcg64_next(sequence);
    const uint64_t expected = pattern::crc64_card(words, length), poison = ~expected;
    Measured measured;
    measured.latencies_us.reserve(options.samples);
    for (uint64_t i = 0; i <= options.samples; ++i) {
        if (stop_requested())  // Ctrl-C or SIGTERM: the channels stop (proven) as they close
            return stopped_early(h2c->name());
        std::memcpy(c2h->buffer(0), &poison, kResultBytes);  // a result never written fails
        const auto start = Clock::now();
        PDT_CHECK(c2h->submit(0, kResultBytes, false));
        PDT_CHECK(h2c->submit(0, length, true));
        const streams::Completion result = PDT_TRY(streams::wait_loopback(*h2c, *c2h, options.timeout));
        (void)PDT_TRY(h2c->wait(options.timeout));
        const auto stop = Clock::now();
        uint64_t actual;
        std::memcpy(&actual, c2h->buffer(0), sizeof actual);
        if (result.length != kResultBytes || !result.end_of_packet || actual != expected)
            return pdt::make_error("check CRC64 result", c2h->name(), EIO,
                                   format("%" PRIu64 "-byte packet, sample %" PRIu64 ": length %" PRIu64
                                        " EOP %d CRC64 0x%016" PRIx64 ", expected length 8 EOP 1 CRC64 0x%016" PRIx64,
                                        length, i, result.length, result.end_of_packet ? 1 : 0, actual, expected));
        ++measured.verified;
        if (i > 0)
            measured.latencies_us.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
    }
    (void)h2c->stop();
    (void)c2h->stop();
    std::sort(measured.latencies_us.begin(), measured.latencies_us.end());
    return measured;
}

std::string latency_line(uint64_t length, const std::vector<double>& sorted) {
    std::string line = format("%7" PRIu64 " len bytes latencies (us):", length);
    for (double p : kLatencyPercentiles)
        line += format(" %7.3f (%g')", percentile(sorted, p), p);
    return line;
}

std::string latency_json(const streams::StreamDevice& device, const streams::LoopRoute& route, uint64_t length, const Measured& m) {
    std::string percentiles;
    for (double p : kLatencyPercentiles)
        percentiles += format("%s\"%g\":%.3f", percentiles.empty() ? "" : ",", p, percentile(m.latencies_us, p));
    const std::string engines = stream_test::json_engine_fields(device.engines());
    return format("{\"type\":\"latency\",\"design\":%s,\"device\":\"%s\",\"h2c\":%u,\"c2h\":%u%s,\"packet_bytes\":%" PRIu64
                ",\"samples\":%zu,\"crc64_verified\":%" PRIu64 ",\"latency_us\":{",
                stream_test::json_escape(device.design_name()).c_str(), device.address().to_string().c_str(),
                route.h2c, route.c2h, engines.c_str(), length, m.latencies_us.size(), m.verified) +
           percentiles +
           format("},\"min_us\":%.3f,\"max_us\":%.3f}", m.latencies_us.front(), m.latencies_us.back());
}

struct Totals {
    uint64_t routes = 0, verified = 0, bytes = 0;
    std::vector<std::string> failures;
};

void test_route(streams::StreamDevice& device, const streams::LoopRoute& route, const LatencyOptions& options, uint64_t& sequence,
                Totals& totals, std::FILE* out) {
    ++totals.routes;
    // fpga_sio's line, its words and order (the H2C channel printed after "C2H"), then ours.
    if (!options.json)
        std::fprintf(out, "Testing design %s using C2H %u -> H2C %u (H2C %u sends, C2H %u returns each CRC64)\n",
                     device.display_name().c_str(), route.h2c, route.c2h, route.h2c, route.c2h);
    uint64_t verified = 0, bytes = 0;
    for (uint64_t length = device.packet_granularity(); length <= options.max_packet_bytes; length <<= 1) {
        auto measured = measure(device, route, length, options, sequence);
        if (!measured.ok()) {
            totals.failures.push_back(format("  %s H2C %u -> C2H %u failure : %s", device.address().to_string().c_str(),
                                           route.h2c, route.c2h, measured.error().message().c_str()));
            if (!options.json)
                std::fprintf(out, "%s\n", totals.failures.back().c_str());
            break;
        }
        verified += measured->verified;
        bytes += measured->verified * length;
        std::fprintf(out, "%s\n", options.json ? latency_json(device, route, length, *measured).c_str()
                                               : latency_line(length, measured->latencies_us).c_str());
        std::fflush(out);
    }
    if (!options.json)
        std::fprintf(out, "%s H2C %u -> C2H %u CRC64 verified for %" PRIu64 " packets (%" PRIu64 " bytes)\n",
                     device.address().to_string().c_str(), route.h2c, route.c2h, verified, bytes);
    totals.verified += verified;
    totals.bytes += bytes;
}

}  // namespace

double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty())
        return 0.0;
    const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()) - 1e-9);
    const size_t index = rank < 1.0 ? 0 : std::min(sorted.size(), static_cast<size_t>(rank)) - 1;
    return sorted[index];
}

int run_crc64_latency(const std::vector<streams::StreamDevice*>& devices, const LatencyOptions& options, std::FILE* out) {
    Totals totals;
    uint64_t sequence = 0;  // one repeatable sequence for the whole run
    (void)stop_on_sigint();
    for (streams::StreamDevice* device : devices) {
        if (device->card_function() != streams::CardFunction::Crc64)
            continue;
        for (const streams::LoopRoute& route : device->routes())
            if (!stop_requested())
                test_route(*device, route, options, sequence, totals, out);
    }
    std::string reason;
    if (totals.routes == 0)
        reason = "No CRC64 stream design was tested";
    else if (!totals.failures.empty())
        reason = totals.failures.front();
    else if (totals.verified == 0)
        reason = "No CRC64 result was verified";
    const bool passed = reason.empty();
    if (options.json) {
        std::fprintf(out, "{\"type\":\"result\",\"result\":\"%s\",\"crc64_verified\":%" PRIu64
                          ",\"h2c_bytes_verified\":%" PRIu64 "%s%s}\n",
                     passed ? "PASS" : "FAIL", totals.verified, totals.bytes,
                     passed ? "" : (",\"reason\":" + stream_test::json_escape(reason)).c_str(),
                     (stream_test::json_dma_addressing() + streams::json_fallbacks()).c_str());
    } else {
        if (totals.routes == 0)
            std::fprintf(out, "%s\n", reason.c_str());
        stream_test::print_text_verdict(out, passed);
    }
    std::fflush(out);
    return passed ? 0 : 1;
}

}  // namespace stream_tools
