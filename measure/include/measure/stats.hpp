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

struct MeanInterval {
    double mean = 0;
    // The 99% interval of the mean, mean -/+ t_0.995(n-1) * s / sqrt(n); empty below 2 values.
    std::optional<double> low, high;
    unsigned count = 0;
};
MeanInterval mean_ci99(const std::vector<double>& values);

}  // namespace measure
