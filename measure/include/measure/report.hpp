// The link report (namespace measure::report): reads result files of pcie_link_measure (schema
// pcie_link_measure/1, measure/README.md), merges the runs of several cards and hosts, and renders
// one self-contained HTML page: a line per card, bandwidth-vs-size and latency CDF plots (SVG
// made by gnuplot, run as a child process, inlined), the predictions, each run's context and the
// warnings. A run whose verdict is FAIL contributes no rate anywhere: its data check failed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace measure::report {

// ---- One result file, as read (report_input.cpp) ----

struct LinkState {
    std::string speed;  // "32GT/s"; empty when not read
    int width = 0;
    std::string text;   // the LnkSta line
};

struct SweepPoint {
    std::string direction;  // H2C | C2H
    std::string path;       // direct | staged
    uint64_t bytes = 0;
    std::vector<double> run_medians_gbps;
};

struct ModelPoint {
    std::string direction;
    uint64_t bytes = 0;
    double model_gbps = 0;
};

struct LatencyMode {
    std::string direction;  // H2C | C2H; empty when the file does not say
    std::string mode;       // back_to_back | idle_gap
    std::vector<double> samples_us;
};

struct Prediction {
    std::string name;
    double low = 0, high = 0, measured_low = 0, measured_high = 0;  // NaN: not given (null)
    std::string verdict;  // pass | fail | inconclusive
};

// access (pcie-bench): one point as the file gives it.
struct AccessSample {
    std::string direction;
    uint64_t bytes = 0, window = 0;
    std::string offset;  // "0", "63", or "0-63" (the transfers spread over the offsets)
    std::string pattern, cache, memory;
    double gbps = 0;
};

// A figure of the file with its 99% interval (NaN where the file gives null).
struct Figure {
    double mean = 0, low = 0, high = 0;
};

// inflight: one size and direction; a way the endpoint could not do is absent (present false).
struct InflightRow {
    std::string direction;
    uint64_t bytes = 0;
    Figure one_at_a_time_gbps, two_in_one_queue_ratio, one_in_each_of_two_queues_ratio;
    bool has_one_queue = false, has_two_queues = false;
};

// bidir: each direction alone and both at once, and the sum.
struct BidirFigures {
    uint64_t bytes = 0;
    Figure h2c_alone, c2h_alone, h2c_both, c2h_both, sum_both;
};

struct Run {
    std::string file;  // the path it was read from
    std::string command, started_utc;
    double duration_s = 0;
    std::string hostname, cpu, kernel, kernel_cmdline, iommu_mode;
    int64_t cores = 0, iommu_page_size = 0, numa_node = -1;
    std::string adapter, name, pci_address;
    LinkState before, under_load, after;
    bool link_changed = false;
    std::string verdict;  // PASS | PASS WITH WARNINGS | FAIL | SKIPPED
    std::vector<std::string> warnings, failures, skipped;
    uint64_t bytes_verified = 0;
    std::vector<SweepPoint> sweep;
    std::vector<ModelPoint> staged_model;
    double memcpy_gbps = 0;
    double reference_spread = 0;  // the sweep's host reference, (max - min) / median between runs
    bool disturbed = false;       // that spread passed the sweep's bound
    std::vector<LatencyMode> latency;
    std::vector<AccessSample> access;
    std::vector<InflightRow> inflight;
    std::vector<BidirFigures> bidir;  // none or one
    std::string predictions_file, predictions_sha256;
    std::vector<Prediction> predictions;
    std::string link_proof;  // "Gen4 x4"; empty when absent
};

// Parses one result file's text; errors name the file and the field ("sweep.points[3].bytes").
pdt::Result<Run> parse_run(std::string_view text, const std::string& file);
// Reads and parses a file; a directory contributes every *.json in it (sorted).
pdt::Result<std::vector<Run>> load_runs(const std::vector<std::string>& paths);

// ---- Statistics of the merge (report_stats.cpp) ----

// The fewest runs a 99% interval is given from (with 2, t_0.995(1) = 63.657 gives bounds such
// as "-35.06 .. 57.00" GB/s that mean nothing).
inline constexpr size_t kMinIntervalRuns = 3;

// Mean with a two-sided 99% Student-t interval, its lower bound clamped at 0; below
// kMinIntervalRuns values low == high == mean and no interval (has_interval false); n == 0 is
// empty.
struct Interval {
    double mean = 0, low = 0, high = 0;
    size_t n = 0;
    bool has_interval = false;
};
Interval mean_ci99(const std::vector<double>& values);
// The 0.995 quantile of Student's t with `dof` degrees of freedom (dof >= 1).
double t_quantile_995(size_t dof);
// Percentile q in [0, 1] of sorted values, linear between closest ranks; NaN when empty.
double percentile(const std::vector<double>& sorted, double q);

// ---- The merge (report_merge.cpp) ----

