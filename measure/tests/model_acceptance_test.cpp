// The acceptance test of F10: on a simulated design with a set throughput and latency, every
// subcommand recovers the set values within 10%. The model paces copies in wall-clock time;
// its figures are chosen so that a copy takes 20 us to about 1 ms, which the model spins rather
// than sleeps (a sleeping thread wakes late on a loaded machine), and each figure is a median.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <sstream>
#include <vector>

#include "subcommand_fixture.hpp"
#include "streams/forwarding_endpoint.hpp"
#include "measure/analysis.hpp"
#include "measure/subcommands.hpp"
#include "measure/tool.hpp"
#include "sim/model_copy_endpoint.hpp"

using namespace measure;

namespace {

constexpr double kH2c = 1.0, kC2h = 0.5;  // GB/s
constexpr double kLatency = 20;           // us

sim::ModelCopyParameters parameters() {
    sim::ModelCopyParameters p;
    p.h2c_gbps = kH2c, p.c2h_gbps = kC2h, p.latency_us = kLatency;
    p.queues = 2, p.in_flight = 2;
    p.launch_us = 100, p.launch_queued_us = 20;
    p.card_memory_bytes = 4ull << 20;
    return p;
}

std::unique_ptr<sim::ModelCopyEndpoint> model(const sim::ModelCopyParameters& p = parameters()) {
    auto m = sim::ModelCopyEndpoint::create(p);
    EXPECT_TRUE(m) << m.error().message();
    return std::move(*m);
}

// The time of one copy alone, us, and its rate, GB/s.
double copy_us(uint64_t bytes, double gbps) { return kLatency + static_cast<double>(bytes) / gbps / 1e3; }
double copy_gbps(uint64_t bytes, double gbps) { return static_cast<double>(bytes) / copy_us(bytes, gbps) / 1e3; }

void expect_within_10(double measured, double expected, const std::string& what) {
    EXPECT_NEAR(measured, expected, 0.1 * expected) << what;
}

struct ModelRun : SubcommandTest {};

}  // namespace

