// What the tool derives from measured figures: the link proof (seed 003: the measured rate is
// itself proof of the trained link), the tokens/s ceiling (seed 003, section 4), the metrics a
// prediction or a campaign threshold names, and the predictions' verdicts (seed 000, section 6).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "measure/results.hpp"

namespace measure {

// Usable rate per direction of PCIe generation `gen` (1..6) on `width` lanes, GB/s: the lane
// rate after line encoding, as the table of shared/reference/pcie_link.md section 1:
// Gen1 2.5 GT/s and Gen2 5 GT/s with 8b/10b, Gen3 8, Gen4 16 and Gen5 32 GT/s with 128b/130b,
// Gen6 64 GT/s with FLIT 242/256. TLP and DLLP overhead (another 8-20 %) is not subtracted, so
// the proof is conservative: a link whose encoded rate is below the measured rate cannot have
// carried it.
double usable_gbps(unsigned gen, unsigned width);
// The lowest generation at each width (x1 x2 x4 x8 x16) whose usable rate carries `gbps`, and
// the lowest overall: the lowest generation at `trained_width` when it is known (LnkSta, as seed
// 003: 6.7 GB/s on x4 needs Gen4), else the lowest generation at any width, at its fewest lanes.
LinkProof prove_link(double gbps, unsigned trained_width, const std::string& lnksta_under_load);

// tokens/s = H2D rate / active bytes per token; with a resident fraction r, / (1 - r); the
// compute-in-host-RAM alternative at host RAM bandwidth / active bytes per token.
pdt::Result<CeilingResult> compute_ceiling(double h2d_gbps, const CeilingInputs& inputs, double measured_memcpy_gbps);

// A measured figure by name: the 99% interval for a mean of runs, [v, v] for a single figure.
struct Metric {
    double value = 0;
    std::optional<double> low, high;
};
std::map<std::string, Metric> collect_metrics(const RunResult& result);

// A predictions file: {"predictions": [{"name": "<metric>", "low": 5.0, "high": 7.0}, ...]}.
struct Prediction {
    std::string name;
    double low = 0, high = 0;
};
pdt::Result<std::vector<Prediction>> parse_predictions(const std::string& text, const std::string& file);
// pass: the interval lies inside [low, high]; fail: wholly outside; else inconclusive (also
// when the metric was not measured, or has no interval).
PredictionResult judge(const Prediction& prediction, const std::map<std::string, Metric>& metrics);

// Campaign thresholds on the measured value; a failure message per threshold crossed.
std::vector<std::string> check_thresholds(const std::vector<struct Threshold>& thresholds,
                                          const std::map<std::string, Metric>& metrics);

}  // namespace measure
