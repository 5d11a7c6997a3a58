// The report's reading, merge, statistics, plot scripts and HTML, on the sample result files
// (fixtures/: two cards in two hosts, five runs each, and a failed run of a third card).
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "measure/report.hpp"

namespace report = measure::report;

namespace {

const std::string kFixtures = PDT_REPORT_FIXTURES;

std::vector<std::string> two_cards() {
    std::vector<std::string> files;
    for (const char* card : {"xdma", "h200"})
        for (int run = 1; run <= 5; ++run)
            files.push_back(kFixtures + "/" + card + "_run" + std::to_string(run) + ".json");
    return files;
}

report::Report load(const std::vector<std::string>& files) {
    auto runs = report::load_runs(files);
    EXPECT_TRUE(runs.ok()) << (runs.ok() ? "" : runs.error().message());
    return report::merge(runs.ok() ? std::move(*runs) : std::vector<report::Run>{});
}

// A minimal valid result file, for the malformed-input cases to break one field of.
std::string minimal(const std::string& extra = "") {
    return R"({"schema":"pcie_link_measure/1","host":{"hostname":"h"},"endpoint":{"adapter":"model","name":"m"},)"
           R"("verdict":"PASS")" + extra + "}";
}

std::string error_of(std::string_view text) {
    auto run = report::parse_run(text, "r.json");
    return run.ok() ? "(parsed)" : run.error().message();
}

// `html` holds each of `parts`.
void expect_parts(const std::string& html, std::initializer_list<const char*> parts) {
    for (const char* part : parts)
        EXPECT_NE(html.find(part), std::string::npos) << part;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

// The <tr> of one card in the cards table.
std::string card_row(const std::string& html, const std::string& tag) {
    const size_t start = html.find("<tr class=\"card\" data-card=\"" + tag + "\"");
    return start == std::string::npos ? "" : html.substr(start, html.find("</tr>", start) - start);
}

}  // namespace

TEST(ReportStats, MeanWithStudentT99Interval) {
    const report::Interval i = report::mean_ci99({1, 2, 3, 4, 5});
    EXPECT_DOUBLE_EQ(i.mean, 3.0);
    // s = sqrt(2.5), t(0.995, 4) = 4.604: half-width 4.604 * 1.5811 / 2.2361 = 3.2555; the
    // lower bound 3 - 3.2555 is clamped at 0.
    EXPECT_NEAR(i.high - i.mean, 3.2555, 1e-3);
    EXPECT_EQ(i.low, 0.0);
    const report::Interval far = report::mean_ci99({11, 12, 13, 14, 15});
    EXPECT_NEAR(far.mean - far.low, 3.2555, 1e-3);
    EXPECT_TRUE(i.has_interval);
    const report::Interval one = report::mean_ci99({7.5});
    EXPECT_FALSE(one.has_interval);
    EXPECT_EQ(one.low, 7.5);
    EXPECT_EQ(report::mean_ci99({}).n, 0u);
    // Two runs give no interval (t(1) = 63.657: "-35.064-56.997 GB/s"), the mean and the count.
    const report::Interval two = report::mean_ci99({10.0, 12.0});
    EXPECT_FALSE(two.has_interval);
    EXPECT_EQ(two.n, 2u);
    EXPECT_EQ(report::interval_text(two), "11.00 (2 runs, no interval)");
    EXPECT_EQ(report::interval_text(one), "7.50 (1 run, no interval)");
    // The lower bound never goes below 0: 1.0 -/+ 8.93 shows as [0.00, 9.93].
    const report::Interval wide = report::mean_ci99({0.1, 0.1, 2.8});
    EXPECT_TRUE(wide.has_interval);
    EXPECT_EQ(wide.low, 0.0);
    EXPECT_EQ(report::interval_text(wide), "1.00 [0.00, 9.93]");
    EXPECT_DOUBLE_EQ(report::t_quantile_995(1), 63.657);
    EXPECT_DOUBLE_EQ(report::t_quantile_995(45), 2.704);
    EXPECT_DOUBLE_EQ(report::t_quantile_995(100000), 2.576);
}

TEST(ReportStats, PercentileInterpolatesBetweenRanks) {
    const std::vector<double> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    EXPECT_DOUBLE_EQ(report::percentile(sorted, 0.5), 6);
    EXPECT_DOUBLE_EQ(report::percentile(sorted, 0.99), 10.9);
    EXPECT_DOUBLE_EQ(report::percentile(sorted, 1.0), 11);
    EXPECT_TRUE(std::isnan(report::percentile({}, 0.5)));
}

TEST(ReportText, HtmlEscapesEveryMarkupCharacter) {
    EXPECT_EQ(report::html_escape(R"(<script>a&b "c" 'd'</script>)"),
              "&lt;script&gt;a&amp;b &quot;c&quot; &#39;d&#39;&lt;/script&gt;");
    EXPECT_EQ(report::gnuplot_quote("it's\nC1"), "'it''s?C1'");
    EXPECT_EQ(report::format_bytes(4096), "4 KiB");
    EXPECT_EQ(report::format_bytes(256u << 20), "256 MiB");
    EXPECT_EQ(report::format_bytes(257), "257 B");
}

TEST(ReportMerge, TwoCardsTwoHostsFiveRunsEach) {
    const report::Report r = load(two_cards());
    ASSERT_EQ(r.runs.size(), 10u);
    ASSERT_EQ(r.cards.size(), 2u);
    const report::Card& xdma = r.cards[0];
    EXPECT_EQ(xdma.tag, "C1");
    EXPECT_EQ(xdma.hostname, "labhost-a");
    EXPECT_EQ(xdma.runs.size(), 5u);
    EXPECT_EQ(xdma.link, "8GT/s x8");
    EXPECT_EQ(xdma.verdict, "PASS");
    EXPECT_EQ(r.cards[1].hostname, "labhost-b");
    // Five files of three repeats each: 15 run medians pooled at 256 MiB; the fixtures set 6.6 GB/s.
    const report::Interval h2c = xdma.large_copy.at("H2C/direct");
    EXPECT_EQ(h2c.n, 15u);
    EXPECT_NEAR(h2c.mean, 6.6, 0.1);
    EXPECT_LT(h2c.low, h2c.mean);
    EXPECT_GT(h2c.high, h2c.mean);
    // size / (11 us + size / 6.6 GB/s) reaches half the rate at 72.6 kB and 90% at 653 kB
    EXPECT_EQ(xdma.reach.at("H2C/direct"), std::make_pair(uint64_t{128} << 10, uint64_t{1} << 20));
    EXPECT_EQ(xdma.curves.size(), 4u);         // two directions x two paths
    EXPECT_EQ(xdma.curves[0].points.size(), 17u);  // 4 KiB .. 256 MiB
    ASSERT_EQ(xdma.latency.size(), 4u);  // H2C and C2H, back to back and after an idle gap
    EXPECT_EQ(xdma.latency[0].direction, "C2H");
    EXPECT_EQ(xdma.latency[0].mode, "back_to_back");
    EXPECT_EQ(xdma.latency[0].sorted_us.size(), 1000u);  // 200 samples x 5 runs
    uint64_t verified = 0;
    for (size_t i : xdma.runs)
        verified += r.runs[i].bytes_verified;
    EXPECT_EQ(xdma.bytes_verified, verified);
    EXPECT_GT(verified, 0u);
}

TEST(ReportHtml, OneLinePerCardWithRatesAndLatency) {
    const report::Report r = load(two_cards());
    const std::string html = report::render_html(r, {}, "t");
    EXPECT_EQ(count(html, "<tr class=\"card\""), 2u);
    const std::string row = card_row(html, "C2");
    EXPECT_NE(row.find("NVIDIA H200"), std::string::npos);
    EXPECT_NE(row.find("32GT/s x16"), std::string::npos);
    EXPECT_EQ(count(row, "class=\"num rate\""), 4u);  // H2C and C2H, direct and staged
    EXPECT_TRUE(std::regex_search(row, std::regex(R"(>5[0-9]\.[0-9]{2} \[5[0-9]\.[0-9]{2}, 5[0-9]\.[0-9]{2}\]<)")))
        << row;
    EXPECT_EQ(count(html, "<tr class=\"run\">"), 10u);
    expect_parts(html, {
        "id=\"predictions\"",
        "iommu=pt",  // the context: kernel command line
        "<td>C2</td><td>H2C/direct</td><td class=\"num\">512 KiB</td><td class=\"num\">4 MiB</td>",
        "host memcpy 21.00 GB/s",
        "<th>H2C idle_gap latency<br>p50 / p99 us</th>",
        // A prediction whose figure was not measured (null): no number made up for it.
        "<td>latency.H2C.idle_gap.p99_us</td><td class=\"num\">1.000 .. 100.000</td>"
        "<td class=\"num\">- .. -</td><td><span class=\"inconclusive\">inconclusive</span>",
    });
}

// F20: a run whose sweep was marked disturbed says so in the runs table; a file from before
// F20 (no "disturbed") reads as not disturbed.
TEST(ReportHtml, ADisturbedSweepIsMarkedInItsRun) {
    auto runs = report::load_runs(two_cards());
    ASSERT_TRUE(runs.ok());
    EXPECT_FALSE((*runs)[0].disturbed);
    auto disturbed = report::parse_run(
        minimal(R"(,"sweep":{"memcpy_gbps":10,"points":[],"reference_spread":0.42,"disturbed":true})"), "d.json");
    ASSERT_TRUE(disturbed.ok()) << disturbed.error().message();
    EXPECT_TRUE(disturbed->disturbed);
    runs->push_back(*disturbed);
    const std::string html = report::render_html(report::merge(std::move(*runs)), {}, "t");
    EXPECT_EQ(count(html, "<b>DISTURBED</b>"), 1u);
    EXPECT_NE(html.find("<b>DISTURBED</b>: the host reference spread 42.0% between runs: its rates are not the device's"),
              std::string::npos);
}

TEST(ReportHtml, FailedRunShowsFailAndNoRate) {
    std::vector<std::string> files = two_cards();
    files.push_back(kFixtures + "/failed/model_failed.json");
    const report::Report r = load(files);
    ASSERT_EQ(r.cards.size(), 3u);
    const report::Card& failed = r.cards[2];
    EXPECT_EQ(failed.verdict, "FAIL");
    EXPECT_TRUE(failed.large_copy.empty());
    EXPECT_TRUE(failed.curves.empty());
    EXPECT_TRUE(failed.latency.empty());
    const std::string html = report::render_html(r, {}, "t");
    const std::string row = card_row(html, "C3");
    EXPECT_NE(row.find(">FAIL<"), std::string::npos) << row;
    EXPECT_NE(row.find("no rate: the data check failed in 1 of 1 runs"), std::string::npos) << row;
    EXPECT_EQ(row.find("class=\"num rate\""), std::string::npos) << row;
    EXPECT_NE(html.find("byte 17 read back 0x00, wrote 0x5a"), std::string::npos);  // its failure, as a warning
    EXPECT_NE(html.find("no rate: the run FAILed"), std::string::npos);  // its prediction: no measured value
    std::vector<std::string> titles;
    const std::string script = report::bandwidth_script(r, "H2C", titles);
    EXPECT_EQ(script.find("C3"), std::string::npos);
}

TEST(ReportHtml, OneFailedRunOfFiveHidesTheCardsRates) {
    auto runs = report::load_runs(two_cards());
    ASSERT_TRUE(runs.ok());
    (*runs)[2].verdict = "FAIL";
    const report::Report r = report::merge(std::move(*runs));
    EXPECT_EQ(r.cards[0].verdict, "FAIL");
    EXPECT_EQ(r.cards[0].failed_runs, 1u);
    EXPECT_TRUE(r.cards[0].large_copy.empty());
    EXPECT_EQ(r.cards[1].verdict, "PASS");
    EXPECT_FALSE(r.cards[1].large_copy.empty());
}

TEST(ReportHtml, EscapesTextFromResultFiles) {
    auto run = report::parse_run(
        R"({"schema":"pcie_link_measure/1","command":"x --name '<b>'","host":{"hostname":"h<script>alert(1)</script>",)"
        R"("kernel_cmdline":"a=\"1\" & b"},"endpoint":{"adapter":"model","name":"<img src=x onerror=alert(2)>"},)"
        R"("verdict":"PASS","warnings":["<i>w</i>"]})",
        "<dir>/r.json");
    ASSERT_TRUE(run.ok()) << run.error().message();
    const std::string html = report::render_html(report::merge({*run}), {}, "title <&>");
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_EQ(html.find("<i>"), std::string::npos);
    EXPECT_EQ(html.find("<b>"), std::string::npos);
    expect_parts(html, {
        "h&lt;script&gt;alert(1)&lt;/script&gt;",
        "&lt;img src=x onerror=alert(2)&gt;",
        "a=&quot;1&quot; &amp; b",
        "<title>title &lt;&amp;&gt;</title>",
        "&lt;dir&gt;/r.json: &lt;i&gt;w&lt;/i&gt;",
    });
}

