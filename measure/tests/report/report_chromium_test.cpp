// Acceptance (issue 11): the report renders in headless Chromium. The page made from the sample
// result files is loaded by chromium --headless; the DOM it dumps must hold the cards table and,
// in every plot, an SVG curve with a data path for each card whose runs passed (bandwidth,
// latency CDF, access), and the inflight and bidir tables. Skips only
// when chromium is not installed (scripts/install_deps.sh installs it, so CI runs it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <unistd.h>

#include "test_support/run_process.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace report_chromium_test {

namespace fs = std::filesystem;

namespace {

const std::string kTool = PDT_LINK_REPORT;
const std::string kFixtures = PDT_REPORT_FIXTURES;

// chromium (Debian) or chromium-browser on PATH; PDT_CHROMIUM names another.
std::string find_chromium() {
    if (const char* named = std::getenv("PDT_CHROMIUM"); named && *named)
        return named;
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (size_t start = 0; start <= dirs.size();) {
        const size_t end = std::min(dirs.find(':', start), dirs.size());
        for (const char* name : {"chromium", "chromium-browser"}) {
            const fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
            if (!candidate.parent_path().empty() && ::access(candidate.c_str(), X_OK) == 0)
                return candidate.string();
        }
        start = end + 1;
    }
    return {};
}

test_support::Outcome chromium(const std::string& binary, const std::string& profile,
                               const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
                                     "--no-first-run", "--disable-extensions", "--disable-dev-shm-usage", "--window-size=1400,2600"};
    args.insert(args.end(), extra.begin(), extra.end());
    test_support::RunOptions options;
    options.stderr_to = test_support::Stderr::separate;  // its D-Bus complaints
    options.stdin_from_null = true;
    options.timeout = std::chrono::seconds(90);
    return test_support::run_process(binary, args, options);
}

// The <figure> of a plot, from the dumped DOM.
std::string figure(const std::string& dom, const std::string& id) {
    const size_t start = dom.find("<figure class=\"plot\" id=\"" + id + "\"");
    return start == std::string::npos ? "" : dom.substr(start, dom.find("</figure>", start) - start);
}

// How many points the longest path drawn in the curve titled `title` has (gnuplot puts each
// curve in a <g id="gnuplot_plot_N"> with its key text first).
size_t points_of_curve(const std::string& svg, const std::string& title) {
    // Scanned by hand: std::regex recurses per character and overflows the stack on long paths.
    size_t best = 0;
    for (size_t at = svg.find("id=\"gnuplot_plot_"); at != std::string::npos;) {
        const size_t next = svg.find("id=\"gnuplot_plot_", at + 1);
        const std::string group = svg.substr(at, next == std::string::npos ? std::string::npos : next - at);
        at = next;
        if (group.find("<text>" + title + "</text>") == std::string::npos)
            continue;
        for (size_t path = group.find("<path"); path != std::string::npos; path = group.find("<path", path + 1)) {
            const size_t end = group.find('>', path);
            const size_t d = group.find(" d=\"", path);
            if (d == std::string::npos || d > end)
                continue;
            const size_t close = group.find('"', d + 4);
            const auto first = group.begin() + static_cast<std::ptrdiff_t>(d + 4);
            const auto last = group.begin() + static_cast<std::ptrdiff_t>(close);
            best = std::max(best, static_cast<size_t>(std::count(first, last, 'L')) + 1);
        }
    }
    return best;
}

}  // namespace

