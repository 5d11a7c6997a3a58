#include "sensors/health_watch.hpp"

#include <algorithm>

#include "base/format.hpp"
#include "base/json_text.hpp"

namespace sensors {
namespace {

// The alarms active in a sample: the block-wide ones, then "<reading> alarm" for each reading.
std::vector<std::string> active_alarms(const streams::SensorSample& sample) {
    std::vector<std::string> alarms = sample.alarms;
    for (const streams::SensorReading& reading : sample.readings)
        if (reading.alarm)
            alarms.push_back(reading.name + " alarm");
    return alarms;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

std::string block_name(const streams::SensorBlock& block) { return block.kind() + " at " + block.location(); }

}  // namespace

HealthWatch::HealthWatch(std::vector<WatchedDesign> designs, Options options, EventSink sink)
    : m_designs(std::move(designs)), m_options(options), m_sink(std::move(sink)) {
    for (const WatchedDesign& design : m_designs)
        m_states.emplace_back(design.blocks.size());
}

HealthWatch::~HealthWatch() { stop(); }

bool HealthWatch::has_sensors() const {
    return std::any_of(m_designs.begin(), m_designs.end(), [](const WatchedDesign& d) { return !d.blocks.empty(); });
}

void HealthWatch::sample_design(size_t index, std::vector<WatchEvent>& events) {
    const WatchedDesign& design = m_designs[index];
    std::optional<DesignTemperature> hottest;
    for (size_t b = 0; b < design.blocks.size(); ++b) {
        streams::SensorBlock& block = *design.blocks[b];
        auto sample = block.sample();
        std::lock_guard lock(m_mutex);
        BlockState& state = m_states[index][b];
        if (!sample) {
            if (state.error.empty())
                events.push_back({design.address, block_name(block) + ": unreadable: " + sample.error().message()});
            state.error = sample.error().message();
            state.sample.reset();
            continue;
        }
        if (!state.error.empty())
            events.push_back({design.address, block_name(block) + ": readable again"});
        state.error.clear();
        const std::vector<std::string> alarms = active_alarms(*sample);
        for (const std::string& alarm : alarms)
            if (!contains(state.active_alarms, alarm))
                events.push_back({design.address, block_name(block) + ": alarm " + alarm + " raised"});
        for (const std::string& alarm : state.active_alarms)
            if (!contains(alarms, alarm))
                events.push_back({design.address, block_name(block) + ": alarm " + alarm + " cleared"});
        state.active_alarms = alarms;
        for (const streams::SensorReading& reading : sample->readings) {
            if (reading.unit != streams::SensorUnit::Celsius || !reading.value)
                continue;
            const std::string sensor = block.kind() + " " + reading.name;
            if (!hottest || *reading.value > hottest->celsius)
                hottest = DesignTemperature{*reading.value, sensor, *reading.value, sensor};
            if (m_options.max_temperature_c && *reading.value > *m_options.max_temperature_c && !m_tripped.load()) {
                m_trip_reason = pdt::format("%s %s: %s %s %.1f C is over the temperature limit of %g C",
                                            design.address.c_str(), design.design.c_str(), block_name(block).c_str(),
                                            reading.name.c_str(), *reading.value, *m_options.max_temperature_c);
                m_tripped.store(true);
                events.push_back({design.address, m_trip_reason, true});
            }
        }
        state.sample = std::move(*sample);
    }
    if (!hottest)
        return;
    std::lock_guard lock(m_mutex);
    auto [it, first] = m_temperatures.emplace(design.address, *hottest);
    if (!first) {
        DesignTemperature& kept = it->second;
        kept.celsius = hottest->celsius;
        kept.sensor = hottest->sensor;
        if (hottest->celsius > kept.max_celsius) {
            kept.max_celsius = hottest->celsius;
            kept.max_sensor = hottest->sensor;
        }
    }
}

void HealthWatch::sample_now() {
    std::vector<WatchEvent> events;
    {
        std::lock_guard sampling(m_sample_mutex);
        for (size_t i = 0; i < m_designs.size(); ++i)
            sample_design(i, events);
    }
    if (m_sink)
        for (const WatchEvent& event : events)
            m_sink(event);
}

void HealthWatch::start() {
    if (!has_sensors() || m_thread.joinable())
        return;
    sample_now();
    m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
}

void HealthWatch::run(std::stop_token stop) {
    std::unique_lock lock(m_thread_mutex);
    // Wakes at each interval, or at once when stop() asks.
    while (!m_wake.wait_for(lock, stop, m_options.interval, [] { return false; }) && !stop.stop_requested()) {
        lock.unlock();
        sample_now();
        lock.lock();
    }
}

void HealthWatch::stop() {
    m_thread.request_stop();
    if (m_thread.joinable())
        m_thread.join();
}

std::optional<DesignTemperature> HealthWatch::temperature(const std::string& address) const {
    std::lock_guard lock(m_mutex);
    const auto found = m_temperatures.find(address);
    if (found == m_temperatures.end())
        return std::nullopt;
    return found->second;
}

std::vector<BlockSnapshot> HealthWatch::snapshot() const {
    std::vector<BlockSnapshot> blocks;
    std::lock_guard lock(m_mutex);
    for (size_t i = 0; i < m_designs.size(); ++i)
        for (size_t b = 0; b < m_designs[i].blocks.size(); ++b) {
            const streams::SensorBlock& block = *m_designs[i].blocks[b];
            const BlockState& state = m_states[i][b];
            blocks.push_back({m_designs[i].address, m_designs[i].design, block.kind(), block.location(), state.sample,
                              state.error});
        }
    return blocks;
}

std::string HealthWatch::trip_reason() const {
    std::lock_guard lock(m_mutex);
    return m_trip_reason;
}

std::string temperature_text(const DesignTemperature& temperature) {
    return pdt::format("temperature %.1f C (max %.1f C)", temperature.celsius, temperature.max_celsius);
}

std::string temperature_json_fields(const DesignTemperature& temperature) {
    return pdt::format(",\"temperature_c\":%.1f,\"max_temperature_c\":%.1f,\"temperature_sensor\":", temperature.celsius,
                       temperature.max_celsius) +
           pdt::json_quote(temperature.sensor);
}

}  // namespace sensors
