// The pipelined staged path (F20) on the model endpoint: the data arrives exactly for several
// chunks and depths, every lie fails it with the copy named, it beats the serial model
// 1/(1/DMA + 1/memcpy) (the model's DMA runs in wall-clock time beside the host's memcpy), the
// chunk and depth it is given, and the driver's pageable path where the endpoint takes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "measure/staged.hpp"
#include "measure/tool.hpp"
#include "sim/model_copy_endpoint.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace staged_test {

using namespace measure;

namespace {

const std::chrono::milliseconds kTimeout{5000};

std::unique_ptr<sim::ModelCopyEndpoint> model(double gbps = 4, streams::Lie lie = {}, unsigned in_flight = 4,
                                              bool pageable = false) {
    sim::ModelCopyParameters p;
    p.card_memory_bytes = 64ull << 20;
    p.h2c_gbps = p.c2h_gbps = gbps;
    p.latency_us = 2;
    p.in_flight = in_flight;
    p.lie = lie;
    p.pageable_copies = pageable;
    auto m = sim::ModelCopyEndpoint::create(p);
    EXPECT_TRUE(m) << m.error().message();
    return std::move(*m);
}

struct Host {
    std::unique_ptr<HostBuffer> user, bounce, scratch;
};

Host buffers(CopyEndpoint& ep, uint64_t bytes) {
    return {std::move(ep.allocate(bytes, HostMemory::Pageable).value()),
            std::move(ep.allocate(bytes, HostMemory::Registered).value()),
            std::move(ep.allocate(bytes, HostMemory::Registered).value())};
}

// One staged copy of `bytes` checked as the sweep checks it: keyed, the destination poisoned
// (and, C2H, the bounce slots), H2C read back from the card.
pdt::Result<void> checked_staged(CopyEndpoint& ep, Direction d, const StagedPipeline& p, uint64_t bytes, uint64_t key) {
    Host h = buffers(ep, bytes);
    const std::vector<KeyedSlot> slots{{0, 0, key}};
    PDT_CHECK(prepare_batch(ep, d, *h.user, *h.scratch, slots, bytes, kTimeout));
    if (d == Direction::C2H)
        fill_poison(h.bounce->data(), bytes, key);
    PDT_CHECK(staged_copy(ep, d, p, h.user->data(), *h.bounce, 0, 0, bytes, kTimeout));
    return check_batch(ep, d, *h.user, *h.scratch, slots, bytes, kTimeout, CopyName{"staged test", 1, 1});
}

}  // namespace

TEST(StagedCopy, DataArrivesExactlyForEveryChunkAndDepth) {
    const StagedPipeline pipelines[] = {{65536, 1}, {65536, 4}, {196608, 3}, {1u << 20, 2}, {64, 4}};
    const uint64_t sizes[] = {1u << 20, (1u << 20) + 4160, 100, 4096 + 1};
    uint64_t key = 1000;
    for (const StagedPipeline& p : pipelines)
        for (uint64_t bytes : sizes) {
            if (p.chunk_bytes == 64 && bytes > 4097)
                continue;  // 64-byte chunks: the small sizes only
            for (Direction d : {Direction::H2C, Direction::C2H}) {
                auto m = model();
                const auto r = checked_staged(*m, d, p, bytes, ++key);
                EXPECT_TRUE(r) << to_string(d) << " chunk " << p.chunk_bytes << " depth " << p.depth << " bytes "
                               << bytes << ": " << r.error().message();
            }
        }
}

TEST(StagedCopy, CopiesNothingBeyondItsBytes) {
    auto m = model();
    const uint64_t bytes = (1u << 20) + 4160, card_offset = 4096;
    Host h = buffers(*m, bytes + 64);
    fill_pattern(h.user->data(), bytes + 64, 7);
    fill_poison(m->card_memory() + card_offset, bytes + 64, 8);
    ASSERT_TRUE(staged_copy(*m, Direction::H2C, {65536, 4}, h.user->data(), *h.bounce, 0, card_offset, bytes, kTimeout));
    EXPECT_FALSE(find_mismatch(m->card_memory() + card_offset, bytes, 7));
    std::vector<uint8_t> poison(bytes + 64);
    fill_poison(poison.data(), bytes + 64, 8);
    EXPECT_TRUE(std::equal(poison.end() - 64, poison.end(), m->card_memory() + card_offset + bytes)) << "past the end";
}

