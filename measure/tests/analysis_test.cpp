#include <gtest/gtest.h>

#include "measure/analysis.hpp"
#include "measure/subcommands.hpp"
#include "measure/tool.hpp"
#include "measure/results.hpp"
#include "measure/text.hpp"

#include <sstream>

using namespace measure;

TEST(LinkProof, Seed003SixPointSevenOnFourLanesNeedsGen4) {
    const LinkProof p = prove_link(6.72, 4, "LnkSta: Speed 16GT/s, Width x4");
    EXPECT_EQ(p.lowest, "Gen4 x4");
    EXPECT_EQ(p.lnksta_under_load, "LnkSta: Speed 16GT/s, Width x4");
    ASSERT_GE(p.by_width.size(), 3u);
    EXPECT_EQ(p.by_width[0], "x1: Gen6 (7.56 GB/s)");
    EXPECT_EQ(p.by_width[2], "x4: Gen4 (7.88 GB/s)");
    EXPECT_NE(p.assumption.find("128b/130b"), std::string::npos);
}

TEST(LinkProof, UsableRatesFollowTheReferenceTable) {
    EXPECT_NEAR(usable_gbps(1, 4), 1.0, 1e-9);
    EXPECT_NEAR(usable_gbps(3, 4), 3.938, 1e-3);
    EXPECT_NEAR(usable_gbps(4, 8), 15.754, 1e-3);
    EXPECT_NEAR(usable_gbps(5, 16), 63.015, 1e-3);
    EXPECT_EQ(usable_gbps(7, 16), 0);
}

TEST(LinkProof, UnknownWidthGivesTheLowestGeneration) {
    EXPECT_EQ(prove_link(6.72, 0, "").lowest, "Gen2 x16");
    EXPECT_EQ(prove_link(0.9, 0, "").lowest, "Gen1 x4");
    EXPECT_EQ(prove_link(200, 0, "").lowest, "");  // more than any link: said, not guessed
}

TEST(Ceiling, Seed003WorkedExample) {
    // A3B at Q4_K_M: 1.70 GiB active per token over 6.72 GB/s: 272 ms/token, 3.7 tok/s, 4.6 with 20% resident.
    CeilingInputs in{1.70 * (1ull << 30), 0.2, 256};
    auto c = compute_ceiling(6.72, in, 0);
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_NEAR(c->link_ms_per_token, 271.6, 0.5);
    EXPECT_NEAR(c->tokens_per_s, 3.68, 0.01);
    EXPECT_NEAR(c->tokens_per_s_resident, 4.60, 0.01);
    EXPECT_NEAR(c->host_ram_tokens_per_s, 140.2, 0.1);
    EXPECT_EQ(c->host_ram_source, "--host_ram_gbps");
}

TEST(Ceiling, NeedsActiveBytesAndARate) {
    auto no_bytes = compute_ceiling(6.72, {}, 10);
    ASSERT_FALSE(no_bytes);
    EXPECT_NE(no_bytes.error().message().find("active weight bytes"), std::string::npos);
    auto no_rate = compute_ceiling(0, {1e9, 0, 0}, 10);
    ASSERT_FALSE(no_rate);
    EXPECT_NE(no_rate.error().message().find("host-to-card"), std::string::npos);
}

namespace {
std::map<std::string, Metric> metrics() {
    return {{"a", {5, 4.5, 5.5}}, {"b", {5, std::nullopt, std::nullopt}}};
}
}  // namespace

TEST(Predictions, PassFailInconclusive) {
    EXPECT_EQ(judge({"a", 4, 6}, metrics()).verdict, "pass");
    EXPECT_EQ(judge({"a", 6, 7}, metrics()).verdict, "fail");
    EXPECT_EQ(judge({"a", 1, 4.4}, metrics()).verdict, "fail");
    const PredictionResult straddle = judge({"a", 5, 7}, metrics());
    EXPECT_EQ(straddle.verdict, "inconclusive");
    EXPECT_EQ(straddle.note, "the interval straddles the range");
    EXPECT_EQ(judge({"b", 4, 6}, metrics()).note, "no 99% interval (fewer than 3 runs)");
    const PredictionResult missing = judge({"c", 4, 6}, metrics());
    EXPECT_EQ(missing.verdict, "inconclusive");
    EXPECT_EQ(missing.note, "not measured in this run");
}

TEST(Predictions, FileFormatErrorsNameTheProblem) {
    auto ok = parse_predictions(R"({"predictions":[{"name":"a","low":1,"high":2}]})", "p.json");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->size(), 1u);
    auto reversed = parse_predictions(R"({"predictions":[{"name":"a","low":3,"high":2}]})", "p.json");
    ASSERT_FALSE(reversed);
    EXPECT_NE(reversed.error().message().find("low is above high"), std::string::npos);
    auto missing = parse_predictions(R"({"predictions":[{"name":"a"}]})", "p.json");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message().find("needs name, low and high"), std::string::npos);
    EXPECT_FALSE(parse_predictions("[1]", "p.json"));
}

TEST(Thresholds, BelowAboveAndMissing) {
    const auto failures = check_thresholds({{"a", 6.0, std::nullopt}, {"a", std::nullopt, 4.0}, {"c", 1.0, std::nullopt},
                                            {"a", 4.0, 6.0}},
                                           metrics());
    ASSERT_EQ(failures.size(), 3u);
    EXPECT_EQ(failures[0], "threshold a: 5.000 is below the minimum 6.000");
    EXPECT_EQ(failures[1], "threshold a: 5.000 is above the maximum 4.000");
    EXPECT_EQ(failures[2], "threshold c: not measured");
}

