#include "measure/analysis.hpp"

#include <cstdio>

#include "base/format.hpp"
#include "measure/tool.hpp"

namespace measure {
namespace {

std::string fixed(double v, int digits) { return pdt::format("%.*f", digits, v); }

Metric point(double v) { return {v, v, v}; }
Metric interval(const MeanInterval& m) { return {m.mean, m.low, m.high}; }

}  // namespace

double usable_gbps(unsigned gen, unsigned width) {
    static const double gts[] = {0, 2.5, 5, 8, 16, 32, 64};
    if (gen < 1 || gen > 6)
        return 0;
    const double encoding = gen <= 2 ? 8.0 / 10.0 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
    return gts[gen] * encoding * width / 8.0;
}

LinkProof prove_link(double gbps, unsigned trained_width, const std::string& lnksta_under_load) {
    LinkProof proof;
    proof.measured_gbps = gbps;
    proof.lnksta_under_load = lnksta_under_load;
    proof.assumption =
        "usable rate = lane rate after line encoding (Gen1-2 8b/10b, Gen3-5 128b/130b, Gen6 FLIT 242/256; "
        "shared/reference/pcie_link.md section 1), TLP/DLLP overhead not subtracted";
    unsigned best_gen = 0, best_width = 0;
    for (unsigned width : {1u, 2u, 4u, 8u, 16u})
        for (unsigned gen = 1; gen <= 6; ++gen) {
            const double rate = usable_gbps(gen, width);
            if (rate < gbps)
                continue;
            proof.by_width.push_back("x" + std::to_string(width) + ": Gen" + std::to_string(gen) + " (" +
                                     fixed(rate, 2) + " GB/s)");
            // At the trained width when known; else the lowest generation, at its fewest lanes.
            if ((trained_width && width == trained_width) || (!trained_width && (!best_gen || gen < best_gen)))
                best_gen = gen, best_width = width;
            break;
        }
    if (best_gen)
        proof.lowest = "Gen" + std::to_string(best_gen) + " x" + std::to_string(best_width);
    return proof;
}

pdt::Result<CeilingResult> compute_ceiling(double h2d_gbps, const CeilingInputs& in, double memcpy_gbps) {
    if (!(in.active_bytes_per_token > 0))
        return pdt::usage_error("ceiling", "--active_bytes", "give the active weight bytes per token");
    if (!(h2d_gbps > 0))
        return pdt::make_error("ceiling", "H2C rate", EINVAL, "no measured host-to-card rate");
    CeilingResult c;
    c.h2d_gbps = h2d_gbps;
    c.inputs = in;
    const double seconds = in.active_bytes_per_token / (h2d_gbps * 1e9);
    c.link_ms_per_token = seconds * 1e3;
    c.tokens_per_s = 1.0 / seconds;
    c.tokens_per_s_resident = c.tokens_per_s / (1.0 - in.resident_fraction);
    if (in.host_ram_gbps > 0) {
        c.host_ram_gbps = in.host_ram_gbps;
        c.host_ram_source = "--host_ram_gbps";
    } else if (memcpy_gbps > 0) {
        c.host_ram_gbps = memcpy_gbps;
        c.host_ram_source = "measured memcpy (a lower bound on the host's read bandwidth)";
    }
    if (c.host_ram_gbps > 0)
        c.host_ram_tokens_per_s = c.host_ram_gbps * 1e9 / in.active_bytes_per_token;
    return c;
}

std::map<std::string, Metric> collect_metrics(const RunResult& r) {
    std::map<std::string, Metric> m;
    if (r.sweep) {
        m["sweep.memcpy_gbps"] = point(r.sweep->memcpy_gbps);
        for (const SweepPoint& p : r.sweep->points) {
            const std::string key = std::string(to_string(p.direction)) + "/" + p.path;
            m["sweep." + key + "." + std::to_string(p.bytes) + ".gbps"] = interval(p.rate);
            if (&p == r.sweep->largest(p.direction, p.path))
                m["sweep.large_copy_gbps." + key] = interval(p.rate);
        }
        for (const auto& [key, bytes] : r.sweep->half_rate_bytes)
            m["sweep.half_rate_bytes." + key] = point(static_cast<double>(bytes));
        for (const auto& [key, bytes] : r.sweep->ninety_rate_bytes)
            m["sweep.ninety_rate_bytes." + key] = point(static_cast<double>(bytes));
    }
    if (r.latency)
        for (const LatencyMode& l : r.latency->modes) {
            const std::string stem = "latency." + std::string(to_string(l.direction)) + "." + l.mode + ".";
            m[stem + "p50_us"] = point(l.p50), m[stem + "p90_us"] = point(l.p90), m[stem + "p98_us"] = point(l.p98);
            m[stem + "p99_us"] = point(l.p99), m[stem + "p999_us"] = point(l.p999), m[stem + "max_us"] = point(l.max);
        }
    if (r.access)
        for (const AccessPoint& a : r.access->points)
            m["access." + a.memory + "." + a.pattern + "." + a.cache + "." + std::to_string(a.bytes) + "." +
              a.offset_text() + "." + std::to_string(a.window) + ".gbps"] = point(a.gbps);
    if (r.inflight)
        for (const InflightPoint& p : r.inflight->points) {
            const std::string stem = "inflight." + std::string(to_string(p.direction)) + "." + std::to_string(p.bytes) + ".";
            m[stem + "one_at_a_time_gbps"] = interval(p.one_at_a_time_gbps);
            if (p.one_queue_ratio)
                m[stem + "two_in_one_queue_ratio"] = interval(*p.one_queue_ratio);
            if (p.two_queues_ratio)
                m[stem + "one_in_each_of_two_queues_ratio"] = interval(*p.two_queues_ratio);
        }
    if (r.bidir) {
        m["bidir.h2c_both_gbps"] = interval(r.bidir->h2c_both);
        m["bidir.c2h_both_gbps"] = interval(r.bidir->c2h_both);
        m["bidir.sum_gbps"] = interval(r.bidir->sum_both);
    }
    if (r.launch) {
        m["launch.single_p50_us"] = point(r.launch->single_p50_us);
        m["launch.queued_per_launch_us"] = interval(r.launch->queued_per_launch_us);
    }
    if (r.link_proof)
        m["link_proof.measured_gbps"] = point(r.link_proof->measured_gbps);
    if (r.ceiling) {
        m["ceiling.tokens_per_s"] = point(r.ceiling->tokens_per_s);
        m["ceiling.tokens_per_s_with_resident"] = point(r.ceiling->tokens_per_s_resident);
    }
    return m;
}

pdt::Result<std::vector<Prediction>> parse_predictions(const std::string& text, const std::string& file) {
    std::vector<Prediction> out;
    try {
        const auto j = nlohmann::json::parse(text);
        if (!j.is_object() || !j.contains("predictions") || !j["predictions"].is_array())
            return pdt::usage_error("read predictions", file, "expected {\"predictions\": [...]}");
        for (const auto& p : j["predictions"]) {
            Prediction pr{p.at("name").get<std::string>(), p.at("low").get<double>(), p.at("high").get<double>()};
            if (!(pr.low <= pr.high))
                return pdt::usage_error("read predictions", file, pr.name + ": low is above high");
            out.push_back(pr);
        }
    } catch (const nlohmann::json::exception& e) {
        return pdt::usage_error("read predictions", file,
                                std::string("each prediction needs name, low and high: ") + e.what());
    }
    return out;
}

PredictionResult judge(const Prediction& p, const std::map<std::string, Metric>& metrics) {
    PredictionResult r{p.name, p.low, p.high, std::nullopt, std::nullopt, "inconclusive", ""};
    const auto it = metrics.find(p.name);
    if (it == metrics.end()) {
        r.note = "not measured in this run";
        return r;
    }
    r.measured_low = it->second.low, r.measured_high = it->second.high;
    if (!it->second.low || !it->second.high) {
        r.note = "no 99% interval (fewer than 3 runs)";
        return r;
    }
    if (*r.measured_low >= p.low && *r.measured_high <= p.high)
        r.verdict = "pass";
    else if (*r.measured_high < p.low || *r.measured_low > p.high)
        r.verdict = "fail";
    else
        r.note = "the interval straddles the range";
    return r;
}

std::vector<std::string> check_thresholds(const std::vector<Threshold>& thresholds,
                                          const std::map<std::string, Metric>& metrics) {
    std::vector<std::string> failures;
    for (const Threshold& t : thresholds) {
        const auto it = metrics.find(t.metric);
        if (it == metrics.end()) {
            failures.push_back("threshold " + t.metric + ": not measured");
            continue;
        }
        const double v = it->second.value;
        if (t.min && v < *t.min)
            failures.push_back("threshold " + t.metric + ": " + fixed(v, 3) + " is below the minimum " + fixed(*t.min, 3));
        if (t.max && v > *t.max)
            failures.push_back("threshold " + t.metric + ": " + fixed(v, 3) + " is above the maximum " + fixed(*t.max, 3));
    }
    return failures;
}

}  // namespace measure