TEST(StagedCopy, EveryLieFailsItWithTheCopyNamed) {
    const streams::Lie lies[] = {{streams::Lie::Kind::MovesNothing, 0},
                                 {streams::Lie::Kind::StaleAfter, 3},  // C2H: the preload's 2 copies and a chunk move
                                 {streams::Lie::Kind::CompletesEarly, 0}};
    for (const streams::Lie& lie : lies)
        for (Direction d : {Direction::H2C, Direction::C2H}) {
            auto m = model(4, lie);
            const auto r = checked_staged(*m, d, {65536, 2}, 512u << 10, 77);
            ASSERT_FALSE(r) << to_string(d) << " on " << streams::to_string(lie);
            EXPECT_EQ(r.error().code, EIO) << r.error().message();
            EXPECT_EQ(r.error().operation, std::string(to_string(d)) + " data check");
            EXPECT_EQ(r.error().object, "staged test copy 1 of 1");
            EXPECT_NE(r.error().hint.find("failed at byte "), std::string::npos) << r.error().message();
        }
}

// The staged path's host copies shared by threads: exact at every size, cut or not. 8 threads
// over 1 MiB + 7 bytes: a share rounded down to 64 bytes left the last 7 bytes uncopied (fixed).
TEST(ParallelMemcpy, CopiesExactlyWithAnyThreadCountAndSize) {
    for (unsigned threads : {1u, 2u, 3u, 4u, 8u}) {
        measure::ParallelMemcpy copier(threads);
        EXPECT_EQ(copier.threads(), threads);
        for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{4095}, uint64_t{256} << 10, (uint64_t{1} << 20) + 7,
                               (uint64_t{3} << 20) + 65}) {
            std::vector<uint8_t> from(bytes + 64), to(bytes + 64, 0xee);
            for (size_t i = 0; i < from.size(); ++i)
                from[i] = static_cast<uint8_t>(i * 131 + threads);
            copier.copy(to.data(), from.data(), bytes);
            ASSERT_TRUE(std::equal(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(bytes), to.begin()))
                << threads << " threads, " << bytes << " bytes";
            ASSERT_TRUE(std::all_of(to.begin() + static_cast<std::ptrdiff_t>(bytes), to.end(),
                                    [](uint8_t b) { return b == 0xee; }))
                << "wrote past the end: " << threads << " threads, " << bytes << " bytes";
        }
    }
}

TEST(StagedCopy, DataArrivesExactlyThroughThreadedHostCopies) {
    measure::ParallelMemcpy copier(3);
    auto ep = model();
    const StagedPipeline p{uint64_t{512} << 10, 3, &copier};
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        auto done = checked_staged(*ep, d, p, (uint64_t{2} << 20) + 192, 0x5150 + static_cast<uint64_t>(d));
        EXPECT_TRUE(done.ok()) << done.error().message();
    }
}

TEST(StagedCopy, ChunkAndDepthMustBeSet) {
    auto m = model();
    Host h = buffers(*m, 4096);
    const auto r = staged_copy(*m, Direction::H2C, {0, 4}, h.user->data(), *h.bounce, 0, 0, 4096, kTimeout);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, EINVAL);
}