TEST(ReportInput, MalformedFilesNameTheField) {
    EXPECT_TRUE(report::parse_run(minimal(), "r.json").ok()) << error_of(minimal());
    EXPECT_EQ(error_of("{\"schema\": "),
              "read result file r.json: Invalid argument (not valid JSON: a result file of pcie_link_measure is expected)");
    EXPECT_EQ(error_of("[1, 2]"),
              "read result file r.json: Invalid argument (expected a JSON object, a result file of pcie_link_measure)");
    EXPECT_EQ(error_of(R"({"schema":"other/1"})"),
              "read result file r.json: Invalid argument (schema \"other/1\" is not pcie_link_measure/N)");
    EXPECT_EQ(error_of(R"({"host":{}})"), "read result file r.json: Invalid argument (field schema: missing)");
    EXPECT_EQ(error_of(R"({"schema":"pcie_link_measure/1","host":{"hostname":"h"},"endpoint":{"adapter":"a"},"verdict":"PASS"})"),
              "read result file r.json: Invalid argument (field endpoint.name: missing)");
    EXPECT_EQ(error_of(minimal(R"(,"sweep":{"points":[{"direction":"H2C","path":"direct","bytes":"4096"}]})")),
              "read result file r.json: Invalid argument (field sweep.points[0].bytes: expected a whole number >= 0)");
    EXPECT_EQ(error_of(minimal(R"(,"sweep":{"points":[{"direction":"up","path":"direct","bytes":1}]})")),
              "read result file r.json: Invalid argument (field sweep.points[0].direction: expected H2C or C2H, not \"up\")");
    EXPECT_EQ(error_of(minimal(R"(,"latency":{"modes":[{"mode":"idle_gap","samples_us":[1,"2"]}]})")),
              "read result file r.json: Invalid argument (field latency.modes[0].samples_us[1]: expected a number)");
    EXPECT_EQ(error_of(minimal(R"(,"warnings":"none")")),
              "read result file r.json: Invalid argument (field warnings: expected an array)");
    EXPECT_EQ(error_of(R"({"schema":"pcie_link_measure/1","host":{"hostname":"h"},"endpoint":{"adapter":"a","name":"n"},"verdict":"OK"})"),
              "read result file r.json: Invalid argument (field verdict: expected PASS, PASS WITH WARNINGS, FAIL or SKIPPED, not \"OK\")");
}

