// The die of a simulated card as its sensor-block models see it (XADC, SYSMON, CMS): a
// temperature that follows a settable curve over time plus a rise that follows the DMA load
// with a lag, and a load figure the supply and current models droop or rise with. A soak on a
// simulated design so shows its temperature moving, and a test can drive it over a limit.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace sim {

// Test and demo knob: the temperature curve every simulated design of the process follows,
// in TemperatureCurve::parse's syntax ("95" or "40,95@30s").
inline constexpr const char* kTemperatureEnvironmentVariable = "PDT_SIM_TEMPERATURE";

// Degrees C over time: (seconds since the instance was created, C) points in time order,
// linear between them, the last one held. Default: an idle die at 38 C.
struct TemperatureCurve {
    std::vector<std::pair<double, double>> points{{0.0, 38.0}};
    double at(double seconds) const;
    // "T" (constant) or "T0,T1@S1,T2@S2,..." (T0 at 0 s, T1 at S1 seconds, ...; "s" optional).
    // Each T within -60..200 C and times increasing; a usage error naming the bad part otherwise.
    static pdt::Result<TemperatureCurve> parse(const std::string& text);
    // The curve of PDT_SIM_TEMPERATURE when set (an error when it does not parse), else the default.
    static pdt::Result<TemperatureCurve> from_environment();
};

class DieThermal {
public:
    // Full load: the DMA rate (bytes per second, both directions together) at which load() is 1.
    static constexpr double kFullLoadBytesPerSecond = 4e9;
    // Degrees the die rises above the curve at full load, and the lag of that rise (seconds).
    static constexpr double kFullLoadRiseC = 12.0;
    static constexpr double kRiseTimeConstantS = 5.0;

    using Clock = std::function<double()>;  // seconds, monotonic
    // dma_bytes: the device's count of bytes moved by DMA (SimDevice::dma_activity()), null for
    // a die without load. clock: steady_clock by default (tests step their own).
    DieThermal(TemperatureCurve curve, std::shared_ptr<const std::atomic<uint64_t>> dma_bytes, Clock clock = {});

    double temperature_c();
    double load();  // 0..1, the lagged DMA load

    // Attaches the device's DMA byte count once the device exists (the sensor models are built
    // before the SimDevice that counts): the load follows it from now on, the lag already built
    // up kept. Thread safe, like the readings.
    void attach_activity(std::shared_ptr<const std::atomic<uint64_t>> dma_bytes);

private:
    void update_locked();

    std::mutex m_mutex;
    TemperatureCurve m_curve;
    std::shared_ptr<const std::atomic<uint64_t>> m_dma_bytes;
    Clock m_clock;
    double m_start = 0;
    double m_last = 0;
    uint64_t m_last_bytes = 0;
    double m_load = 0;  // lagged
};

}  // namespace sim
