// Statistics of the link measurement suite (namespace measure): medians and percentiles of
// samples, and the mean of per-run medians with a 99% Student-t interval (seed 000's method:
// a card's value is the mean of its runs' medians).
#pragma once

#include <optional>
#include <vector>

namespace measure {

// The median of the samples (the mean of the middle two for an even count); 0 when empty.
double median(std::vector<double> samples);
// The p-th percentile (p in [0, 100]) by linear interpolation between order statistics
// (the "R-7" definition used by numpy and spreadsheets); 0 when empty.
double percentile(std::vector<double> samples, double p);

// The two-sided 99% quantile of Student's t with `df` degrees of freedom (t_0.995).
double student_t_99(unsigned df);

// The fewest values a 99% interval is given from: from 2, t_0.995(1) = 63.657 makes it a
// figure that means nothing (a lower bound of -35 GB/s for a mean of 11 GB/s).
inline constexpr unsigned kMinIntervalCount = 3;

struct MeanInterval {
    double mean = 0;
    // The 99% interval of the mean, mean -/+ t_0.995(n-1) * s / sqrt(n), the lower bound
    // clamped at 0 (every figure measured is a rate, a time or a ratio); empty below
    // kMinIntervalCount values: print the mean with its count alone ("(n=2, no interval)").
    std::optional<double> low, high;
    unsigned count = 0;
};
MeanInterval mean_ci99(const std::vector<double>& values);

}  // namespace measure
