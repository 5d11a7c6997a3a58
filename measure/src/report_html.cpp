// The report page: one self-contained HTML document (inline CSS and SVG, no script, nothing
// fetched). Every text from a result file is escaped; only gnuplot's SVG is inserted as is.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "measure/report.hpp"

namespace measure::report {

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string gnuplot_quote(std::string_view text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'')
            out += "''";
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            out += '?';  // a newline would end the command
        else
            out += c;
    }
    return out + "'";
}

std::string format_bytes(uint64_t bytes) {
    static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t unit = 0;
    while (unit + 1 < sizeof(kUnits) / sizeof(kUnits[0]) && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++unit;
    }
    return std::to_string(bytes) + " " + kUnits[unit];
}

namespace {

const char* kStyle = R"(
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
.wide { overflow-x: auto; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #eee; }
td.num, td.nowrap { text-align: right; white-space: nowrap; }
td.nowrap { text-align: left; }
.PASS, .pass { color: #1a7f37; font-weight: bold; }
.FAIL, .fail { color: #cf222e; font-weight: bold; }
.PASS_WITH_WARNINGS, .SKIPPED, .inconclusive { color: #9a6700; font-weight: bold; }
figure.plot { margin: 1em 0; }
figure.plot svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
pre { white-space: pre-wrap; margin: 0; font-size: 0.85em; }
.norate { color: #888; }
)";

std::string fixed(double value, int decimals = 2) {
    if (!std::isfinite(value))
        return "-";
    char text[48];
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
    return text;
}

std::string css_class(const std::string& verdict) {
    std::string out;
    for (char c : verdict)
        out += (c == ' ') ? '_' : c;
    return out;
}

std::string verdict_span(const std::string& verdict) {
    return "<span class=\"" + html_escape(css_class(verdict)) + "\">" + html_escape(verdict) + "</span>";
}

std::string rate_cell(const Interval& gbps) {
    if (gbps.n == 0)
        return "<td class=\"num\">-</td>";
    return "<td class=\"num rate\">" + interval_text(gbps) + "</td>";
}

// "257.70 GB" (decimal, as the rates), the exact count in the title.
std::string bytes_cell(uint64_t bytes) {
    const double gb = static_cast<double>(bytes) / 1e9;
    const std::string shown = bytes < 1000000 ? std::to_string(bytes) + " B" : fixed(gb, 2) + " GB";
    return "<td class=\"num\" title=\"" + std::to_string(bytes) + " bytes\" data-bytes=\"" + std::to_string(bytes) +
           "\">" + shown + "</td>";
}

std::vector<std::string> rate_keys(const Report& report) {
    std::vector<std::string> keys = {"H2C/direct", "H2C/staged", "C2H/direct", "C2H/staged"};
    std::vector<std::string> present;
    for (const std::string& key : keys)
        for (const Card& card : report.cards)
            if (card.large_copy.count(key)) {
                present.push_back(key);
                break;
            }
    for (const Card& card : report.cards)
        for (const auto& [key, value] : card.large_copy)
            if (std::find(present.begin(), present.end(), key) == present.end())
                present.push_back(key);
    return present;
}

// The latency columns: (direction, mode) pairs in order of appearance.
using LatencyKey = std::pair<std::string, std::string>;
std::vector<LatencyKey> latency_modes(const Report& report) {
    std::vector<LatencyKey> modes;
    for (const Card& card : report.cards)
        for (const CardLatency& latency : card.latency)
            if (std::find(modes.begin(), modes.end(), LatencyKey{latency.direction, latency.mode}) == modes.end())
                modes.emplace_back(latency.direction, latency.mode);
    return modes;
}

std::string card_table(const Report& report) {
    const std::vector<std::string> keys = rate_keys(report);
    const std::vector<LatencyKey> modes = latency_modes(report);
    std::string html = "<div class=\"wide\"><table id=\"cards\">\n<tr><th>Card</th><th>Adapter</th><th>Name</th><th>Host</th>"
                       "<th>Link under load</th><th>Runs</th><th>Verdict</th>";  // then the large-copy rates, the 4 KiB latency
    for (const std::string& key : keys)
        html += "<th>" + html_escape(key) + " large copy<br>GB/s [99%]</th>";
    for (const auto& [direction, mode] : modes)
        html += "<th>" + html_escape((direction.empty() ? "" : direction + " ") + mode) + " latency<br>p50 / p99 us</th>";
    html += "<th>Bytes verified</th></tr>\n";
    for (const Card& card : report.cards) {
        html += "<tr class=\"card\" data-card=\"" + html_escape(card.tag) + "\" data-verdict=\"" +
                html_escape(card.verdict) + "\"><td>" + html_escape(card.tag) + "</td><td>" +
                html_escape(card.adapter) + "</td><td>" + html_escape(card.name) + "</td><td class=\"nowrap\">" +
                html_escape(card.hostname) + "</td><td class=\"nowrap\">" + html_escape(card.link) + "</td><td class=\"num\">" +
                std::to_string(card.runs.size()) + "</td><td>" + verdict_span(card.verdict) + "</td>";
        if (!card.rates_shown()) {
            html += "<td class=\"norate\" colspan=\"" + std::to_string(keys.size() + modes.size()) +
                    "\">no rate: the data check failed in " + std::to_string(card.failed_runs) + " of " +
                    std::to_string(card.runs.size()) + " runs</td>";
        } else {
            for (const std::string& key : keys)
                html += rate_cell(card.large_copy.count(key) ? card.large_copy.at(key) : Interval{});
            for (const LatencyKey& key : modes) {
                auto it = std::find_if(card.latency.begin(), card.latency.end(), [&](const CardLatency& l) {
                    return LatencyKey{l.direction, l.mode} == key;
                });
                html += it == card.latency.end()
                            ? "<td class=\"num\">-</td>"
                            : "<td class=\"num\">" + fixed(it->p50_us) + " / " + fixed(it->p99_us) + "</td>";
            }
        }
        html += bytes_cell(card.bytes_verified) + "</tr>\n";
    }
    return html + "</table></div>\n";
}

// Per card and curve, the sizes that reach half and 90% of the large-copy rate.
std::string reach_table(const Report& report) {
    std::string rows;
    for (const Card& card : report.cards)
        for (const auto& [key, sizes] : card.reach)
            rows += "<tr><td>" + html_escape(card.tag) + "</td><td>" + html_escape(key) + "</td><td class=\"num\">" +
                    format_bytes(sizes.first) + "</td><td class=\"num\">" + format_bytes(sizes.second) + "</td></tr>\n";
    if (rows.empty())
        return {};
    return "<p>The smallest copy that reaches half and 90% of the large-copy rate (means over the runs):</p>\n"
           "<table id=\"reach\">\n<tr><th>Card</th><th>Direction/path</th><th>Half</th><th>90%</th></tr>\n" + rows +
           "</table>\n";
}

std::string plots_section(const std::vector<Plot>& plots) {
    std::string html = "<h2>Plots</h2>\n";
    if (plots.empty())
        return html + "<p>No plot: no card has a passing run with a sweep, latency samples or an access run.</p>\n";
    html += "<p>Rates: the mean over every run's median at each size, with its 99% Student-t interval as error "
            "bars; the staged model 1 / (1/DMA + 1/memcpy) dashed. Latency: every 4 KiB copy of every run "
            "pooled. Access (pcie-bench): a line per host window (blue the smallest, red the largest) and pattern "
            "(random dashed); at each transfer size the mean rate over the card's runs, offsets, caches and buffer "
            "kinds (each point is in the result files).</p>\n";
    for (const Plot& plot : plots) {
        std::string curves;
        for (const std::string& t : plot.curve_titles)
            curves += (curves.empty() ? "" : "|") + t;
        html += "<figure class=\"plot\" id=\"" + html_escape(plot.id) + "\" data-curves=\"" + html_escape(curves) +
                "\">\n" + plot.svg + "\n<figcaption>" + html_escape(plot.title) + "</figcaption></figure>\n";
    }
    return html;
}

std::string tag_of(const Report& report, size_t run) {
    for (const Card& card : report.cards)
        if (std::find(card.runs.begin(), card.runs.end(), run) != card.runs.end())
            return card.tag;
    return "?";
}

std::string predictions_section(const Report& report) {
    std::string rows;
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const Run& run = report.runs[r];
        // A failed run measured nothing that counts: its predictions get no measured value and no verdict.
        const bool failed = run.verdict == "FAIL";
        for (const Prediction& p : run.predictions)
            rows += "<tr><td>" + html_escape(tag_of(report, r)) + "</td><td>" + html_escape(run.file) + "</td><td>" +
                    html_escape(run.predictions_file) + "<br><code>" + html_escape(run.predictions_sha256) +
                    "</code></td><td>" + html_escape(p.name) + "</td><td class=\"num\">" + fixed(p.low, 3) + " .. " +
                    fixed(p.high, 3) + "</td>" +
                    (failed ? "<td class=\"norate\" colspan=\"2\">no rate: the run FAILed</td>"
                            : "<td class=\"num\">" + fixed(p.measured_low, 3) + " .. " + fixed(p.measured_high, 3) +
                                  "</td><td>" + verdict_span(p.verdict) + "</td>") +
                    "</tr>\n";
    }
    if (rows.empty())
        return "<h2>Predictions</h2>\n<p>No run had a predictions file.</p>\n";
    return "<h2>Predictions</h2>\n<table id=\"predictions\">\n<tr><th>Card</th><th>Result file</th><th>Predictions "
           "file, sha256</th><th>Prediction</th><th>Predicted range</th><th>Measured 99% interval</th>"
           "<th>Verdict</th></tr>\n" + rows + "</table>\n";
}

std::string link_line(const LinkState& link) {
    if (link.speed.empty() && link.text.empty())
        return "not read";
    return link.speed + (link.width ? " x" + std::to_string(link.width) : "") +
           (link.text.empty() ? "" : " (" + link.text + ")");
}

// One line when the link read the same before, under load and after; else the three.
std::string link_cell(const Run& run) {
    const std::string before = link_line(run.before), load = link_line(run.under_load), after = link_line(run.after);
    std::string html = before == load && load == after
                           ? html_escape(before) + ", unchanged"
                           : "before: " + html_escape(before) + "<br>under load: " + html_escape(load) +
                                 "<br>after: " + html_escape(after);
    if (!run.link_proof.empty())
        html += "<br>lowest link that carries the rate: " + html_escape(run.link_proof);
    return html;
}


std::string context_section(const Report& report) {
    std::string html = "<h2>Runs and their context</h2>\n<table id=\"runs\">\n<tr><th>Card</th><th>Result file</th>"
                       "<th>Started (UTC), duration</th><th>Verdict, bytes verified</th><th>Host</th>"
                       "<th>IOMMU</th><th>Link before / under load / after</th><th>Command</th></tr>\n";
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const Run& run = report.runs[r];
        html += "<tr class=\"run\"><td>" + html_escape(tag_of(report, r)) + "</td><td>" + html_escape(run.file) +
                "</td><td>" + html_escape(run.started_utc) + "<br>" + fixed(run.duration_s, 1) + " s</td><td>" +
                verdict_span(run.verdict) + "<br>" + std::to_string(run.bytes_verified) + " bytes</td><td>" +
                html_escape(run.hostname) + "<br>" + html_escape(run.cpu) + ", " + std::to_string(run.cores) +
                " cores, NUMA node " + std::to_string(run.numa_node) +
                (run.memcpy_gbps > 0 ? "<br>host memcpy " + fixed(run.memcpy_gbps) + " GB/s" : "") +
                (run.disturbed ? "<br><b>DISTURBED</b>: the host reference spread " + fixed(100 * run.reference_spread, 1) +
                                     "% between runs: its rates are not the device's"
                               : "") +
                "<br>kernel " + html_escape(run.kernel) +
                "<br><code>" + html_escape(run.kernel_cmdline) + "</code></td><td>" + html_escape(run.iommu_mode) +
                (run.iommu_page_size ? ", page " + format_bytes(static_cast<uint64_t>(run.iommu_page_size)) : "") +
                "</td><td>" + link_cell(run) + "</td><td><pre>" + html_escape(run.command) + "</pre></td></tr>\n";
    }
    return html + "</table>\n";
}

std::string warnings_section(const Report& report) {
    std::string html = "<h2>Warnings</h2>\n";
    if (report.warnings.empty())
        return html + "<p id=\"warnings\">None.</p>\n";
    html += "<ul id=\"warnings\">\n";
    for (const std::string& w : report.warnings)
        html += "<li>" + html_escape(w) + "</li>\n";
    return html + "</ul>\n";
}

}  // namespace

std::string render_html(const Report& report, const std::vector<Plot>& plots, const std::string& title) {
    std::set<std::string> hosts;
    for (const Card& card : report.cards)
        hosts.insert(card.hostname);
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                       html_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" +
                       html_escape(title) + "</h1>\n<p>" + std::to_string(report.runs.size()) + " result files, " +
                       std::to_string(report.cards.size()) + " cards, " + std::to_string(hosts.size()) +
                       " hosts. A card's rate is the mean of its runs' medians at the largest size, with a 99% "
                       "interval; a card with a failed data check shows no rate.</p>\n<h2>Cards</h2>\n";
    html += card_table(report) + reach_table(report) + plots_section(plots) + inflight_table(report) +
            bidir_table(report) + predictions_section(report) + context_section(report) + warnings_section(report);
    return html + "</body>\n</html>\n";
}

}  // namespace measure::report
