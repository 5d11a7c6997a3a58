// DDM unit conversions and SFF-8472's external calibration.
#include "optical/diagnostics.hpp"

#include <cmath>
#include <limits>

namespace optical {

double milliwatts_to_dbm(double milliwatts) {
    return 10.0 * std::log10(milliwatts);
}

double OpticalPower::dbm() const {
    return milliwatts_to_dbm(milliwatts());
}

namespace {

// Truncated toward zero (as the document's integer result) and held to T's range.
template <typename T>
T held_to_range(double value) {
    if (std::isnan(value))
        return 0;
    if (value <= static_cast<double>(std::numeric_limits<T>::min()))
        return std::numeric_limits<T>::min();
    if (value >= static_cast<double>(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
    return static_cast<T>(std::trunc(value));
}

}  // namespace

int16_t calibrate(const LinearCalibration& cal, int16_t reading) {
    return held_to_range<int16_t>(cal.slope * reading + cal.offset);
}

uint16_t calibrate(const LinearCalibration& cal, uint16_t reading) {
    return held_to_range<uint16_t>(cal.slope * reading + cal.offset);
}

uint16_t calibrate(const RxPowerCalibration& cal, uint16_t reading) {
    double power = 0.0;
    for (int order = 4; order >= 0; --order)
        power = power * reading + static_cast<double>(cal.coefficient[order]);
    return held_to_range<uint16_t>(power);
}

}  // namespace optical
