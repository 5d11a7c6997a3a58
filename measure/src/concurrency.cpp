// inflight (two copies in one queue, one in each of two queues, one at a time: seed 000
// section 5), bidir (both directions at once) and launch (seed 000 section 4).
#include <algorithm>
#include <barrier>
#include <cstring>
#include <deque>
#include <thread>

#include "measure/subcommands.hpp"

namespace measure {
namespace {

enum class Way { OneAtATime, OneQueue, TwoQueues };

const char* way_name(Way w) { return w == Way::OneAtATime ? "one at a time" : w == Way::OneQueue ? "one queue" : "two queues"; }

// Two copies of `bytes` (host and card [0, bytes) and [bytes, 2 bytes)) the way asked, each with
// its own key, prepared before and checked after the timing (docs/verification.md); GB/s.
pdt::Result<double> two_copies(CopyEndpoint& ep, Direction d, Way way, HostBuffer& host, HostBuffer& scratch,
                               uint64_t bytes, const CommonSettings& c, uint64_t& key, const CopyName& name) {
    const auto slots = keyed_slots(2, bytes, 0, key);
    PDT_CHECK(prepare_batch(ep, d, host, scratch, slots, bytes, c.timeout));
    const auto start = Clock::now();
    if (way == Way::OneAtATime) {
        PDT_CHECK(copy(ep, d, 0, host, slots[0].host_offset, slots[0].card_offset, bytes, c.timeout));
        PDT_CHECK(copy(ep, d, 0, host, slots[1].host_offset, slots[1].card_offset, bytes, c.timeout));
    } else {
        const unsigned second = way == Way::OneQueue ? 0 : 1;
        const Ticket a = PDT_TRY(ep.issue(d, 0, host, slots[0].host_offset, slots[0].card_offset, bytes));
        const Ticket b = PDT_TRY(ep.issue(d, second, host, slots[1].host_offset, slots[1].card_offset, bytes));
        PDT_CHECK(ep.wait(a, c.timeout));
        PDT_CHECK(ep.wait(b, c.timeout));
    }
    const double rate = 2.0 * static_cast<double>(bytes) / seconds_since(start) / 1e9;
    PDT_CHECK(check_batch(ep, d, host, scratch, slots, bytes, c.timeout, name));
    return rate;
}

pdt::Result<InflightPoint> inflight_point(CopyEndpoint& ep, Direction d, uint64_t bytes, const InflightSettings& s,
                                          const CommonSettings& c, HostBuffer& host, HostBuffer& scratch, Rng& rng,
                                          uint64_t& key, uint64_t& verified) {
    const EndpointInfo& info = ep.info();
    const bool one_queue = info.max_in_flight >= 2 && bytes <= info.max_copy_bytes;
    const bool two_queues = info.queues >= 2 && bytes <= info.max_copy_bytes;
    std::vector<Way> ways = {Way::OneAtATime};
    if (one_queue)
        ways.push_back(Way::OneQueue);
    if (two_queues)
        ways.push_back(Way::TwoQueues);
    std::vector<double> single, queue_rates, queues_rates, queue_ratio, queues_ratio;
    for (unsigned run = 0; run < s.repeats; ++run) {
        std::shuffle(ways.begin(), ways.end(), rng);
        double rate[3] = {0, 0, 0};
        for (Way w : ways) {
            std::vector<double> tries;
            const std::string what = info.name + " inflight " + format_bytes(bytes) + " " + way_name(w) + " run " +
                                     std::to_string(run + 1);
            for (unsigned t = 0; t < std::max(1u, s.tries); ++t) {
                tries.push_back(PDT_TRY(two_copies(ep, d, w, host, scratch, bytes, c, key, CopyName{what, 2 * t + 1, 0})));
                verified += 2 * bytes;
            }
            rate[static_cast<int>(w)] = median(tries);
        }
        single.push_back(rate[0]);
        if (one_queue)
            queue_rates.push_back(rate[1]), queue_ratio.push_back(rate[1] / rate[0]);
        if (two_queues)
            queues_rates.push_back(rate[2]), queues_ratio.push_back(rate[2] / rate[0]);
    }
    InflightPoint p;
    p.direction = d, p.bytes = bytes, p.one_at_a_time_gbps = mean_ci99(single);
    if (one_queue)
        p.one_queue_gbps = mean_ci99(queue_rates), p.one_queue_ratio = mean_ci99(queue_ratio);
    if (two_queues)
        p.two_queues_gbps = mean_ci99(queues_rates), p.two_queues_ratio = mean_ci99(queues_ratio);
    return p;
}

}  // namespace

pdt::Result<InflightResult> run_inflight(CopyEndpoint& ep, const InflightSettings& s, const CommonSettings& c,
                                         Progress& progress, uint64_t& verified, std::vector<std::string>& warnings) {
    const EndpointInfo& info = ep.info();
    if (info.max_in_flight < 2 && info.queues < 2)
        return pdt::make_error("inflight", info.name, ENOTSUP, "one queue that holds one copy: nothing to overlap");
    std::vector<uint64_t> sizes;
    for (uint64_t b : s.sizes) {
        if (b == 0 || (b + 63) / 64 * 64 + b > info.card_memory_bytes)
            warnings.push_back("inflight: " + format_bytes(b) + " left out: two copies do not fit the card window");
        else
            sizes.push_back(b);
    }
    if (sizes.empty() || s.repeats == 0)
        return pdt::make_error("inflight", info.name, EINVAL, "no size fits the card window twice");
    const uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
    auto host = PDT_TRY(ep.allocate(2 * ((largest + 63) / 64 * 64), HostMemory::Registered));
    auto scratch = PDT_TRY(ep.allocate(largest, HostMemory::Registered));
    InflightResult out;
    out.repeats = s.repeats;
    Rng rng(c.seed ^ 0x1f11);
    uint64_t key = c.seed * 0x9E3779B97F4A7C15ull + 7;
    progress.begin("inflight", 2 * sizes.size(), 2.0 * sizes.size());
    for (Direction d : {Direction::H2C, Direction::C2H})
        for (uint64_t b : sizes) {
            out.points.push_back(PDT_TRY(inflight_point(ep, d, b, s, c, *host, *scratch, rng, key, verified)));
            progress.step(1);
        }
    progress.end();
    return out;
}

namespace {

struct BidirRun {
    double h2c = 0, c2h = 0;
};

// The host buffers of one direction: the copies' own, and a scratch one for preloads and
// read-backs, each of `bytes`.
struct WayBuffers {
    std::unique_ptr<HostBuffer> data, scratch;
};

// One direction's copies back to back on its own queue, each with its own key, prepared before
// and checked after its timing (docs/verification.md): the median copy's rate.
// With `lockstep` (both directions at once, one thread each): the threads copy together and
// prepare and check together, so that neither's timed copy shares the link with the other's
// preparation or check (a C2H check reads nothing, but an H2C check reads the card back, and a
// C2H preparation writes the card: traffic in the other direction). A thread that leaves early
// (an error) drops out of the lockstep, so the other never waits for it.
pdt::Result<double> one_way(CopyEndpoint& ep, Direction d, unsigned queue, WayBuffers& b, uint64_t card,
                            uint64_t bytes, unsigned copies, const CommonSettings& c, uint64_t& key,
                            const std::string& what, std::barrier<>* lockstep = nullptr) {
    struct Leave {
        std::barrier<>* lockstep;
        ~Leave() {
            if (lockstep)
                lockstep->arrive_and_drop();
        }
    } leave{lockstep};
    const auto together = [lockstep] {
        if (lockstep)
            lockstep->arrive_and_wait();
    };
    std::vector<double> rates;
    for (unsigned i = 0; i < copies; ++i) {
        const auto slots = keyed_slots(1, bytes, card, key);
        PDT_CHECK(prepare_batch(ep, d, *b.data, *b.scratch, slots, bytes, c.timeout, queue));
        together();
        const auto start = Clock::now();
        PDT_CHECK(copy(ep, d, queue, *b.data, 0, card, bytes, c.timeout));
        rates.push_back(static_cast<double>(bytes) / seconds_since(start) / 1e9);
        together();
        PDT_CHECK(check_batch(ep, d, *b.data, *b.scratch, slots, bytes, c.timeout, CopyName{what, i + 1, copies}, queue));
    }
    return median(rates);
}

// Both directions at once. With two queues, one thread per direction (the seam allows issue and
// wait on different queues from different threads); with one queue that holds two copies, one
// of each in flight, each pair timed from issue to the later completion, so a direction cannot
// be seen faster than the other's pace. Every copy is checked, outside its timing.
pdt::Result<BidirRun> both_ways(CopyEndpoint& ep, WayBuffers& src, WayBuffers& dst, uint64_t bytes, unsigned copies,
                                const CommonSettings& c, uint64_t& h2c_key, uint64_t& c2h_key, const std::string& what) {
    if (ep.info().queues >= 2) {
        pdt::Result<double> back = 0.0;
        std::barrier<> lockstep(2);  // each pair of copies starts together: a late one would run alone
        std::thread reader([&] {
            back = one_way(ep, Direction::C2H, 1, dst, bytes, bytes, copies, c, c2h_key, what + " C2H", &lockstep);
        });
        auto forth = one_way(ep, Direction::H2C, 0, src, 0, bytes, copies, c, h2c_key, what + " H2C", &lockstep);
        reader.join();
        if (!forth)
            return std::move(forth).error();
        if (!back)
            return std::move(back).error();
        return BidirRun{*forth, *back};
    }
    double seconds = 0;
    for (unsigned i = 0; i < copies; ++i) {
        const auto h = keyed_slots(1, bytes, 0, h2c_key), r = keyed_slots(1, bytes, bytes, c2h_key);
        PDT_CHECK(prepare_batch(ep, Direction::H2C, *src.data, *src.scratch, h, bytes, c.timeout));
        PDT_CHECK(prepare_batch(ep, Direction::C2H, *dst.data, *dst.scratch, r, bytes, c.timeout));
        const auto start = Clock::now();
        const Ticket forth = PDT_TRY(ep.issue(Direction::H2C, 0, *src.data, 0, 0, bytes));
        const Ticket back = PDT_TRY(ep.issue(Direction::C2H, 0, *dst.data, 0, bytes, bytes));
        PDT_CHECK(ep.wait(forth, c.timeout));
        PDT_CHECK(ep.wait(back, c.timeout));
        seconds += seconds_since(start);
        PDT_CHECK(check_batch(ep, Direction::H2C, *src.data, *src.scratch, h, bytes, c.timeout,
                              CopyName{what + " H2C", i + 1, copies}));
        PDT_CHECK(check_batch(ep, Direction::C2H, *dst.data, *dst.scratch, r, bytes, c.timeout,
                              CopyName{what + " C2H", i + 1, copies}));
    }
    const double rate = static_cast<double>(bytes) * copies / seconds / 1e9;
    return BidirRun{rate, rate};
}

}  // namespace

pdt::Result<BidirResult> run_bidir(CopyEndpoint& ep, const BidirSettings& s, const CommonSettings& c,
                                   Progress& progress, uint64_t& verified) {
    const EndpointInfo& info = ep.info();
    if (info.queues < 2 && info.max_in_flight < 2)
        return pdt::make_error("bidir", info.name, ENOTSUP, "one queue that holds one copy: no two directions at once");
    const uint64_t bytes = std::min({s.bytes, info.max_copy_bytes, info.card_memory_bytes / 2});
    if (bytes == 0 || s.repeats == 0 || s.copies == 0)
        return pdt::make_error("bidir", info.name, EINVAL, "copy size, repeats and copies must be 1 or more");
    WayBuffers src{PDT_TRY(ep.allocate(bytes, HostMemory::Registered)), PDT_TRY(ep.allocate(bytes, HostMemory::Registered))};
    WayBuffers dst{PDT_TRY(ep.allocate(bytes, HostMemory::Registered)), PDT_TRY(ep.allocate(bytes, HostMemory::Registered))};
    BidirResult out;
    out.bytes = bytes, out.repeats = s.repeats;
    std::vector<double> h_alone, r_alone, h_both, r_both, sum;
    uint64_t h2c_key = c.seed * 0xD1B54A32D192ED03ull, c2h_key = h2c_key ^ 0x5555555555555555ull;
    progress.begin("bidir", s.repeats, s.repeats);
    for (unsigned run = 0; run < s.repeats; ++run) {
        const std::string what = info.name + " bidir run " + std::to_string(run + 1);
        h_alone.push_back(PDT_TRY(one_way(ep, Direction::H2C, 0, src, 0, bytes, s.copies, c, h2c_key, what + " H2C alone")));
        r_alone.push_back(PDT_TRY(one_way(ep, Direction::C2H, 0, dst, bytes, bytes, s.copies, c, c2h_key, what + " C2H alone")));
        const BidirRun both = PDT_TRY(both_ways(ep, src, dst, bytes, s.copies, c, h2c_key, c2h_key, what + " both"));
        h_both.push_back(both.h2c), r_both.push_back(both.c2h), sum.push_back(both.h2c + both.c2h);
        verified += 4 * bytes * s.copies;
        progress.step(1);
    }
    progress.end();
    out.h2c_alone = mean_ci99(h_alone), out.c2h_alone = mean_ci99(r_alone);
    out.h2c_both = mean_ci99(h_both), out.c2h_both = mean_ci99(r_both), out.sum_both = mean_ci99(sum);
    return out;
}

pdt::Result<LaunchResult> run_launch(CopyEndpoint& ep, const LaunchSettings& s, const CommonSettings& c,
                                     Progress& progress, uint64_t& verified) {
    if (!ep.info().can_launch)
        return pdt::make_error("launch", ep.info().name, ENOTSUP, "this endpoint runs no code on the card");
    // A launch moves no data: a 4 KiB round trip before and after the launches checks that the
    // card behind them moves data, then and still.
    const uint64_t probe = std::min<uint64_t>(4096, ep.info().card_memory_bytes);
    auto host = PDT_TRY(ep.allocate(probe, HostMemory::Registered));
    auto scratch = PDT_TRY(ep.allocate(probe, HostMemory::Registered));
    uint64_t key = c.seed * 0xA0761D6478BD642Full;
    const auto round_trip = [&](const char* when) -> pdt::Result<void> {
        const auto slots = keyed_slots(1, probe, 0, key);
        PDT_CHECK(prepare_batch(ep, Direction::H2C, *host, *scratch, slots, probe, c.timeout));
        PDT_CHECK(copy(ep, Direction::H2C, 0, *host, 0, 0, probe, c.timeout));
        PDT_CHECK(check_batch(ep, Direction::H2C, *host, *scratch, slots, probe, c.timeout,
                              CopyName{ep.info().name + " launch probe " + when, 1, 1}));
        verified += probe;
        return {};
    };
    PDT_CHECK(round_trip("before"));
    LaunchResult out;
    out.samples = s.samples, out.queued = s.queued;
    progress.begin("launch", s.samples + s.repeats, s.samples + static_cast<double>(s.repeats) * s.queued);
    for (unsigned i = 0; i < s.samples; ++i) {
        const auto start = Clock::now();
        PDT_CHECK(ep.launch_empty(0, 1, c.timeout));
        out.single_us.push_back(seconds_since(start) * 1e6);
        progress.step(1);
    }
    std::vector<double> per_launch;
    for (unsigned run = 0; run < s.repeats; ++run) {
        std::vector<double> tries;
        for (unsigned t = 0; t < std::max(1u, s.tries); ++t) {
            const auto start = Clock::now();
            PDT_CHECK(ep.launch_empty(0, s.queued, c.timeout));
            tries.push_back(seconds_since(start) * 1e6 / s.queued);
        }
        per_launch.push_back(median(tries));
        progress.step(s.queued);
    }
    progress.end();
    PDT_CHECK(round_trip("after"));
    out.single_p50_us = median(out.single_us);
    out.queued_per_launch_us = mean_ci99(per_launch);
    return out;
}

}  // namespace measure
