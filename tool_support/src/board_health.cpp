#include "tool_support/board_health.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>

#include "base/format.hpp"
#include "base/json_text.hpp"
#include "base/option_error.hpp"
#include "sensors/open_sensors.hpp"

namespace po = boost::program_options;

namespace tool_support {
namespace {

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0 || !*name)
        return "unknown";
    return name;
}

pdt::Result<std::optional<double>> parse_max_temperature(const std::string& text) {
    if (text.empty())
        return std::optional<double>();
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (errno || *end || end == text.c_str() || !std::isfinite(value) || value < 0 || value > 150)
        return pdt::option_error("max_temperature", text, "a temperature in degrees C, 0..150");
    return std::optional<double>(value);
}

// The row label's first word is the PCI address; the rest names the channel.
std::pair<std::string, std::string> split_label(const std::string& label) {
    const size_t space = label.find(' ');
    if (space == std::string::npos)
        return {label, ""};
    return {label.substr(0, space), label.substr(space + 1)};
}

const char* sensor_family(streams::SensorUnit unit) {
    switch (unit) {
    case streams::SensorUnit::Celsius: return "pdt_sensor_celsius";
    case streams::SensorUnit::Volts: return "pdt_sensor_volts";
    case streams::SensorUnit::Amperes: return "pdt_sensor_amperes";
    case streams::SensorUnit::Watts: return "pdt_sensor_watts";
    }
    return "pdt_sensor";
}

}  // namespace

void add_board_health_options(po::options_description& description, BoardHealthCli& cli) {
    description.add_options()
        ("max_temperature", po::value(&cli.max_temperature),
         "stop with FAIL when a sensor of a design under test reads above this temperature (degrees C)")
        ("metrics", po::value(&cli.metrics),
         "write the run's figures and sensors in Prometheus text format: FILE (atomically, for node_exporter's "
         "textfile collector; name it *.prom) or http://HOST:PORT (push to a Pushgateway)");
}

pdt::Result<std::unique_ptr<BoardHealth>> BoardHealth::open(const BoardHealthCli& cli, const std::string& tool,
                                                            const std::vector<DesignUnderTest>& targets, std::FILE* out,
                                                            bool json) {
    sensors::HealthWatch::Options options;
    options.max_temperature_c = PDT_TRY(parse_max_temperature(cli.max_temperature));
    std::unique_ptr<BoardHealth> health(new BoardHealth);
    health->m_tool = tool;
    health->m_host = host_name();
    if (!cli.metrics.empty())
        health->m_publisher = PDT_TRY(metrics::open_publisher(cli.metrics, tool, health->m_host));
    std::vector<sensors::WatchedDesign> watched;
    for (const DesignUnderTest& target : targets) {
        const std::string address = target.identity.address.to_string();
        health->m_designs.emplace_back(address, target.design->name);
        auto blocks = PDT_TRY(sensors::open_sensor_blocks(*target.device, *target.design, target.identity.revision));
        watched.push_back({address, target.design->name, std::move(blocks)});
    }
    auto print = [out, json](const sensors::WatchEvent& event) {
        const std::string text = cli::name_options(event.text);  // the temperature limit's option
        if (json)
            std::fprintf(out, "{\"type\":\"sensor_event\",\"pci_address\":%s,\"text\":%s,\"failure\":%s}\n",
                         pdt::json_quote(event.address).c_str(), pdt::json_quote(text).c_str(),
                         event.failure ? "true" : "false");
        else if (event.failure)
            std::fprintf(out, "Error: %s\n", text.c_str());
        else
            std::fprintf(out, "Sensors: %s %s\n", event.address.c_str(), text.c_str());
        std::fflush(out);
    };
    health->m_watch = std::make_unique<sensors::HealthWatch>(std::move(watched), options, print);
    return health;
}

BoardHealth::~BoardHealth() { stop(); }

void BoardHealth::start() { m_watch->start(); }
void BoardHealth::stop() {
    if (m_watch)
        m_watch->stop();
}

std::string BoardHealth::beside(const std::string& label) const {
    const auto temperature = m_watch->temperature(split_label(label).first);
    return temperature ? "; " + sensors::temperature_text(*temperature) : "";
}