TEST(SweepSummary, HalfAndNinetyRateSizesAndTheStagedModel) {
    SweepResult s;
    s.memcpy_gbps = 10;
    const double rates[] = {1, 3, 5, 8, 9.5, 10};
    for (int i = 0; i < 6; ++i) {
        s.points.push_back({Direction::H2C, "direct", 4096ull << i, {}, {rates[i], {}, {}, 1}});
        s.points.push_back({Direction::H2C, "staged", 4096ull << i, {}, {rates[i] / 2, {}, {}, 1}});
    }
    summarise_sweep(s);
    EXPECT_DOUBLE_EQ(s.large_copy_gbps.at("H2C/direct"), 10);
    EXPECT_EQ(s.half_rate_bytes.at("H2C/direct"), 4096u << 2);
    EXPECT_EQ(s.ninety_rate_bytes.at("H2C/direct"), 4096u << 4);
    ASSERT_EQ(s.staged_model.size(), 6u);
    EXPECT_DOUBLE_EQ(s.staged_model.back().model_gbps, 5);  // 1 / (1/10 + 1/10)
    EXPECT_DOUBLE_EQ(s.staged_model.back().measured_gbps, 5);
}

// F20: the host reference measured after each run (A/B/A/B); a spread past the bound marks the
// sweep disturbed, in the text and in the JSON, and a quiet one is not marked.
TEST(SweepSummary, AHostReferenceThatSwingsMarksTheSweepDisturbed) {
    SweepResult s;
    s.points.push_back({Direction::H2C, "direct", 4096, {}, {1, {}, {}, 1}});
    s.disturbed_bound = 0.10;
    s.reference_runs_gbps = {10.0, 10.4, 9.9};  // 5% spread
    summarise_sweep(s);
    EXPECT_FALSE(s.disturbed);
    EXPECT_NEAR(s.reference_spread, 0.05, 1e-9);
    std::ostringstream quiet;
    RunResult run;
    run.sweep = s;
    print_text(run, quiet);
    EXPECT_NE(quiet.str().find("host reference after each run (memcpy): 10.000 10.400 9.900 GB/s, spread 5.0%"),
              std::string::npos)
        << quiet.str();
    EXPECT_EQ(quiet.str().find("DISTURBED"), std::string::npos);
    s.reference_runs_gbps = {10.0, 5.0, 10.0};  // a burst in the second run: 50%
    summarise_sweep(s);
    EXPECT_TRUE(s.disturbed);
    run.sweep = s;
    std::ostringstream disturbed;
    print_text(run, disturbed);
    EXPECT_NE(disturbed.str().find("DISTURBED: the host reference spread 50.0% (over 10.0%) between runs: these rates "
                                   "are the disturbed host's, not the device's"),
              std::string::npos)
        << disturbed.str();
    const nlohmann::json j = to_json(s);
    EXPECT_EQ(j.at("disturbed"), true);
    EXPECT_DOUBLE_EQ(j.at("reference_spread").get<double>(), 0.5);
}

TEST(Campaign, StepsSettingsAndThresholds) {
    ToolOptions o;
    const auto c = nlohmann::json::parse(R"({"repeats": 3, "steps": [
        {"subcommand": "sweep", "min_bytes": "64KiB", "max_bytes": 1048576},
        {"subcommand": "latency", "samples": 20}],
        "thresholds": [{"metric": "sweep.large_copy_gbps.H2C/direct", "min": 0.5}]})");
    ASSERT_TRUE(apply_campaign(c, "c.json", o));
    EXPECT_EQ(o.steps, (std::vector<std::string>{"sweep", "latency"}));
    EXPECT_EQ(o.sweep.min_bytes, 65536u);
    EXPECT_EQ(o.sweep.max_bytes, 1048576u);
    EXPECT_EQ(o.sweep.repeats, 3u);
    EXPECT_EQ(o.latency.samples, 20u);
    ASSERT_EQ(o.thresholds.size(), 1u);
    EXPECT_EQ(*o.thresholds[0].min, 0.5);
}

TEST(Campaign, RejectsWhatItDoesNotKnow) {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"steps": []})", "expected {\"steps\""},
        {R"({"steps": [{"subcommand": "warp"}]})", "not a subcommand"},
        {R"({"steps": [{"subcommand": "sweep", "speed": 1}]})", "unknown setting \"speed\""},
        {R"({"steps": [{"subcommand": "sweep"}, {"subcommand": "sweep"}]})", "appears twice"},
        {R"({"steps": [{"subcommand": "sweep", "min_bytes": "lots"}]})", "expected a number of bytes"},
        {R"({"steps": [{"subcommand": "sweep"}], "thresholds": [{"metric": "x"}]})", "a min or a max"},
        {R"({"repeats": 0, "steps": [{"subcommand": "sweep"}]})", "repeats: expected 1 or more"},
    };
    for (const auto& [text, message] : cases) {
        ToolOptions o;
        auto r = apply_campaign(nlohmann::json::parse(text), "c.json", o);
        ASSERT_FALSE(r) << text;
        EXPECT_EQ(r.error().code, EINVAL);
        EXPECT_NE(r.error().message().find(message), std::string::npos) << r.error().message();
    }
}