TEST(ReportChromium, ReportRendersInHeadlessChromium) {
    const std::string binary = find_chromium();
    if (binary.empty())
        GTEST_SKIP() << "chromium not found on PATH (nor PDT_CHROMIUM): install the Debian package chromium "
                        "(scripts/install_deps.sh does) to run this acceptance test";
    const fs::path dir = fs::path(testing::TempDir()) / ("report_chromium_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string page = (dir / "report.html").string();
    std::vector<std::string> args = {"--output", page};
    for (const char* card : {"xdma", "h200"})
        for (int r = 1; r <= 5; ++r)
            args.push_back(kFixtures + "/" + card + "_run" + std::to_string(r) + ".json");
    args.push_back(kFixtures + "/failed/model_failed.json");
    test_support::RunOptions options;
    options.stdin_from_null = true;
    const auto made = test_support::run_process(kTool, args, options);
    ASSERT_EQ(made.exit_code, 0) << made.output;

    const auto dump = chromium(binary, (dir / "profile").string(), {"--dump-dom", "file://" + page});
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    const std::string& dom = dump.output;
    ASSERT_NE(dom.find("<table id=\"cards\">"), std::string::npos) << dom.substr(0, 2000);
    EXPECT_NE(dom.find("data-card=\"C1\" data-verdict=\"PASS\""), std::string::npos);
    EXPECT_NE(dom.find("data-card=\"C2\" data-verdict=\"PASS\""), std::string::npos);
    EXPECT_NE(dom.find("data-card=\"C3\" data-verdict=\"FAIL\""), std::string::npos);
    for (const char* direction : {"H2C", "C2H"}) {
        const std::string plot = figure(dom, std::string("bandwidth-") + direction);
        ASSERT_NE(plot.find("<svg"), std::string::npos) << direction;
        for (const char* card : {"C1", "C2"}) {
            // 17 sizes (4 KiB .. 256 MiB): the curve through the means has a point at each.
            EXPECT_GE(points_of_curve(plot, std::string(card) + " direct"), 17u) << direction << " " << card;
            EXPECT_GE(points_of_curve(plot, std::string(card) + " staged"), 17u) << direction << " " << card;
            EXPECT_GE(points_of_curve(plot, std::string(card) + " staged model"), 17u) << direction << " " << card;
        }
        EXPECT_EQ(plot.find("C3"), std::string::npos) << "a FAIL card has no curve";
    }
    for (const char* mode : {"back_to_back", "idle_gap"}) {
        const std::string plot = figure(dom, std::string("latency-") + mode);
        ASSERT_NE(plot.find("<svg"), std::string::npos) << mode;
        for (const char* card : {"C1", "C2"})
            for (const char* direction : {"H2C", "C2H"})
                EXPECT_GE(points_of_curve(plot, std::string(card) + " " + direction + " (1000 samples)"), 100u)
                    << mode << " " << card << " " << direction;
    }

    // access: a plot per passing card (the samples have H2C only), a line per window and pattern
    // with a point at each of the 18 transfer sizes; none for the FAIL card.
    for (const char* card : {"C1", "C2"}) {
        const std::string plot = figure(dom, std::string("access-") + card + "-H2C");
        ASSERT_NE(plot.find("<svg"), std::string::npos) << card;
        for (const char* window : {"4 KiB", "64 KiB", "1 MiB", "64 MiB"})
            for (const char* pattern : {"sequential", "random"})
                EXPECT_GE(points_of_curve(plot, std::string(window) + " " + pattern), 18u)
                    << card << " " << window << " " << pattern;
    }
    EXPECT_EQ(dom.find("id=\"access-C3-"), std::string::npos) << "a FAIL card has no access plot";
    // inflight and bidir: tables with a row per passing card's size, none for the FAIL card.
    for (const char* table : {"inflight", "bidir"}) {
        ASSERT_NE(dom.find(std::string("<table id=\"") + table + "\">"), std::string::npos) << table;
        for (const char* card : {"C1", "C2"})
            EXPECT_NE(dom.find(std::string("<tr class=\"") + table + "\" data-card=\"" + card + "\">"),
                      std::string::npos)
                << table << " " << card;
        EXPECT_EQ(dom.find(std::string("<tr class=\"") + table + "\" data-card=\"C3\">"), std::string::npos);
    }

    const std::string shot = (dir / "report.png").string();
    const auto screenshot = chromium(binary, (dir / "profile").string(), {"--screenshot=" + shot, "file://" + page});
    ASSERT_EQ(screenshot.exit_code, 0) << screenshot.err;
    std::ifstream png(shot, std::ios::binary);
    char magic[8] = {};
    png.read(magic, sizeof(magic));
    EXPECT_EQ(std::string(magic + 1, 3), "PNG");
    EXPECT_GT(fs::file_size(shot), 50000u);  // a page of tables and six plots, not a blank one
    if (!std::getenv("PDT_KEEP_REPORT"))
        fs::remove_all(dir);
}

}  // namespace report_chromium_test