std::string BoardHealth::json_beside(const std::string& label) const {
    const auto temperature = m_watch->temperature(split_label(label).first);
    return temperature ? sensors::temperature_json_fields(*temperature) : "";
}

std::string BoardHealth::exposition(const std::vector<RowMetrics>& rows, bool passing, bool finished) const {
    std::map<std::string, std::string> design_of(m_designs.begin(), m_designs.end());
    auto run_labels = [&](const std::string& address) {
        return metrics::Labels{{"host", m_host}, {"tool", m_tool}, {"design", design_of[address]}, {"pci_address", address}};
    };
    metrics::Family verified{"pdt_verified_bytes_total", "Bytes whose content was verified so far", metrics::Type::Counter, {}};
    metrics::Family rate{"pdt_transfer_rate_bytes_per_second", "Bytes per second moved in the last report interval (over the whole run in the last write)", metrics::Type::Gauge, {}};
    metrics::Family errors{"pdt_errors_total", "Failures of the row so far (data errors, timeouts)", metrics::Type::Counter, {}};
    for (const RowMetrics& row : rows) {
        const auto [address, channel] = split_label(row.label);
        metrics::Labels labels = run_labels(address);
        labels.emplace_back("channel", channel);
        verified.samples.push_back({labels, static_cast<double>(row.verified_bytes)});
        rate.samples.push_back({labels, row.bytes_per_second});
        errors.samples.push_back({labels, static_cast<double>(row.errors)});
    }
    metrics::Family verdict{"pdt_verdict_pass", "1 while the run passes so far, 0 once it failed", metrics::Type::Gauge, {}};
    metrics::Family reported{"pdt_last_report_timestamp_seconds", "Unix time of the run's last metrics write",
                             metrics::Type::Gauge, {}};
    metrics::Family ended{"pdt_run_finished", "1 once the run has ended (its last write), 0 while it runs",
                          metrics::Type::Gauge, {}};
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (const auto& [address, design] : m_designs) {
        verdict.samples.push_back({run_labels(address), passing ? 1.0 : 0.0});
        reported.samples.push_back({run_labels(address), std::floor(now)});
        ended.samples.push_back({run_labels(address), finished ? 1.0 : 0.0});
    }
    std::map<std::string, metrics::Family> sensor_families;
    for (const sensors::BlockSnapshot& block : m_watch->snapshot()) {
        if (!block.sample)
            continue;
        for (const streams::SensorReading& reading : block.sample->readings) {
            if (!reading.value)
                continue;  // unreadable: no sample rather than a made-up value
            metrics::Family& family = sensor_families[sensor_family(reading.unit)];
            family.name = sensor_family(reading.unit);
            family.help = std::string("Sensor reading in ") + streams::unit_name(reading.unit);
            const metrics::Labels labels{{"host", m_host}, {"design", block.design}, {"pci_address", block.address},
                                         {"block", block.kind + " " + block.location}, {"sensor", reading.name}};
            family.samples.push_back({labels, *reading.value});
            if (!reading.average)
                continue;
            // Beside it, the block's own average (a CMS's AVG), where it keeps one.
            const std::string average_name = std::string("pdt_sensor_average_") + streams::unit_name(reading.unit);
            metrics::Family& averages = sensor_families[average_name];
            averages.name = average_name;
            averages.help = std::string("The sensor block's own average of its readings in ") +
                            streams::unit_name(reading.unit);
            averages.samples.push_back({labels, *reading.average});
        }
    }
    std::vector<metrics::Family> families{verified, rate, errors, verdict, reported, ended};
    for (auto& [name, family] : sensor_families)
        families.push_back(std::move(family));
    return metrics::exposition_text(families);
}

void BoardHealth::publish(const std::vector<RowMetrics>& rows, bool passing, bool finished) {
    if (!m_publisher)
        return;
    const auto written = m_publisher->publish(exposition(rows, passing, finished));
    if (!written && !m_publish_failed) {
        std::cerr << "Warning: --metrics " << m_publisher->target() << ": " << written.error().message()
                  << " (the run goes on; later failures are not reported)\n";
        m_publish_failed = true;
    }
}

}  // namespace tool_support
