#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>

namespace measure {

double median(std::vector<double> samples) { return percentile(std::move(samples), 50.0); }

double percentile(std::vector<double> samples, double p) {
    if (samples.empty())
        return 0;
    std::sort(samples.begin(), samples.end());
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(samples.size() - 1);
    const size_t below = static_cast<size_t>(std::floor(rank));
    const size_t above = std::min(below + 1, samples.size() - 1);
    const double fraction = rank - static_cast<double>(below);
    return samples[below] + (samples[above] - samples[below]) * fraction;
}

double student_t_99(unsigned df) {
    // t_0.995 for 1..30 degrees of freedom (standard tables).
    static const double table[30] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
                                     3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
                                     2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750};
    if (df == 0)
        return std::nan("");
    if (df <= 30)
        return table[df - 1];
    // Cornish-Fisher expansion around the normal quantile z_0.995 (error < 0.001 above 30 df).
    const double z = 2.5758293035489;
    const double n = df;
    return z + (z * z * z + z) / (4 * n) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

MeanInterval mean_ci99(const std::vector<double>& values) {
    MeanInterval out;
    out.count = static_cast<unsigned>(values.size());
    if (values.empty())
        return out;
    double sum = 0;
    for (double v : values)
        sum += v;
    out.mean = sum / values.size();
    if (values.size() < kMinIntervalCount)
        return out;
    double squares = 0;
    for (double v : values)
        squares += (v - out.mean) * (v - out.mean);
    const double sd = std::sqrt(squares / (values.size() - 1));
    const double half = student_t_99(out.count - 1) * sd / std::sqrt(static_cast<double>(values.size()));
    out.low = std::max(0.0, out.mean - half);  // every figure measured is >= 0
    out.high = out.mean + half;
    return out;
}

}  // namespace measure
