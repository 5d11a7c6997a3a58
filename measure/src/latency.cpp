// latency: copies timed from issue to completion, back to back and after a random idle gap
// (seed 000 section 3); every sample kept for a CDF.
#include <cstring>
#include <thread>

#include "measure/subcommands.hpp"

namespace measure {
namespace {

vfio::Result<LatencyMode> run_mode(CopyEndpoint& ep, Direction d, bool gaps, const LatencySettings& s,
                                   const CommonSettings& common, HostBuffer& host, Rng& rng, uint64_t key,
                                   Progress& progress, uint64_t& verified) {
    LatencyMode m;
    m.direction = d;
    m.mode = gaps ? "idle_gap" : "back_to_back";
    if (d == Direction::H2C) {
        fill_pattern(host.data(), s.bytes, key);
    } else {
        PDT_CHECK(preload_card(ep, host, 0, s.bytes, key, common.timeout));
        std::memset(host.data(), 0, s.bytes);
    }
    std::uniform_real_distribution<double> gap(0, s.max_gap_us);
    for (unsigned i = 0; i < s.samples; ++i) {
        if (gaps)
            std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<int64_t>(gap(rng) * 1000)));
        const auto start = Clock::now();
        PDT_CHECK(copy(ep, d, 0, host, 0, 0, s.bytes, common.timeout));
        m.samples_us.push_back(seconds_since(start) * 1e6);
        progress.step(1);
    }
    if (d == Direction::H2C) {
        PDT_CHECK(verify_card(ep, host, 0, s.bytes, key, common.timeout));
    } else if (auto at = find_mismatch(host.data(), s.bytes, key)) {
        return check_failure(d, *at, s.bytes, ep.info().name + " latency");
    }
    verified += s.bytes;
    m.p50 = percentile(m.samples_us, 50), m.p90 = percentile(m.samples_us, 90);
    m.p98 = percentile(m.samples_us, 98), m.p99 = percentile(m.samples_us, 99);
    m.p999 = percentile(m.samples_us, 99.9), m.max = percentile(m.samples_us, 100);
    return m;
}

}  // namespace

vfio::Result<LatencyResult> run_latency(CopyEndpoint& ep, const LatencySettings& asked, const CommonSettings& common,
                                        Progress& progress, uint64_t& verified, std::vector<std::string>& warnings) {
    const EndpointInfo& info = ep.info();
    if (asked.bytes == 0 || asked.samples == 0 || info.card_memory_bytes == 0)
        return vfio::make_error("latency", info.name, EINVAL, "copy size and samples must be 1 or more, and the "
                                                              "endpoint must have a card window");
    LatencySettings s = asked;
    if (s.bytes > info.card_memory_bytes) {  // the endpoint's limit: its largest copy instead, said so
        s.bytes = info.card_memory_bytes;
        warnings.push_back("latency: " + format_bytes(asked.bytes) + " copies do not fit the card window of " +
                           std::to_string(info.card_memory_bytes) + " bytes of " + info.name + ": measured " +
                           format_bytes(s.bytes) + " copies instead");
    }
    auto host = PDT_TRY(ep.allocate(s.bytes, HostMemory::Registered));
    LatencyResult out;
    out.bytes = s.bytes;
    Rng rng(common.seed ^ 0x1a7e);
    uint64_t key = common.seed * 0x2545F4914F6CDD1Dull;
    progress.begin("latency", 4ull * s.samples, 4.0 * s.samples);
    for (Direction d : {Direction::H2C, Direction::C2H})
        for (bool gaps : {false, true})
            out.modes.push_back(PDT_TRY(run_mode(ep, d, gaps, s, common, *host, rng, ++key, progress, verified)));
    progress.end();
    return out;
}

}  // namespace measure
