// The report's access, inflight and bidir sections: each card's figures pooled over its runs
// (access: a line per direction, window and pattern; inflight and bidir: the mean of the runs'
// means with a 99% interval) and the tables of inflight ratios and of both directions at once.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "measure/report.hpp"

namespace measure::report {

namespace {

void pool_access(Card& card, const std::vector<const Run*>& runs) {
    // (direction, window, pattern) -> transfer size -> every rate of every run at it
    std::map<std::tuple<std::string, uint64_t, std::string>, std::map<uint64_t, std::vector<double>>> lines;
    for (const Run* run : runs)
        for (const AccessSample& a : run->access)
            lines[{a.direction, a.window, a.pattern}][a.bytes].push_back(a.gbps);
    for (const auto& [key, sizes] : lines) {
        AccessCurve curve{std::get<0>(key), std::get<2>(key), std::get<1>(key), {}};
        for (const auto& [bytes, rates] : sizes)
            curve.points.emplace_back(bytes, mean_ci99(rates).mean);
        card.access.push_back(std::move(curve));
    }
}

// One run: the file's own interval; several: the mean of their means with a 99% interval.
Interval over_runs(const std::vector<Figure>& figures) {
    if (figures.size() != 1) {
        std::vector<double> means;
        for (const Figure& f : figures)
            means.push_back(f.mean);
        return mean_ci99(means);
    }
    const Figure& f = figures.front();  // a file of an older tool may give a bound below 0
    const bool has = std::isfinite(f.low) && std::isfinite(f.high);
    return Interval{f.mean, has ? std::max(0.0, f.low) : f.mean, has ? f.high : f.mean, 1, has};
}

void pool_inflight(Card& card, const std::vector<const Run*>& runs) {
    struct Pooled {
        std::vector<Figure> one, one_queue, two_queues;
    };
    std::map<std::tuple<bool, std::string, uint64_t>, Pooled> pooled;  // H2C first, then by size
    for (const Run* run : runs)
        for (const InflightRow& row : run->inflight) {
            Pooled& p = pooled[{row.direction != "H2C", row.direction, row.bytes}];
            p.one.push_back(row.one_at_a_time_gbps);
            if (row.has_one_queue)
                p.one_queue.push_back(row.two_in_one_queue_ratio);
            if (row.has_two_queues)
                p.two_queues.push_back(row.one_in_each_of_two_queues_ratio);
        }
    for (const auto& [key, p] : pooled)
        card.inflight.push_back(CardInflight{std::get<1>(key), std::get<2>(key), over_runs(p.one),
                                             over_runs(p.one_queue), over_runs(p.two_queues)});
}

void pool_bidir(Card& card, const std::vector<const Run*>& runs) {
    std::map<uint64_t, std::vector<BidirFigures>> by_size;
    for (const Run* run : runs)
        for (const BidirFigures& b : run->bidir)
            by_size[b.bytes].push_back(b);
    for (const auto& entry : by_size) {
        const std::vector<BidirFigures>& all = entry.second;  // a lambda cannot capture a structured binding (clang 14)
        auto pick = [&all](Figure BidirFigures::*member) {
            std::vector<Figure> figures;
            for (const BidirFigures& b : all)
                figures.push_back(b.*member);
            return over_runs(figures);
        };
        card.bidir.push_back(CardBidir{entry.first, pick(&BidirFigures::h2c_alone), pick(&BidirFigures::c2h_alone),
                                       pick(&BidirFigures::h2c_both), pick(&BidirFigures::c2h_both),
                                       pick(&BidirFigures::sum_both)});
    }
}

std::string cell(const Interval& value, int decimals = 2) {
    return "<td class=\"num\">" + interval_text(value, decimals) + "</td>";
}

std::string card_cells(const Card& card) {
    return "<td>" + html_escape(card.tag) + "</td><td>" + html_escape(card.name) + "</td>";
}

}  // namespace

void pool_sections(Card& card, const std::vector<const Run*>& runs) {
    pool_access(card, runs);
    pool_inflight(card, runs);
    pool_bidir(card, runs);
}

std::string interval_text(const Interval& value, int decimals) {
    if (value.n == 0 || !std::isfinite(value.mean))
        return "-";
    auto fixed = [decimals](double v) {
        char text[48];
        std::snprintf(text, sizeof(text), "%.*f", decimals, v);
        return std::string(text);
    };
    if (value.has_interval)
        return fixed(value.mean) + " [" + fixed(value.low) + ", " + fixed(value.high) + "]";
    return fixed(value.mean) + " (" + std::to_string(value.n) + (value.n == 1 ? " run" : " runs") + ", no interval)";
}

std::string inflight_table(const Report& report) {
    std::string rows;
    for (const Card& card : report.cards)
        for (const CardInflight& row : card.inflight)
            rows += "<tr class=\"inflight\" data-card=\"" + html_escape(card.tag) + "\">" + card_cells(card) + "<td>" +
                    html_escape(row.direction) + "</td><td class=\"num\">" + format_bytes(row.bytes) + "</td>" +
                    cell(row.one_at_a_time_gbps) + cell(row.two_in_one_queue_ratio, 3) +
                    cell(row.one_in_each_of_two_queues_ratio, 3) + "</tr>\n";
    if (rows.empty())
        return {};
    return "<h2>Copies in flight</h2>\n<p>Two copies in flight against one at a time: each ratio is the rate with two "
           "in flight over the rate one at a time (above 1: what the overlap gains); - where the endpoint cannot "
           "do it.</p>\n<table id=\"inflight\">\n<tr><th>Card</th><th>Name</th><th>Direction</th><th>Copy size</th>"
           "<th>One at a time<br>GB/s [99%]</th><th>Two in one queue<br>ratio [99%]</th>"
           "<th>One in each of two queues<br>ratio [99%]</th></tr>\n" + rows + "</table>\n";
}

std::string bidir_table(const Report& report) {
    std::string rows;
    for (const Card& card : report.cards)
        for (const CardBidir& b : card.bidir)
            rows += "<tr class=\"bidir\" data-card=\"" + html_escape(card.tag) + "\">" + card_cells(card) +
                    "<td class=\"num\">" + format_bytes(b.bytes) + "</td>" + cell(b.h2c_alone) + cell(b.c2h_alone) +
                    cell(b.h2c_both) + cell(b.c2h_both) + cell(b.sum_both) + "</tr>\n";
    if (rows.empty())
        return {};
    return "<h2>Both directions at once</h2>\n<p>Each direction alone, both at once (one copy of each in flight) "
           "and the sum of the two, GB/s with the 99% interval over the runs.</p>\n<table id=\"bidir\">\n<tr><th>Card"
           "</th><th>Name</th><th>Copy size</th><th>H2C alone</th><th>C2H alone</th><th>H2C both at once</th>"
           "<th>C2H both at once</th><th>Sum both at once</th></tr>\n" + rows + "</table>\n";
}

}  // namespace measure::report
