// The statistics the report's merge needs: a mean with its 99% Student-t interval (seed 000's
// method: the mean of the runs' medians) and percentiles of pooled latency samples.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "measure/report.hpp"

namespace measure::report {

double t_quantile_995(size_t dof) {
    // Two-sided 99%: the 0.995 quantile of Student's t, for 1..30 degrees of freedom, then 40,
    // 60, 120 and the normal limit. Between table rows the lower row is taken (a wider interval).
    static constexpr double kTable[] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
                                        3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
                                        2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750};
    if (dof == 0)
        return std::numeric_limits<double>::infinity();
    if (dof <= 30)
        return kTable[dof - 1];
    if (dof < 60)
        return 2.704;
    if (dof < 120)
        return 2.660;
    return dof < 1000 ? 2.617 : 2.576;
}

Interval mean_ci99(const std::vector<double>& values) {
    Interval out;
    out.n = values.size();
    if (values.empty())
        return out;
    out.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    out.low = out.high = out.mean;
    if (values.size() < kMinIntervalRuns)
        return out;
    double squares = 0;
    for (double v : values)
        squares += (v - out.mean) * (v - out.mean);
    const double n = static_cast<double>(values.size());
    const double half = t_quantile_995(values.size() - 1) * std::sqrt(squares / (n - 1)) / std::sqrt(n);
    out.low = std::max(0.0, out.mean - half);  // rates and ratios are >= 0
    out.high = out.mean + half;
    out.has_interval = true;
    return out;
}

double percentile(const std::vector<double>& sorted, double q) {
    if (sorted.empty())
        return std::numeric_limits<double>::quiet_NaN();
    const double rank = q * static_cast<double>(sorted.size() - 1);
    const size_t below = static_cast<size_t>(std::floor(rank));
    if (below + 1 >= sorted.size())
        return sorted.back();
    return sorted[below] + (rank - static_cast<double>(below)) * (sorted[below + 1] - sorted[below]);
}

}  // namespace measure::report