TEST(ReportInput, MissingFileAndEmptyDirectory) {
    auto missing = report::load_runs({"/nonexistent/result.json"});
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ENOENT);
    EXPECT_NE(missing.error().message().find("read result file /nonexistent/result.json: No such file or directory"),
              std::string::npos);
    const std::filesystem::path empty = std::filesystem::path(testing::TempDir()) / "report_empty_dir";
    std::filesystem::create_directories(empty);
    auto none = report::load_runs({empty.string()});
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message().find("it holds no *.json result file"), std::string::npos);
    auto dir = report::load_runs({kFixtures + "/failed"});
    ASSERT_TRUE(dir.ok());
    EXPECT_EQ(dir->size(), 1u);
}

TEST(ReportPlots, ScriptsHaveACurvePerCardDirectionAndPath) {
    const report::Report r = load(two_cards());
    std::vector<std::string> titles;
    const std::string script = report::bandwidth_script(r, "C2H", titles);
    EXPECT_EQ(titles, (std::vector<std::string>{"C1 direct", "C1 staged", "C1 staged model", "C2 direct",
                                                "C2 staged", "C2 staged model"}));
    EXPECT_NE(script.find("set terminal svg"), std::string::npos);
    EXPECT_NE(script.find("set logscale x 2"), std::string::npos);
    EXPECT_EQ(count(script, "with yerrorlines"), 4u);
    EXPECT_EQ(count(script, "dt 2"), 2u);  // the staged model, dashed
    EXPECT_NE(script.find("'256 MiB' 268435456"), std::string::npos);
    titles.clear();
    const std::string cdf = report::latency_script(r, "idle_gap", titles);
    EXPECT_EQ(titles, (std::vector<std::string>{"C1 C2H (1000 samples)", "C1 H2C (1000 samples)",
                                                "C2 C2H (1000 samples)", "C2 H2C (1000 samples)"}));
    EXPECT_LE(count(cdf, "\n"), 4u * 410 + 40);  // at most 400 points a curve
}

