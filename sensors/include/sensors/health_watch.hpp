// Board health beside a soak: samples the sensor blocks of each design under test at an
// interval on its own thread, keeps each design's temperature (the hottest reading now, and
// the hottest seen since the watch started), reports alarms as they are raised and cleared,
// and trips when a temperature crosses the user's limit (--max_temperature), naming the sensor.
// The tools print the temperature beside each rate line and stop on a trip with exit 1.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "streams/sensor_block.hpp"

namespace sensors {

struct WatchedDesign {
    std::string address;  // "0000:15:00.0": the prefix of the design's rate-line labels
    std::string design;   // the design's name
    std::vector<std::unique_ptr<streams::SensorBlock>> blocks;
};

struct WatchEvent {
    std::string address;
    std::string text;      // "XADC at bar 0 offset 0x3000: alarm OT (over-temperature) raised"
    bool failure = false;  // a trip of the temperature limit
};

struct DesignTemperature {
    double celsius = 0;      // the hottest readable temperature of the design's blocks now
    std::string sensor;      // which: "SYSMON SLR1 temperature"
    double max_celsius = 0;  // the hottest seen since the watch started
    std::string max_sensor;
};

struct BlockSnapshot {
    std::string address;
    std::string design;
    std::string kind;      // SensorBlock::kind()
    std::string location;  // SensorBlock::location()
    std::optional<streams::SensorSample> sample;  // the latest; nullopt when it could not be read
    std::string error;                            // why, when it could not
};

class HealthWatch {
public:
    struct Options {
        std::optional<double> max_temperature_c;  // --max_temperature; nullopt: no limit
        std::chrono::milliseconds interval{1000};
    };
    // Receives events from sample_now()'s caller: the watch thread, or start()'s caller for the
    // first sample.
    using EventSink = std::function<void(const WatchEvent&)>;

    HealthWatch(std::vector<WatchedDesign> designs, Options options, EventSink sink);
    ~HealthWatch();
    HealthWatch(const HealthWatch&) = delete;
    HealthWatch& operator=(const HealthWatch&) = delete;

    // Samples once now, then on a thread every interval until stop().
    void start();
    void stop();
    // Samples every block once (the display tools, and tests, call it without a thread).
    void sample_now();

    bool has_sensors() const;
    std::optional<DesignTemperature> temperature(const std::string& address) const;
    std::vector<BlockSnapshot> snapshot() const;
    // Set once a temperature crossed the limit; trip_reason() names the sensor and the figures.
    const std::atomic<bool>& tripped() const { return m_tripped; }
    std::string trip_reason() const;

private:
    struct BlockState {
        std::optional<streams::SensorSample> sample;
        std::string error;
        std::vector<std::string> active_alarms;
    };
    void sample_design(size_t index, std::vector<WatchEvent>& events);
    void run(std::stop_token stop);

    std::vector<WatchedDesign> m_designs;
    Options m_options;
    EventSink m_sink;
    mutable std::mutex m_mutex;  // the state below
    std::vector<std::vector<BlockState>> m_states;
    std::map<std::string, DesignTemperature> m_temperatures;
    std::string m_trip_reason;
    std::atomic<bool> m_tripped{false};
    std::mutex m_sample_mutex;  // one sampling pass at a time (blocks are single-threaded)
    std::mutex m_thread_mutex;
    std::condition_variable_any m_wake;
    std::jthread m_thread;  // the sampling thread; stop() asks it to stop and joins it
};

// "Temperature 41.2 C (max 43.0 C)": the text the tools print beside a rate line.
std::string temperature_text(const DesignTemperature& temperature);
// ',"temperature_c":41.2,"max_temperature_c":43.0,"temperature_sensor":"..."': the JSON fields.
std::string temperature_json_fields(const DesignTemperature& temperature);

}  // namespace sensors
