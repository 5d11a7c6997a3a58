// The simulated die's temperature curve parser (PDT_SIM_TEMPERATURE, sim/die_thermal.hpp).
// Properties: an error is EINVAL naming the whole text; a curve that parses has points in
// increasing time within -60..200 C, and at() stays within its points' range.
#include <algorithm>
#include <cerrno>

#include "fuzz_support.hpp"
#include "sim/die_thermal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text = pdt_fuzz::text(data, size);
    const auto curve = sim::TemperatureCurve::parse(text);
    if (!curve) {
        PDT_FUZZ_CHECK(curve.error().code == EINVAL);
        return 0;
    }
    PDT_FUZZ_CHECK(!curve->points.empty());
    double low = curve->points.front().second, high = low;
    for (size_t i = 0; i < curve->points.size(); ++i) {
        const auto& [t, c] = curve->points[i];
        PDT_FUZZ_CHECK(c >= -60 && c <= 200);
        PDT_FUZZ_CHECK(i == 0 || t > curve->points[i - 1].first);
        low = std::min(low, c);
        high = std::max(high, c);
    }
    for (double t : {-1.0, 0.0, 0.5, 1.0, 10.0, 1e6, 2e9}) {
        const double c = curve->at(t);
        PDT_FUZZ_CHECK(c >= low - 1e-9 && c <= high + 1e-9);
    }
    return 0;
}
