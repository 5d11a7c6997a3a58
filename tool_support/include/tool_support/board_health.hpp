// Board health beside a soak, for every tool that moves data: the sensors of the designs under
// test watched on their own thread (sensors::HealthWatch), their temperature beside each rate
// line and in the JSON, a stop with exit 1 when a temperature crosses --max_temperature, alarms
// reported as they happen, and the run's figures for a lab's fleet in Prometheus's text format
// (--metrics FILE|URL: node_exporter's textfile collector, or a Pushgateway).
//
//   tool_support::BoardHealthCli health_cli;  add_board_health_options(options, health_cli);
//   auto health = BoardHealth::open(health_cli, "test_dma_bridge", targets, stdout, json);
//   if (!health) { print health.error(); return health.error().usage ? 2 : 1; }
//   health->start();  ... rate line + health->beside(label) ...  health->publish(rows, passing);
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/option_names.hpp"
#include "designs/design.hpp"
#include "metrics/exposition.hpp"
#include "sensors/health_watch.hpp"
#include "tool_support/open_designs.hpp"
#include "vfio_access/device.hpp"

namespace tool_support {

struct BoardHealthCli {
    std::string max_temperature;  // --max_temperature C
    std::string metrics;          // --metrics FILE|URL
};
// --max_temperature and --metrics, defined once for every tool that takes them.
void add_board_health_options(boost::program_options::options_description& description, BoardHealthCli& cli);

// One row of a tool's output as its metrics carry it.
struct RowMetrics {
    std::string label;  // the row's label, "<bdf> <channel...>": split into pci_address and channel
    double bytes_per_second = 0;
    uint64_t verified_bytes = 0;
    uint64_t errors = 0;
};

class BoardHealth {
public:
    // Parses the options (a usage error: Error::usage), opens the metrics target and proves it usable
    // (its error names the path or URL), and opens the sensor blocks of every target (a design
    // without sensors has none: not an error). Events (alarms, a trip) print to `out` as lines,
    // or JSON Lines {"type":"sensor_event",...} with json.
    static pdt::Result<std::unique_ptr<BoardHealth>> open(const BoardHealthCli& cli, const std::string& tool,
                                                          const std::vector<DesignUnderTest>& targets, std::FILE* out,
                                                          bool json);
    ~BoardHealth();

    void start();  // the first sample now, then every second
    void stop();
    // "; temperature 41.2 C (max 43.0 C)" for the design whose address begins `label`, "" when
    // it has no readable temperature; json_beside gives the JSON fields.
    std::string beside(const std::string& label) const;
    std::string json_beside(const std::string& label) const;
    // Set once a temperature crossed --max_temperature: the run must stop and FAIL with reason().
    const std::atomic<bool>& tripped() const { return m_watch->tripped(); }
    std::string trip_reason() const { return cli::name_options(m_watch->trip_reason()); }
    sensors::HealthWatch& watch() { return *m_watch; }

    // Writes the metrics (nothing without --metrics): the rows, the verdict so far, whether the
    // run has finished (its last write) and the sensors, labelled with host, tool, design, PCI
    // address and channel. A failed write is reported once on stderr and does not stop the run.
    void publish(const std::vector<RowMetrics>& rows, bool passing, bool finished = false);
    // The exposition text publish() writes (tests).
    std::string exposition(const std::vector<RowMetrics>& rows, bool passing, bool finished = false) const;

private:
    BoardHealth() = default;
    std::string m_tool;
    std::string m_host;
    std::vector<std::pair<std::string, std::string>> m_designs;  // address, design name
    std::unique_ptr<sensors::HealthWatch> m_watch;
    std::unique_ptr<metrics::Publisher> m_publisher;
    bool m_publish_failed = false;
};

}  // namespace tool_support
