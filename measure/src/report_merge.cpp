// Merging result files into cards: one card per adapter, name, PCI address and host; its runs'
// per-run medians pooled per size (the card's value is their mean, with a 99% interval), its
// latency samples pooled per mode. A card with a failed run reports no rate at all.
#include <algorithm>
#include <set>
#include <tuple>

#include "measure/report.hpp"

namespace measure::report {

namespace {

int verdict_rank(const std::string& verdict) {
    if (verdict == "FAIL")
        return 3;
    if (verdict == "PASS WITH WARNINGS")
        return 2;
    return verdict == "PASS" ? 1 : 0;  // SKIPPED: 0, counts only when every run skipped
}

std::string link_text(const Run& run) {
    const LinkState& link = run.under_load.speed.empty() ? run.before : run.under_load;
    if (link.speed.empty())
        return {};
    return link.speed + (link.width > 0 ? " x" + std::to_string(link.width) : "");
}

std::string card_verdict(const std::vector<const Run*>& runs) {
    std::string worst = "SKIPPED";
    for (const Run* run : runs)
        if (verdict_rank(run->verdict) > verdict_rank(worst))
            worst = run->verdict;
    return worst;
}

void pool_sweep(Card& card, const std::vector<const Run*>& runs) {
    std::map<std::tuple<std::string, std::string, uint64_t>, std::vector<double>> medians;
    std::map<std::pair<std::string, uint64_t>, std::vector<double>> model;
    for (const Run* run : runs) {
        for (const SweepPoint& p : run->sweep)
            medians[{p.direction, p.path, p.bytes}].insert(medians[{p.direction, p.path, p.bytes}].end(),
                                                          p.run_medians_gbps.begin(), p.run_medians_gbps.end());
        for (const ModelPoint& p : run->staged_model)
            model[{p.direction, p.bytes}].push_back(p.model_gbps);
    }
    for (const auto& [key, values] : medians) {
        const auto& [direction, path, bytes] = key;
        if (card.curves.empty() || card.curves.back().direction != direction || card.curves.back().path != path)
            card.curves.push_back(Curve{direction, path, {}});
        card.curves.back().points.push_back(CurvePoint{bytes, mean_ci99(values)});
    }
    for (const Curve& curve : card.curves) {
        if (curve.points.empty())
            continue;
        const std::string key = curve.direction + "/" + curve.path;
        const double large = curve.points.back().gbps.mean;
        card.large_copy[key] = curve.points.back().gbps;
        auto first_reaching = [&](double fraction) {
            for (const CurvePoint& p : curve.points)
                if (p.gbps.mean >= fraction * large)
                    return p.bytes;
            return curve.points.back().bytes;
        };
        card.reach[key] = {first_reaching(0.5), first_reaching(0.9)};
    }
    for (const auto& [key, values] : model) {
        if (card.model.empty() || card.model.back().direction != key.first)
            card.model.push_back(ModelCurve{key.first, {}});
        card.model.back().points.emplace_back(key.second, mean_ci99(values).mean);
    }
}

void pool_latency(Card& card, const std::vector<const Run*>& runs) {
    std::map<std::pair<std::string, std::string>, std::vector<double>> samples;  // (direction, mode)
    for (const Run* run : runs)
        for (const LatencyMode& mode : run->latency) {
            std::vector<double>& pooled = samples[{mode.direction, mode.mode}];
            pooled.insert(pooled.end(), mode.samples_us.begin(), mode.samples_us.end());
        }
    for (auto& [key, values] : samples) {
        if (values.empty())
            continue;
        std::sort(values.begin(), values.end());
        card.latency.push_back(
            CardLatency{key.first, key.second, values, percentile(values, 0.50), percentile(values, 0.99)});
    }
}

Card make_card(const std::vector<Run>& all, const std::vector<size_t>& indices, size_t number,
               std::vector<std::string>& warnings) {
    std::vector<const Run*> runs;
    for (size_t i : indices)
        runs.push_back(&all[i]);
    const Run& first = *runs.front();
    Card card;
    card.tag = "C" + std::to_string(number);
    card.adapter = first.adapter;
    card.name = first.name;
    card.pci_address = first.pci_address;
    card.hostname = first.hostname;
    card.runs = indices;
    card.verdict = card_verdict(runs);
    std::set<std::string> links;
    for (const Run* run : runs) {
        card.bytes_verified += run->bytes_verified;
        card.failed_runs += run->verdict == "FAIL" ? 1 : 0;
        links.insert(link_text(*run));
    }
    card.link = links.size() == 1 ? *links.begin() : "varies";
    if (links.size() > 1)
        warnings.push_back(card.tag + " " + card.name + " on " + card.hostname +
                           ": the link differs between runs (see each run's context)");
    if (!card.rates_shown()) {
        warnings.push_back(card.tag + " " + card.name + " on " + card.hostname + ": FAIL in " +
                           std::to_string(card.failed_runs) + " of " + std::to_string(runs.size()) +
                           " runs: no rate is reported for this card");
        return card;
    }
    pool_sweep(card, runs);
    pool_latency(card, runs);
    pool_sections(card, runs);
    return card;
}

}  // namespace

Report merge(std::vector<Run> runs) {
    Report report;
    report.runs = std::move(runs);
    std::vector<std::tuple<std::string, std::string, std::string, std::string>> keys;
    std::vector<std::vector<size_t>> members;
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const Run& run = report.runs[i];
        const auto key = std::make_tuple(run.adapter, run.name, run.pci_address, run.hostname);
        auto it = std::find(keys.begin(), keys.end(), key);
        if (it == keys.end()) {
            keys.push_back(key);
            members.emplace_back();
            it = keys.end() - 1;
        }
        members[static_cast<size_t>(it - keys.begin())].push_back(i);
        for (const std::string& w : run.warnings)
            report.warnings.push_back(run.file + ": " + w);
        for (const std::string& f : run.failures)
            report.warnings.push_back(run.file + ": FAIL: " + f);
        for (const std::string& s : run.skipped)
            report.warnings.push_back(run.file + ": skipped: " + s);
        if (run.link_changed)
            report.warnings.push_back(run.file + ": the link changed during the run");
    }
    for (size_t c = 0; c < members.size(); ++c)
        report.cards.push_back(make_card(report.runs, members[c], c + 1, report.warnings));
    return report;
}

}  // namespace measure::report