namespace {

struct Rates {
    double direct = 0, pipelined = 0, serial_staged = 0, memcpy = 0;
    double serial_model() const { return 1.0 / (1.0 / direct + 1.0 / memcpy); }
};

// The median of three of each, interleaved: direct, pipelined (4 MiB chunks, depth 4: 8 ms of
// the model's link queued ahead, more than a busy machine's scheduler takes the thread), and the
// control, one chunk (memcpy then DMA); memcpy beside them.
Rates measure_rates(CopyEndpoint& ep, Host& h, Direction d, uint64_t bytes) {
    std::vector<double> direct, pipelined, serial_staged, host;
    const auto rate = [&](auto&& run) {
        const auto start = Clock::now();
        EXPECT_TRUE(run());
        return static_cast<double>(bytes) / seconds_since(start) / 1e9;
    };
    for (int i = 0; i < 3; ++i) {
        direct.push_back(rate([&] { return copy(ep, d, 0, *h.bounce, 0, 0, bytes, kTimeout); }));
        pipelined.push_back(rate(
            [&] { return staged_copy(ep, d, {4u << 20, 4}, h.user->data(), *h.bounce, 0, 0, bytes, kTimeout); }));
        serial_staged.push_back(
            rate([&] { return staged_copy(ep, d, {bytes, 1}, h.user->data(), *h.bounce, 0, 0, bytes, kTimeout); }));
        host.push_back(measure_memcpy_gbps(h.scratch->data(), h.user->data(), bytes, 1));
    }
    return {median(direct), median(pipelined), median(serial_staged), median(host)};
}

}  // namespace

// The model's DMA is paced in wall-clock time after issue() returns, so the host's memcpy of
// the next chunk overlaps it: the pipeline must beat the serial model and the serial control.
// Timing on a shared machine: up to three attempts.
TEST(StagedCopy, ThePipelineBeatsTheSerialModel) {
    auto m = model(2.0);
    const uint64_t bytes = 64u << 20;
    Host h = buffers(*m, bytes);
    fill_pattern(h.user->data(), bytes, 5);
    fill_pattern(h.bounce->data(), bytes, 6);  // pages touched
    fill_pattern(h.scratch->data(), bytes, 7);
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        Rates r;
        for (int attempt = 0; attempt < 3; ++attempt) {
            r = measure_rates(*m, h, d, bytes);
            if (r.pipelined > r.serial_model() && r.pipelined > r.serial_staged)
                break;
        }
        EXPECT_GT(r.pipelined, r.serial_model()) << to_string(d) << ": direct " << r.direct << ", memcpy " << r.memcpy;
        EXPECT_GT(r.pipelined, r.serial_staged) << to_string(d);
    }
}

TEST(StagedPlan, OptionsGiveTheChunkAndTheEndpointBoundsTheDepth) {
    auto m = model(4, {}, 2);
    Host h = buffers(*m, 1u << 20);
    SweepSettings s;
    s.staged_chunk = 128u << 10, s.staged_depth = 8;
    uint64_t key = 0, verified = 0;
    const auto plan = plan_staged(*m, s, *h.bounce, *h.scratch, CommonSettings{}, key, verified);
    ASSERT_TRUE(plan) << plan.error().message();
    EXPECT_EQ(plan->chunk_bytes, 128u << 10);
    EXPECT_EQ(plan->depth, 2u);
    EXPECT_EQ(plan->why, "--staged_chunk 128 KiB; depth 2 (--staged_depth 8, within the endpoint's 2 copies in flight)");
    EXPECT_TRUE(plan->calibration.empty());
    EXPECT_EQ(verified, 0u) << "no calibration";
}

TEST(StagedPlan, AChunkAboveTheLargestCopyIsClamped) {
    auto m = model();
    Host h = buffers(*m, 100000);
    SweepSettings s;
    s.staged_chunk = 1u << 20;
    uint64_t key = 0, verified = 0;
    const auto plan = plan_staged(*m, s, *h.bounce, *h.scratch, CommonSettings{}, key, verified);
    ASSERT_TRUE(plan) << plan.error().message();
    EXPECT_EQ(plan->chunk_bytes, 100000u / 64 * 64);
    EXPECT_NE(plan->why.find("clamped to"), std::string::npos) << plan->why;
}

