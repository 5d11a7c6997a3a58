// latency: copies timed from issue to completion, back to back and after a random idle gap
// (seed 000 section 3); every sample kept for a CDF.
#include <algorithm>
#include <cstring>
#include <thread>

#include "measure/subcommands.hpp"

namespace measure {
namespace {

// At most this much host memory holds a mode's slots: a batch of back-to-back copies.
constexpr uint64_t kSlotBytes = 64ull << 20;

// One mode: every timed copy has its own key, slot and check (docs/verification.md). The copies
// go in batches of as many slots as fit the host buffer and the card window; back to back means
// back to back within a batch, and each batch is prepared before and checked after its copies.
pdt::Result<LatencyMode> run_mode(CopyEndpoint& ep, Direction d, bool gaps, const LatencySettings& s,
                                  const CommonSettings& common, HostBuffer& host, HostBuffer& scratch, Rng& rng,
                                  uint64_t& key, Progress& progress, uint64_t& verified) {
    LatencyMode m;
    m.direction = d;
    m.mode = gaps ? "idle_gap" : "back_to_back";
    const CopyName name{ep.info().name + " latency " + m.mode, 1, s.samples};
    const uint64_t per_batch = slots_that_fit(s.samples, s.bytes, host.size(), 0, ep.info().card_memory_bytes);
    std::uniform_real_distribution<double> gap(0, s.max_gap_us);
    for (unsigned done = 0; done < s.samples;) {
        const auto slots = keyed_slots(std::min<uint64_t>(per_batch, s.samples - done), s.bytes, 0, key);
        PDT_CHECK(prepare_batch(ep, d, host, scratch, slots, s.bytes, common.timeout));
        for (const KeyedSlot& slot : slots) {
            if (gaps)
                std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<int64_t>(gap(rng) * 1000)));
            const auto start = Clock::now();
            PDT_CHECK(copy(ep, d, 0, host, slot.host_offset, slot.card_offset, s.bytes, common.timeout));
            m.samples_us.push_back(seconds_since(start) * 1e6);
            progress.step(1);
        }
        PDT_CHECK(check_batch(ep, d, host, scratch, slots, s.bytes, common.timeout, CopyName{name.what, done + 1, s.samples}));
        verified += s.bytes * slots.size();
        done += static_cast<unsigned>(slots.size());
    }
    m.p50 = percentile(m.samples_us, 50), m.p90 = percentile(m.samples_us, 90);
    m.p98 = percentile(m.samples_us, 98), m.p99 = percentile(m.samples_us, 99);
    m.p999 = percentile(m.samples_us, 99.9), m.max = percentile(m.samples_us, 100);
    return m;
}

}  // namespace

pdt::Result<LatencyResult> run_latency(CopyEndpoint& ep, const LatencySettings& asked, const CommonSettings& common,
                                       Progress& progress, uint64_t& verified, std::vector<std::string>& warnings) {
    const EndpointInfo& info = ep.info();
    if (asked.bytes == 0 || asked.samples == 0 || info.card_memory_bytes == 0)
        return pdt::make_error("latency", info.name, EINVAL, "copy size and samples must be 1 or more, and the "
                                                              "endpoint must have a card window");
    LatencySettings s = asked;
    if (s.bytes > info.card_memory_bytes) {  // the endpoint's limit: its largest copy instead, said so
        s.bytes = info.card_memory_bytes;
        warnings.push_back("latency: " + format_bytes(asked.bytes) + " copies do not fit the card window of " +
                           std::to_string(info.card_memory_bytes) + " bytes of " + info.name + ": measured " +
                           format_bytes(s.bytes) + " copies instead");
    }
    const uint64_t slots = slots_that_fit(s.samples, s.bytes, std::max(kSlotBytes, s.bytes), 0, info.card_memory_bytes);
    auto host = PDT_TRY(ep.allocate((s.bytes + 63) / 64 * 64 * (slots - 1) + s.bytes, HostMemory::Registered));
    auto scratch = PDT_TRY(ep.allocate(s.bytes, HostMemory::Registered));
    LatencyResult out;
    out.bytes = s.bytes;
    Rng rng(common.seed ^ 0x1a7e);
    uint64_t key = common.seed * 0x2545F4914F6CDD1Dull;
    progress.begin("latency", 4ull * s.samples, 4.0 * s.samples);
    for (Direction d : {Direction::H2C, Direction::C2H})
        for (bool gaps : {false, true})
            out.modes.push_back(PDT_TRY(run_mode(ep, d, gaps, s, common, *host, *scratch, rng, key, progress, verified)));
    progress.end();
    return out;
}

}  // namespace measure