TEST(ReportPlots, SvgPrologStrippedAndPlotterErrorsPassedOn) {
    const report::Report r = load(two_cards());
    size_t calls = 0;
    auto plots = report::make_plots(r, [&](const std::string&) -> pdt::Result<std::string> {
        ++calls;
        return std::string("<?xml version=\"1.0\"?>\n<svg id=\"s\"></svg>\n");
    });
    ASSERT_TRUE(plots.ok());
    EXPECT_EQ(calls, 6u);  // bandwidth H2C and C2H, latency twice, access of C1 and C2 (H2C only)
    ASSERT_EQ(plots->size(), 6u);
    EXPECT_EQ((*plots)[4].id, "access-C1-H2C");
    EXPECT_EQ((*plots)[5].id, "access-C2-H2C");
    EXPECT_EQ((*plots)[0].id, "bandwidth-H2C");
    EXPECT_EQ((*plots)[0].svg.rfind("<svg", 0), 0u);
    auto no_svg = report::make_plots(r, [](const std::string&) -> pdt::Result<std::string> { return std::string("x"); });
    ASSERT_FALSE(no_svg.ok());
    EXPECT_NE(no_svg.error().message().find("gnuplot printed no <svg> element"), std::string::npos);
    auto missing = report::make_plots(r, report::gnuplot_plotter("/nonexistent/gnuplot"));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message().find("install the Debian package gnuplot-nox"), std::string::npos);
}