TEST(StagedPlan, TheCurveGivesTheChunkEveryCopyChecked) {
    auto m = model();
    Host h = buffers(*m, 1u << 20);
    uint64_t key = 0, verified = 0;
    const auto plan = plan_staged(*m, SweepSettings{}, *h.bounce, *h.scratch, CommonSettings{}, key, verified);
    ASSERT_TRUE(plan) << plan.error().message();
    ASSERT_EQ(plan->calibration.size(), 2u * 5u) << "64 KiB..1 MiB, both directions";
    EXPECT_EQ(verified, 2u * kCalibrationCopies * ((64u + 128u + 256u + 512u + 1024u) << 10));
    EXPECT_GE(plan->chunk_bytes, 64u << 10);
    EXPECT_LE(plan->chunk_bytes, 1u << 20);
    EXPECT_EQ(plan->depth, 4u);
    EXPECT_EQ(plan->why.rfind("direct reaches 90% of its best rate at " + format_bytes(plan->chunk_bytes), 0), 0u)
        << plan->why;
    const auto bad = plan_staged(*model(4, {streams::Lie::Kind::MovesNothing, 0}), SweepSettings{}, *h.bounce,
                                 *h.scratch, CommonSettings{}, key, verified);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().object.find("sweep staged calibration H2C 64 KiB copy 1 of 3"), std::string::npos)
        << bad.error().message();
}

TEST(StagedPlan, TheKneeIsTheSmallestSizeAtTheFraction) {
    const std::vector<CalibrationPoint> curve = {{Direction::H2C, 1, 1.0}, {Direction::H2C, 2, 8.5},
                                                 {Direction::H2C, 4, 9.5}, {Direction::H2C, 8, 10.0}};
    EXPECT_EQ(knee_bytes(curve, 0.9), 4u);
    EXPECT_EQ(knee_bytes(curve, 0.5), 2u);
    EXPECT_EQ(knee_bytes({}, 0.9), 0u);
}

namespace {

nlohmann::json sweep_json(CopyEndpoint& ep, std::string& text) {
    ToolOptions o;
    o.steps = {"sweep"};
    o.sweep.min_bytes = 65536, o.sweep.max_bytes = 1u << 20, o.sweep.repeats = 1, o.sweep.iterations = 3;
    std::ostringstream out, err, silent;
    Progress progress(silent, false);
    EXPECT_EQ(run_tool(o, ep, "model", out, err, progress), 0) << out.str() << err.str();
    text = out.str();
    o.json = true;
    std::ostringstream jout;
    EXPECT_EQ(run_tool(o, ep, "model", jout, err, progress), 0) << err.str();
    return nlohmann::json::parse(jout.str());
}

}  // namespace

TEST(StagedSweep, TheDriversPageableCopyBesideTheStagedPath) {
    auto m = model(2, {}, 4, true);
    std::string text;
    const auto j = sweep_json(*m, text);
    EXPECT_NE(text.find("staged pipeline: chunk "), std::string::npos) << text;
    EXPECT_NE(text.find("H2C staged / driver pageable 1 MiB: "), std::string::npos) << text;
    EXPECT_NE(text.find("C2H staged / driver pageable 1 MiB: "), std::string::npos) << text;
    EXPECT_NE(text.find("the serial model"), std::string::npos) << text;
    unsigned pageable = 0;
    for (const auto& p : j["sweep"]["points"])
        if (p["path"] == "pageable") {
            ++pageable;
            EXPECT_EQ(p["bytes"], 1u << 20) << "the largest size only";
        }
    EXPECT_EQ(pageable, 2u);
    EXPECT_FALSE(j["sweep"].contains("pageable_skipped"));
    EXPECT_EQ(j["sweep"]["staged_pipeline"]["depth"], 4);
    EXPECT_EQ(j["sweep"]["staged_pipeline"]["calibration"].size(), 2u * 5u);
}

TEST(StagedSweep, AnEndpointThatRefusesPageableBuffersSaysSo) {
    auto m = model(2);
    Host h = buffers(*m, 4096);
    const auto refused = m->issue(Direction::H2C, 0, *h.user, 0, 0, 4096);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().hint.find("pageable"), std::string::npos) << refused.error().message();
    std::string text;
    const auto j = sweep_json(*m, text);
    EXPECT_NE(text.find("driver pageable copy: not measured: sim model 0 copies only registered buffers"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("staged / driver pageable"), std::string::npos) << text;
    EXPECT_TRUE(j["sweep"].contains("pageable_skipped"));
}

}  // namespace staged_test
