// The tool honours an endpoint's limit (its card window, info().card_memory_bytes), on a model
// endpoint shaped like QEMU's edu (a 4095-byte window, one queue holding one copy): sweep sizes
// above the window are left out with a stated reason, or the window's size is measured instead
// when none fits; a latency size above it is clamped and said so; nothing is ever issued beyond
// the window, and a failed check under a clamp still reports no rate.
#include <gtest/gtest.h>

#include <sstream>

#include "subcommand_fixture.hpp"
#include "measure/staged.hpp"
#include "measure/subcommands.hpp"
#include "measure/text.hpp"
#include "measure/tool.hpp"
#include "sim/model_copy_endpoint.hpp"

using namespace measure;

namespace {

constexpr uint64_t kWindow = 4095;  // edu's: QEMU 7.2 aborts on a DMA reaching byte 4096

std::unique_ptr<sim::ModelCopyEndpoint> edu_like(uint64_t corrupt_every = 0) {
    sim::ModelCopyParameters p;
    p.name = "edu-like model";
    p.card_memory_bytes = kWindow;
    p.queues = 1, p.in_flight = 1;
    p.latency_us = 5;
    p.corrupt_every = corrupt_every;
    auto m = sim::ModelCopyEndpoint::create(p);
    EXPECT_TRUE(m) << m.error().message();
    return std::move(*m);
}

bool has(const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& l : lines)
        if (l == text)
            return true;
    return false;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines)
        out += l + "\n";
    return out;
}

struct Limits : SubcommandTest {};

}  // namespace