TEST(ReportPlots, GnuplotMakesAnSvgWithTheCurves) {
    const report::Report r = load(two_cards());
    auto plots = report::make_plots(r, report::gnuplot_plotter());
    ASSERT_TRUE(plots.ok()) << plots.error().message();
    ASSERT_EQ(plots->size(), 6u);
    for (const report::Plot& plot : *plots) {
        EXPECT_EQ(plot.svg.rfind("<svg", 0), 0u) << plot.id;
        EXPECT_EQ(count(plot.svg, "id=\"gnuplot_plot_"), plot.curve_titles.size()) << plot.id;
        for (const std::string& title : plot.curve_titles)
            EXPECT_NE(plot.svg.find("<text>" + title + "</text>"), std::string::npos) << plot.id << ": " << title;
    }
    auto broken = report::gnuplot_plotter()("set terminal svg\nplot $nosuchblock using 1:2\n");
    ASSERT_FALSE(broken.ok());
    EXPECT_NE(broken.error().message().find("gnuplot failed: "), std::string::npos) << broken.error().message();
}

TEST(ReportMerge, SingleMedianSkippedRunsAndLinkWarnings) {
    const std::string point = R"({"direction":"H2C","path":"direct","bytes":1048576,"run_medians_gbps":[1.5,null]})";
    auto one = report::parse_run(minimal(R"(,"sweep":{"points":[)" + point + R"(]},)"
                                         R"("link":{"under_load":{"speed":"8GT/s","width":4},"changed":true})"),
                                 "one.json");
    ASSERT_TRUE(one.ok()) << one.error().message();
    auto other = report::parse_run(minimal(R"(,"link":{"under_load":{"speed":"2.5GT/s","width":4}})"), "other.json");
    ASSERT_TRUE(other.ok()) << other.error().message();
    auto skipped = report::parse_run(
        R"({"schema":"pcie_link_measure/1","host":{"hostname":"h2"},"endpoint":{"adapter":"a","name":"n"},)"
        R"("verdict":"SKIPPED"})",
        "skipped.json");
    ASSERT_TRUE(skipped.ok());
    const report::Report r = report::merge({*one, *other, *skipped});
    ASSERT_EQ(r.cards.size(), 2u);
    EXPECT_EQ(r.cards[0].link, "varies");
    EXPECT_EQ(r.cards[0].verdict, "PASS");
    EXPECT_EQ(r.cards[1].verdict, "SKIPPED");
    const report::Interval rate = r.cards[0].large_copy.at("H2C/direct");
    EXPECT_EQ(rate.n, 1u);  // the null median is no sample
    EXPECT_FALSE(rate.has_interval);
    const std::string html = report::render_html(r, {}, "t");
    expect_parts(html, {"1.50 (1 run, no interval)", "one.json: the link changed during the run",
                        "C1 m on h: the link differs between runs", "8GT/s x4"});
}