struct CurvePoint {
    uint64_t bytes = 0;
    Interval gbps;  // over every run median of the card at this size
};
struct Curve {
    std::string direction, path;
    std::vector<CurvePoint> points;  // ascending bytes
};
struct ModelCurve {
    std::string direction;
    std::vector<std::pair<uint64_t, double>> points;  // bytes, mean model GB/s over the runs
};
struct CardLatency {
    std::string direction;  // may be empty
    std::string mode;
    std::vector<double> sorted_us;  // every sample of every run of the card
    double p50_us = 0, p99_us = 0;
};

// access of a card: one line per direction, window and pattern; at each transfer size the mean
// rate over its runs, offsets, caches and buffer kinds.
struct AccessCurve {
    std::string direction, pattern;
    uint64_t window = 0;
    std::vector<std::pair<uint64_t, double>> points;  // bytes, GB/s; ascending bytes
};
// A figure over a card's runs: the mean of the runs' means with a 99% interval; one run: its
// own interval from the file.
struct CardInflight {
    std::string direction;
    uint64_t bytes = 0;
    Interval one_at_a_time_gbps, two_in_one_queue_ratio, one_in_each_of_two_queues_ratio;  // n 0: absent
};
struct CardBidir {
    uint64_t bytes = 0;
    Interval h2c_alone, c2h_alone, h2c_both, c2h_both, sum_both;
};

struct Card {
    std::string tag;  // "C1", "C2" ... in order of first appearance; labels the plots
    std::string adapter, name, pci_address, hostname;
    std::string link;     // "32GT/s x16" under load; "varies" when runs differ
    std::string verdict;  // the worst of its runs: FAIL > SKIPPED (all) > PASS WITH WARNINGS > PASS
    std::vector<size_t> runs;  // indices into Report::runs
    size_t failed_runs = 0;
    uint64_t bytes_verified = 0;
    // Empty when the card FAILed: a failed check reports no rate.
    std::vector<Curve> curves;
    std::vector<ModelCurve> model;
    std::map<std::string, Interval> large_copy;  // "H2C/direct" -> the largest size's interval
    // "H2C/direct" -> the smallest sizes whose mean reaches half and 90% of the large-copy rate
    std::map<std::string, std::pair<uint64_t, uint64_t>> reach;
    std::vector<CardLatency> latency;
    std::vector<AccessCurve> access;
    std::vector<CardInflight> inflight;
    std::vector<CardBidir> bidir;
    bool rates_shown() const { return verdict != "FAIL"; }
};

struct Report {
    std::vector<Run> runs;
    std::vector<Card> cards;
    std::vector<std::string> warnings;  // the runs' own warnings and failures, and the merge's
};

// Groups runs into cards (adapter, name, PCI address and host) and pools their samples.
Report merge(std::vector<Run> runs);
// The access, inflight and bidir figures of a card's runs (report_sections.cpp; used by merge).
void pool_sections(Card& card, const std::vector<const Run*>& runs);

// ---- Plots (report_plots.cpp) ----

struct Plot {
    std::string id;     // "bandwidth-H2C", "latency-idle_gap"
    std::string title;
    std::vector<std::string> curve_titles;  // as in the key, in plot order
    std::string svg;    // the <svg> element, without XML prolog
};

// Runs gnuplot on a script and returns what it printed on stdout (SVG); an error carries
// gnuplot's stderr. A test may pass another function.
using Plotter = std::function<pdt::Result<std::string>(const std::string& script)>;
Plotter gnuplot_plotter(const std::string& gnuplot_path = "gnuplot");

// The gnuplot scripts (exposed for tests) and the plots made from them.
std::string bandwidth_script(const Report& report, const std::string& direction, std::vector<std::string>& titles);
std::string latency_script(const Report& report, const std::string& mode, std::vector<std::string>& titles);
// One card's access lines in one direction (empty when it has none).
std::string access_script(const Card& card, const std::string& direction, std::vector<std::string>& titles);
pdt::Result<std::vector<Plot>> make_plots(const Report& report, const Plotter& plotter);

// ---- HTML (report_html.cpp) ----

std::string html_escape(std::string_view text);
// A gnuplot single-quoted string literal of text, with what the plot must not show replaced.
std::string gnuplot_quote(std::string_view text);
// "4 KiB", "256 MiB", "3 B".
std::string format_bytes(uint64_t bytes);
std::string render_html(const Report& report, const std::vector<Plot>& plots, const std::string& title);
// The inflight (ratios) and bidir (each direction and the sum) tables; empty when no card has them.
std::string inflight_table(const Report& report);
std::string bidir_table(const Report& report);
// "1.23 [1.20, 1.26]", "1.23 (1 run, no interval)", "1.23 (2 runs, no interval)", "-".
std::string interval_text(const Interval& value, int decimals = 2);

}  // namespace measure::report