TEST_F(ModelRun, SweepRecoversRatesHalfRateSizeAndStagedModel) {
    auto m = model();
    SweepSettings s;
    s.min_bytes = 4096, s.max_bytes = 256ull << 10, s.repeats = 3, s.iterations = 7;
    auto r = run_sweep(*m, s, common, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    // 256 KiB: 20 us of latency against 262 (H2C) or 524 us (C2H) of data.
    expect_within_10(r->large_copy_gbps.at("H2C/direct"), kH2c, "H2C large copy");
    expect_within_10(r->large_copy_gbps.at("C2H/direct"), kC2h, "C2H large copy");
    // Half the large-copy rate where bytes / rate = latency: 20 KB at 1 GB/s, so the first
    // doubling at or above it (32 KiB); 10 KB at 0.5 GB/s (16 KiB).
    EXPECT_EQ(r->half_rate_bytes.at("H2C/direct"), 32768u);
    EXPECT_EQ(r->half_rate_bytes.at("C2H/direct"), 16384u);
    // Each size by its fastest repeat (the median of its copies): a busy host only slows a model
    // paced in wall-clock time, and a 4 KiB copy is 24 us, where one preemption shows (-14% on a
    // loaded 2-core machine, 7 December); the mean over the repeats is mean_ci99's, tested apart.
    for (const SweepPoint& p : r->points)
        if (p.path == "direct") {
            ASSERT_FALSE(p.run_medians_gbps.empty());
            expect_within_10(*std::max_element(p.run_medians_gbps.begin(), p.run_medians_gbps.end()),
                             copy_gbps(p.bytes, p.direction == Direction::H2C ? kH2c : kC2h),
                             std::string(to_string(p.direction)) + " " + std::to_string(p.bytes));
            EXPECT_GT(p.rate.mean, 0.0);
        }
    // The staged path adds a memcpy far faster than the model, pipelined (F20): the staged rate is
    // at least the serial model 1/(1/DMA + 1/memcpy) and at most the direct rate.
    ASSERT_FALSE(r->staged_model.empty());
    for (const StagedModelPoint& p : r->staged_model)
        if (p.bytes >= 65536) {
            const double direct = copy_gbps(p.bytes, p.direction == Direction::H2C ? kH2c : kC2h);
            EXPECT_GE(p.measured_gbps, 0.9 * p.model_gbps) << "staged " << p.bytes;
            EXPECT_LE(p.measured_gbps, 1.1 * direct) << "staged " << p.bytes;
        }
    EXPECT_GT(r->staged.chunk_bytes, 0u);
    EXPECT_GT(verified, 0u);
}

TEST_F(ModelRun, LatencyRecoversTheFixedLatency) {
    // 200 us, not the 20 us of the other tests: the measuring code's own cost per copy (about
    // 3 us in CI's ASan build, 27.0 us measured against 24.1) must stay a small part of it.
    constexpr double latency_us = 200;
    sim::ModelCopyParameters p = parameters();
    p.latency_us = latency_us;
    auto m = model(p);
    LatencySettings s;
    s.samples = 60, s.max_gap_us = 200;
    auto r = run_latency(*m, s, common, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    ASSERT_EQ(r->modes.size(), 4u);
    for (const LatencyMode& mode : r->modes) {
        const double gbps = mode.direction == Direction::H2C ? kH2c : kC2h;
        expect_within_10(mode.p50, latency_us + 4096 / gbps / 1e3, std::string(to_string(mode.direction)) + " " + mode.mode);
        EXPECT_EQ(mode.samples_us.size(), 60u);
        EXPECT_LE(mode.p50, mode.p99);
    }
    EXPECT_EQ(verified, 4u * 60u * 4096u) << "every timed copy is verified: 4 modes x 60 x 4 KiB";
}

TEST_F(ModelRun, AccessFindsTheIotlbCost) {
    sim::ModelCopyParameters p = parameters();
    p.iotlb_entries = 16, p.iotlb_miss_us = 40, p.in_flight = 1;
    auto m = model(p);
    AccessSettings s;
    s.sizes = {2048}, s.offsets = {0}, s.windows = {16384, 1ull << 20}, s.patterns = {"random"}, s.caches = {"warm"};
    s.memories = {HostMemory::Registered}, s.transfers = 150;
    // 16 KiB: 4 pages, every one held by the IOTLB. 1 MiB: 256 pages, random: 15 in 16 miss.
    const double small = copy_us(2048, kH2c), large = copy_us(2048, kH2c) + 40 * (1 - 16.0 / 256);
    const auto near = [](double measured, double expected) { return std::abs(measured - expected) <= 0.1 * expected; };
    // A point is one batch of wall-clock copies: on a loaded machine (load 10 and more on two
    // cores) a preempted model thread has spoiled one now and then, so up to three runs.
    std::vector<AccessPoint> points;
    for (int attempt = 0; attempt < 3; ++attempt) {
        auto r = run_access(*m, s, common, progress, verified, warnings);
        ASSERT_TRUE(r) << r.error().message();
        ASSERT_EQ(r->points.size(), 2u);
        points = r->points;
        if (near(points[0].mean_us, small) && near(points[1].mean_us, large))
            break;
    }
    expect_within_10(points[0].mean_us, small, "window 16 KiB");
    expect_within_10(points[1].mean_us, large, "window 1 MiB");
}

TEST_F(ModelRun, InflightRatiosFollowTheModel) {
    auto m = model();
    InflightSettings s;
    s.sizes = {64ull << 10, 128ull << 10}, s.repeats = 3, s.tries = 9;
    auto r = run_inflight(*m, s, common, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    ASSERT_EQ(r->points.size(), 4u);
    for (const InflightPoint& p : r->points) {
        const double gbps = p.direction == Direction::H2C ? kH2c : kC2h;
        const double data = static_cast<double>(p.bytes) / gbps / 1e3;
        // Two in flight overlap their latencies and share the link: 2 (L + D) / (L + 2 D).
        const double ratio = 2 * (kLatency + data) / (kLatency + 2 * data);
        ASSERT_TRUE(p.one_queue_ratio && p.two_queues_ratio);
        expect_within_10(p.one_queue_ratio->mean, ratio, "two in one queue " + std::to_string(p.bytes));
        expect_within_10(p.two_queues_ratio->mean, ratio, "one in each queue " + std::to_string(p.bytes));
        expect_within_10(p.one_at_a_time_gbps.mean, copy_gbps(p.bytes, gbps), "one at a time");
    }
}

TEST_F(ModelRun, BidirRecoversEachDirectionAndTheSum) {
    auto m = model();
    BidirSettings s;
    s.bytes = 128ull << 10, s.repeats = 3, s.copies = 15;
    // Each direction has its own link budget: both at once, each runs as fast as alone.
    const double h2c = copy_gbps(s.bytes, kH2c), c2h = copy_gbps(s.bytes, kC2h);
    const auto near = [](double measured, double expected) { return std::abs(measured - expected) <= 0.1 * expected; };
    // Two threads spin at once here: on a loaded 2-core machine one can be stalled for a whole
    // run, so up to three attempts; the figures of the last attempt are checked. (C2H both ways
    // at 0.37-0.41 against 0.46 was the H2C check's read-back sharing the C2H link with the timed
    // C2H copy, every time in a Release build: the two threads now copy, and check, in lockstep.)
    auto r = run_bidir(*m, s, common, progress, verified);
    ASSERT_TRUE(r) << r.error().message();
    for (int attempt = 2; attempt <= 3 && (!near(r->h2c_both.mean, h2c) || !near(r->c2h_both.mean, c2h) ||
                                           !near(r->h2c_alone.mean, h2c) || !near(r->c2h_alone.mean, c2h) ||
                                           !near(r->sum_both.mean, h2c + c2h));
         ++attempt) {
        r = run_bidir(*m, s, common, progress, verified);
        ASSERT_TRUE(r) << r.error().message();
    }
    expect_within_10(r->h2c_alone.mean, h2c, "H2C alone");
    expect_within_10(r->c2h_alone.mean, c2h, "C2H alone");
    expect_within_10(r->h2c_both.mean, h2c, "H2C both ways");
    expect_within_10(r->c2h_both.mean, c2h, "C2H both ways");
    expect_within_10(r->sum_both.mean, h2c + c2h, "sum");
}

namespace {

// The model, with one copy of the both-ways phase failing: the first H2C copy on queue 0 or the
// second C2H copy on queue 1 issued after the C2H thread's first (queue 1 is only used then).
class FailsInBothWays final : public streams::ForwardingEndpoint {
public:
    FailsInBothWays(std::unique_ptr<streams::CopyEndpoint> inner, Direction failing)
        : streams::ForwardingEndpoint(std::move(inner)), m_failing(failing) {}
    pdt::Result<streams::Ticket> issue(Direction d, unsigned queue, HostBuffer& host, uint64_t host_offset,
                                       uint64_t card_offset, uint64_t bytes) override {
        const bool c2h_thread = d == Direction::C2H && queue == 1;
        const unsigned seen = c2h_thread ? ++m_c2h_thread_copies : m_c2h_thread_copies.load();
        const bool fail = m_failing == Direction::C2H ? c2h_thread && seen == 2
                                                      : d == Direction::H2C && queue == 0 && seen >= 1 && !m_failed.exchange(true);
        if (fail)
            return pdt::make_error("issue", "model queue " + std::to_string(queue), EIO, "injected failure");
        return streams::ForwardingEndpoint::issue(d, queue, host, host_offset, card_offset, bytes);
    }

private:
    Direction m_failing;
    std::atomic<unsigned> m_c2h_thread_copies{0};
    std::atomic<bool> m_failed{false};
};

}  // namespace

// Both ways, one thread's copy fails: that thread leaves the lockstep, the other finishes alone
// (it never waits for the one that left), and the run is the failure, named.
TEST_F(ModelRun, BidirWithOneDirectionFailingEndsWithItsError) {
    for (const Direction failing : {Direction::C2H, Direction::H2C}) {
        FailsInBothWays ep(model(), failing);
        BidirSettings s;
        s.bytes = 64ull << 10, s.repeats = 1, s.copies = 6;
        auto r = run_bidir(ep, s, common, progress, verified);
        ASSERT_FALSE(r) << to_string(failing);
        EXPECT_NE(r.error().message().find("injected failure"), std::string::npos) << r.error().message();
        EXPECT_NE(r.error().message().find(failing == Direction::C2H ? "queue 1" : "queue 0"), std::string::npos)
            << r.error().message();
    }
}

// The forwarding base (the adapter registry's OwningEndpoint is one) forwards launches too: an endpoint
// that runs code stays one behind it, and one that does not still says ENOTSUP.
TEST(ForwardingEndpoint, ForwardsLaunchesToTheEndpointItHolds) {
    streams::ForwardingEndpoint launches(model());
    EXPECT_TRUE(launches.info().can_launch);
    auto launched = launches.launch_empty(0, 2, std::chrono::milliseconds(1000));
    EXPECT_TRUE(launched) << launched.error().message();
    sim::ModelCopyParameters p = parameters();
    p.launch_us = 0;
    streams::ForwardingEndpoint none(model(p));
    auto refused = none.launch_empty(0, 1, std::chrono::milliseconds(1000));
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ENOTSUP);
}

TEST(ModelEndpoint, ASharedLinkSerialisesTheTwoDirections) {
    sim::ModelCopyParameters p = parameters();
    p.shared_link = true, p.c2h_gbps = kH2c;
    auto m = model(p);
    const uint64_t bytes = 128ull << 10;
    auto host = m->allocate(2 * bytes, HostMemory::Registered);
    ASSERT_TRUE(host);
    std::vector<double> us;  // the median of 9: a preempted try spoils one
    for (int i = 0; i < 9; ++i) {
        const auto start = Clock::now();
        auto h = m->issue(Direction::H2C, 0, **host, 0, 0, bytes);
        auto c = m->issue(Direction::C2H, 1, **host, bytes, bytes, bytes);
        ASSERT_TRUE(h && c);
        ASSERT_TRUE(m->wait(*h, std::chrono::milliseconds(1000)));
        ASSERT_TRUE(m->wait(*c, std::chrono::milliseconds(1000)));
        us.push_back(seconds_since(start) * 1e6);
    }
    // The C2H copy waits for the H2C copy's bytes: latency + twice the data time.
    expect_within_10(median(us), kLatency + 2 * static_cast<double>(bytes) / kH2c / 1e3,
                     "two directions on one link");
}

TEST_F(ModelRun, LaunchRecoversSingleAndQueuedLatency) {
    auto m = model();
    LaunchSettings s;
    s.samples = 30, s.queued = 40, s.repeats = 3, s.tries = 5;
    auto r = run_launch(*m, s, common, progress, verified);
    ASSERT_TRUE(r) << r.error().message();
    expect_within_10(r->single_p50_us, 100, "single launch");
    expect_within_10(r->queued_per_launch_us.mean, (100 + 39 * 20) / 40.0, "queued launches");
}

TEST_F(ModelRun, CeilingAndLinkProofFromAMeasuredSweep) {
    auto m = model();
    ToolOptions o;
    o.steps = {"ceiling"};
    o.sweep.min_bytes = o.sweep.max_bytes = 1ull << 20, o.sweep.repeats = 2, o.sweep.iterations = 3;
    o.ceiling = {1e9, 0.5, 100};
    std::ostringstream out, err;
    ASSERT_EQ(run_tool(o, *m, "model", out, err, progress), 0) << out.str() << err.str();
    // 1 GB per token over ~0.98 GB/s: about 0.98 tokens/s, twice that with half resident.
    EXPECT_NE(out.str().find("ceiling: 1.000 GB active per token over H2C 0.9"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("tokens/s"), std::string::npos);
    EXPECT_NE(out.str().find("bounds it at 100.0 tokens/s"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("link proof: 0.9"), std::string::npos);
    EXPECT_NE(out.str().find("needs at least Gen1 x4"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("Verdict: PASS ("), std::string::npos);
}