TEST(ReportSections, AccessInflightAndBidirArePooledPerCard) {
    const report::Report r = load(two_cards());
    ASSERT_EQ(r.cards.size(), 2u);
    for (const report::Card& card : r.cards) {
        ASSERT_EQ(card.access.size(), 8u) << card.tag;  // 4 windows x 2 patterns, H2C
        for (const report::AccessCurve& curve : card.access) {
            EXPECT_EQ(curve.direction, "H2C");
            EXPECT_EQ(curve.points.size(), 18u);  // 63 B .. 2049 B
            EXPECT_EQ(curve.points.front().first, 63u);
        }
        ASSERT_EQ(card.inflight.size(), 8u);  // 2 directions x 4 sizes, H2C first
        EXPECT_EQ(card.inflight.front().direction, "H2C");
        EXPECT_EQ(card.inflight.back().direction, "C2H");
        EXPECT_EQ(card.inflight.back().bytes, 64ull << 20);
        EXPECT_EQ(card.inflight[0].one_at_a_time_gbps.n, 5u);
        EXPECT_TRUE(card.inflight[0].two_in_one_queue_ratio.has_interval);
        ASSERT_EQ(card.bidir.size(), 1u);
        EXPECT_EQ(card.bidir[0].bytes, 64ull << 20);
        const double both = card.bidir[0].h2c_both.mean + card.bidir[0].c2h_both.mean;
        EXPECT_NEAR(card.bidir[0].sum_both.mean, both, 0.03 * both);  // each drawn with 1% noise
    }
    // The xdma card: 6.6 + 6.9 GB/s alone, 90% of each both at once.
    EXPECT_NEAR(r.cards[0].bidir[0].sum_both.mean, 0.9 * 13.5, 0.2);
    std::vector<std::string> titles;
    const std::string script = report::access_script(r.cards[0], "H2C", titles);
    EXPECT_EQ(titles.size(), 8u);
    EXPECT_EQ(titles.front(), "4 KiB random");
    EXPECT_EQ(titles.back(), "64 MiB sequential");
    EXPECT_NE(script.find("'2 KiB' 2048"), std::string::npos) << script;
    EXPECT_EQ(count(script, "dt 2"), 4u);  // random dashed
    titles.clear();
    EXPECT_EQ(report::access_script(r.cards[0], "C2H", titles), "");
}

