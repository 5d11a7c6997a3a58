#include "sim/die_thermal.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "base/format.hpp"
#include "model_support.hpp"

namespace sim {
namespace {

using model_support::steady_seconds;

pdt::Result<double> parse_number(const std::string& text, const std::string& whole, double low, double high,
                                 const char* what) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || errno || *end || !std::isfinite(value) || value < low || value > high)
        return pdt::usage_error("parse temperature curve", whole,
                                pdt::format("'%s' is not a %s in %g..%g (syntax: T or T0,T1@S1,T2@S2,...)", text.c_str(),
                                            what, low, high));
    return value;
}

}  // namespace

double TemperatureCurve::at(double seconds) const {
    if (points.empty())
        return 38.0;
    if (seconds <= points.front().first)
        return points.front().second;
    for (size_t i = 1; i < points.size(); ++i) {
        const auto& [t0, c0] = points[i - 1];
        const auto& [t1, c1] = points[i];
        if (seconds <= t1)
            return c0 + (c1 - c0) * (seconds - t0) / (t1 - t0);
    }
    return points.back().second;
}

pdt::Result<TemperatureCurve> TemperatureCurve::parse(const std::string& text) {
    TemperatureCurve curve;
    curve.points.clear();
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, comma - start);
        const size_t at = part.find('@');
        const double celsius = PDT_TRY(parse_number(part.substr(0, at), text, -60, 200, "temperature in C"));
        double seconds = 0;
        if (at != std::string::npos) {
            std::string time = part.substr(at + 1);
            if (!time.empty() && time.back() == 's')
                time.pop_back();
            seconds = PDT_TRY(parse_number(time, text, 0, 1e9, "time in seconds"));
        } else if (!curve.points.empty()) {
            return pdt::usage_error("parse temperature curve", text,
                                    "'" + part + "' has no time: every point after the first is T@seconds");
        }
        if (!curve.points.empty() && seconds <= curve.points.back().first)
            return pdt::usage_error("parse temperature curve", text, "'" + part + "': times must increase");
        curve.points.emplace_back(seconds, celsius);
        start = comma + 1;
    }
    return curve;
}

pdt::Result<TemperatureCurve> TemperatureCurve::from_environment() {
    const char* text = std::getenv(kTemperatureEnvironmentVariable);
    if (!text || !*text)
        return TemperatureCurve{};
    auto curve = parse(text);
    if (!curve)
        return pdt::usage_error("read " + std::string(kTemperatureEnvironmentVariable), text,
                                curve.error().hint);
    return curve;
}

DieThermal::DieThermal(TemperatureCurve curve, std::shared_ptr<const std::atomic<uint64_t>> dma_bytes, Clock clock)
    : m_curve(std::move(curve)), m_dma_bytes(std::move(dma_bytes)), m_clock(clock ? std::move(clock) : steady_seconds) {
    m_start = m_last = m_clock();
    m_last_bytes = m_dma_bytes ? m_dma_bytes->load() : 0;
}

void DieThermal::update_locked() {
    const double now = m_clock();
    const double elapsed = now - m_last;
    if (elapsed <= 0)
        return;
    const uint64_t bytes = m_dma_bytes ? m_dma_bytes->load() : 0;
    const double rate = static_cast<double>(bytes - m_last_bytes) / elapsed;
    const double target = std::min(1.0, rate / kFullLoadBytesPerSecond);
    // First-order lag: the die warms and cools with a time constant, not at once.
    const double keep = std::exp(-elapsed / kRiseTimeConstantS);
    m_load = target + (m_load - target) * keep;
    m_last = now;
    m_last_bytes = bytes;
}

double DieThermal::temperature_c() {
    std::lock_guard lock(m_mutex);
    update_locked();
    return m_curve.at(m_last - m_start) + kFullLoadRiseC * m_load;
}

void DieThermal::attach_activity(std::shared_ptr<const std::atomic<uint64_t>> dma_bytes) {
    std::lock_guard lock(m_mutex);
    update_locked();  // the lag up to now follows the old counter
    m_dma_bytes = std::move(dma_bytes);
    m_last_bytes = m_dma_bytes ? m_dma_bytes->load() : 0;
}

double DieThermal::load() {
    std::lock_guard lock(m_mutex);
    update_locked();
    return m_load;
}

}  // namespace sim