TEST_F(Limits, SweepLeavesOutSizesAboveTheWindowAndSaysWhy) {
    auto m = edu_like();
    SweepSettings s;
    s.min_bytes = 1024, s.max_bytes = 16384, s.repeats = 1, s.iterations = 2;
    auto r = run_sweep(*m, s, common, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    for (const SweepPoint& p : r->points)
        EXPECT_LE(p.bytes, 2048u) << p.bytes;
    EXPECT_EQ(r->points.size(), 2u * 4);  // 1 and 2 KiB, both directions, direct and staged
    EXPECT_TRUE(has(warnings, "sweep: 4 KiB to 16 KiB left out: larger than the card window of 4095 bytes of "
                              "edu-like model"))
        << joined(warnings);
    EXPECT_EQ(warnings.size(), 1u) << joined(warnings);
    // Every copy of each size of each variant checked, and the staged path's calibration copies
    // (the window's 2 KiB only: 64 KiB does not fit).
    EXPECT_EQ(verified, 2u * 4u * (1024 + 2048) + 2u * kCalibrationCopies * 2048);
    EXPECT_EQ(r->staged.chunk_bytes, 2048u);
}

TEST_F(Limits, ASweepWhoseSizesAllExceedTheWindowMeasuresTheWindowAndSaysSo) {
    auto m = edu_like();
    SweepSettings s;  // the defaults: 4 KiB to 256 MiB
    s.repeats = 1, s.iterations = 2, s.staged = false;
    auto r = run_sweep(*m, s, common, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    ASSERT_EQ(r->points.size(), 2u);
    for (const SweepPoint& p : r->points)
        EXPECT_EQ(p.bytes, kWindow);
    EXPECT_TRUE(has(warnings, "sweep: 4 KiB to 256 MiB larger than the card window of 4095 bytes of edu-like model: "
                              "measured 4095 B copies instead"))
        << joined(warnings);
    EXPECT_EQ(verified, 2 * 2 * kWindow) << "2 directions x 2 copies, each verified";
}

TEST_F(Limits, SizesInsideTheWindowAreMeasuredWithoutWarning) {
    auto m = edu_like();
    SweepSettings s;
    s.min_bytes = 2048, s.max_bytes = 4095, s.repeats = 1, s.iterations = 2, s.staged = false;
    auto r = run_sweep(*m, s, common, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_TRUE(warnings.empty()) << joined(warnings);
    LatencySettings l;
    l.bytes = kWindow, l.samples = 3, l.max_gap_us = 10;
    ASSERT_TRUE(run_latency(*m, l, common, progress, verified, warnings));
    EXPECT_TRUE(warnings.empty()) << joined(warnings);
}

TEST_F(Limits, LatencyAboveTheWindowIsClampedAndSaidSo) {
    auto m = edu_like();
    LatencySettings s;  // 4 KiB: one byte more than the window
    s.samples = 3, s.max_gap_us = 10;
    auto r = run_latency(*m, s, common, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->bytes, kWindow);
    ASSERT_EQ(r->modes.size(), 4u);
    for (const LatencyMode& mode : r->modes)
        EXPECT_EQ(mode.samples_us.size(), 3u);
    EXPECT_TRUE(has(warnings, "latency: 4 KiB copies do not fit the card window of 4095 bytes of edu-like model: "
                              "measured 4095 B copies instead"))
        << joined(warnings);
    EXPECT_EQ(verified, 4 * 3 * kWindow);  // every timed copy: 4 modes x 3 samples
}

TEST_F(Limits, AnEndpointWithoutACardWindowIsAnError) {
    // No endpoint should report a zero window; if one did, nothing may be issued at all.
    struct NoWindow final : CopyEndpoint {
        EndpointInfo m_info{"no window", "", 0, 0, 1, 1, false, false, 0, false, "", ""};
        const EndpointInfo& info() const override { return m_info; }
        pdt::Result<std::unique_ptr<HostBuffer>> allocate(uint64_t, HostMemory) override {
            return pdt::make_error("allocate", "no window", ENOMEM);
        }
        pdt::Result<Ticket> issue(Direction, unsigned, HostBuffer&, uint64_t, uint64_t, uint64_t) override {
            ADD_FAILURE() << "issued";
            return pdt::make_error("issue", "no window", EIO);
        }
        pdt::Result<void> wait(const Ticket&, std::chrono::milliseconds) override { return {}; }
        pdt::Result<void> reset_queues() override { return {}; }
    } ep;
    auto sweep = run_sweep(ep, SweepSettings{}, common, progress, verified, warnings);
    ASSERT_FALSE(sweep);
    EXPECT_EQ(sweep.error().code, EINVAL);
    EXPECT_NE(sweep.error().message().find("the endpoint reports no card window to copy to"), std::string::npos)
        << sweep.error().message();
    auto latency = run_latency(ep, LatencySettings{}, common, progress, verified, warnings);
    ASSERT_FALSE(latency);
    EXPECT_EQ(latency.error().code, EINVAL);
}

TEST(LimitsTool, AClampedRunPassesWithWarningsAndStatesTheBytesVerified) {
    auto m = edu_like();
    ToolOptions o;
    o.steps = {"latency"};
    o.latency.samples = 3, o.latency.max_gap_us = 10;
    std::ostringstream out, err, silent;
    Progress progress{silent, false};
    EXPECT_EQ(run_tool(o, *m, "model", out, err, progress), 0) << out.str() << err.str();
    const std::string text = out.str();
    EXPECT_NE(text.find("latency: 4095 B copies, issue to completion (us)"), std::string::npos) << text;
    EXPECT_NE(text.find("Warning: latency: 4 KiB copies do not fit the card window of 4095 bytes"), std::string::npos)
        << text;
    EXPECT_NE(text.find("Verdict: PASS WITH WARNINGS (49140 bytes verified)"), std::string::npos) << text;
}

TEST(LimitsTool, AFailedCheckUnderAClampReportsNoRate) {
    auto m = edu_like(2);  // every second copy has a byte flipped (either variant first ends on one)
    ToolOptions o;
    o.steps = {"sweep"};
    o.sweep.repeats = 1, o.sweep.iterations = 3, o.sweep.staged = false;
    o.json = true;
    std::ostringstream out, err, silent;
    Progress progress{silent, false};
    EXPECT_EQ(run_tool(o, *m, "model", out, err, progress), 1) << out.str() << err.str();
    const auto j = nlohmann::json::parse(out.str());
    EXPECT_EQ(j["verdict"], "FAIL");
    EXPECT_FALSE(j.contains("sweep"));
    ASSERT_EQ(j["failures"].size(), 1u);
    EXPECT_NE(j["failures"][0].get<std::string>().find("(no rate reported)"), std::string::npos) << j["failures"];
}

TEST(LimitsText, ARateTooSmallForThreeDecimalsKeepsThreeSignificantDigits) {
    // edu moves 2 KiB in ~100 ms: 0.0000205 GB/s must not print as 0.000.
    RunResult r;
    r.endpoint.name = "edu 0000:01:00.0";
    r.verdict = "PASS";
    SweepResult sweep;
    sweep.repeats = 1;
    sweep.points.push_back({Direction::H2C, "direct", 2048, {2.05e-5}, MeanInterval{2.05e-5, std::nullopt, std::nullopt, 1}});
    sweep.points.push_back({Direction::C2H, "direct", 2048, {1.5}, MeanInterval{1.5, std::nullopt, std::nullopt, 1}});
    r.sweep = sweep;
    std::ostringstream out;
    print_text(r, out);
    EXPECT_NE(out.str().find("     2 KiB  H2C  direct  0.0000205 GB/s\n"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("     2 KiB  C2H  direct  1.500 GB/s\n"), std::string::npos) << out.str();
}