TEST(ReportSections, TablesShowEveryPassingCardAndNoFailedOne) {
    std::vector<std::string> files = two_cards();
    files.push_back(kFixtures + "/failed/model_failed.json");  // has the sections: they must not show
    const report::Report r = load(files);
    ASSERT_EQ(r.cards.size(), 3u);
    EXPECT_TRUE(r.cards[2].access.empty() && r.cards[2].inflight.empty() && r.cards[2].bidir.empty());
    const std::string inflight = report::inflight_table(r), bidir = report::bidir_table(r);
    EXPECT_EQ(count(inflight, "<tr class=\"inflight\" data-card=\"C1\""), 8u);
    EXPECT_EQ(count(inflight, "<tr class=\"inflight\" data-card=\"C2\""), 8u);
    EXPECT_EQ(count(bidir, "<tr class=\"bidir\" data-card=\"C1\""), 1u);
    EXPECT_EQ(inflight.find("C3"), std::string::npos);
    EXPECT_EQ(bidir.find("C3"), std::string::npos);
    const std::string html = report::render_html(r, {}, "t");
    expect_parts(html, {"<table id=\"inflight\">", "<table id=\"bidir\">", "<td class=\"num\">64 MiB</td>"});
}

TEST(ReportSections, OneRunShowsTheFilesOwnIntervalAndAbsentWaysADash) {
    auto run = report::parse_run(
        minimal(R"(,"inflight":{"points":[{"direction":"C2H","bytes":1048576,"one_at_a_time_gbps":2.0,)"
                R"("one_at_a_time_ci99_low_gbps":1.9,"one_at_a_time_ci99_high_gbps":2.1}]},)"
                R"("bidir":{"bytes":4096,"h2c_alone_gbps":1,"c2h_alone_gbps":1,"h2c_both_gbps":1,"c2h_both_gbps":1,)"
                R"("sum_both_gbps":2,"sum_both_ci99_low_gbps":null},)"
                R"("access":{"direction":"C2H","points":[{"bytes":64,"offset":3,"window_bytes":4096,)"
                R"("pattern":"random","gbps":0.5}]})"),
        "one.json");
    ASSERT_TRUE(run.ok()) << run.error().message();
    ASSERT_EQ(run->access.size(), 1u);
    EXPECT_EQ(run->access[0].offset, "3");
    EXPECT_EQ(run->access[0].direction, "C2H");
    const report::Report r = report::merge({*run});
    const std::string inflight = report::inflight_table(r), bidir = report::bidir_table(r);
    EXPECT_NE(inflight.find("2.00 [1.90, 2.10]"), std::string::npos) << inflight;
    EXPECT_NE(inflight.find("<td class=\"num\">-</td>"), std::string::npos) << inflight;  // no two-queue ways
    EXPECT_NE(bidir.find("2.00 (1 run, no interval)"), std::string::npos) << bidir;
}

TEST(ReportSections, MalformedSectionsNameTheField) {
    EXPECT_EQ(error_of(minimal(R"(,"access":{"direction":"H2C","points":[{"bytes":64,"offset":true,)"
                               R"("window_bytes":4096,"pattern":"random","gbps":1}]})")),
              "read result file r.json: Invalid argument (field access.points[0].offset: expected a whole number >= 0 "
              "or a text such as \"0-63\")");
    EXPECT_EQ(error_of(minimal(R"(,"access":{"direction":"up","points":[]})")),
              "read result file r.json: Invalid argument (field access.direction: expected H2C or C2H, not \"up\")");
    EXPECT_EQ(error_of(minimal(R"(,"inflight":{"points":[{"direction":"H2C","bytes":1}]})")),
              "read result file r.json: Invalid argument (field inflight.points[0].one_at_a_time_gbps: missing)");
    EXPECT_EQ(error_of(minimal(R"(,"bidir":{"bytes":1,"h2c_alone_gbps":"fast"})")),
              "read result file r.json: Invalid argument (field bidir.h2c_alone_gbps: expected a number)");
}
