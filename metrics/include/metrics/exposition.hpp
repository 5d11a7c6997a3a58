// Metrics for a lab's fleet, on Prometheus: the text exposition format (version 0.0.4) of a
// tool's rates, verified bytes, errors, verdict and sensors, and where a long-running tool
// sends it (--metrics): a file that node_exporter's textfile collector reads, written
// atomically, or a Pushgateway for batch runs.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;  // name, value; in print order

enum class Type { Gauge, Counter };

struct Sample {
    Labels labels;
    double value = 0;
};

// One metric family: # HELP and # TYPE lines, then its samples. Names follow Prometheus's
// conventions (base units, _total for counters); samples of one family have distinct labels.
struct Family {
    std::string name;
    std::string help;
    Type type = Type::Gauge;
    std::vector<Sample> samples;
};

// Whether the families can be exposed (a tool's families are constants, so its unit test calls
// this once; exposition_text itself does not check): metric names match [a-zA-Z_:][a-zA-Z0-9_:]*,
// label names [a-zA-Z_][a-zA-Z0-9_]* and do not start with "__" (reserved), family names are
// distinct, counters end in _total and gauges do not, every family has HELP text, a sample names
// a label once, the samples of a family have distinct label sets, help and label values are
// UTF-8, counters are not negative. The error (EINVAL) names the family and the rule broken.
pdt::Result<void> check_families(const std::vector<Family>& families);

// A sample value as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it, as Prometheus's own
// client library does: NaN, +Inf, -Inf; 0 for -0; the shortest decimal that reads back as v,
// in exponent form (1e+06, 1.5e-05) when the decimal exponent is below -4 or 6 and above.
std::string format_value(double value);

// The families as Prometheus text exposition format 0.0.4: label values escaped (\\, \", \n),
// HELP text escaped (\\, \n), values as Go's strconv formats them (NaN, +Inf, -Inf, shortest
// round-trip decimal), one trailing newline. Families without samples are left out.
std::string exposition_text(const std::vector<Family>& families);

// Where --metrics sends the exposition text.
//   FILE                     written atomically (a temporary file in the same directory, then
//                            rename), for node_exporter's --collector.textfile.directory (the
//                            name must end in .prom for the collector to read it);
//   http://HOST:PORT[/PATH]  pushed (HTTP PUT) to a Pushgateway at
//                            /metrics/job/<job>/instance/<instance> under PATH.
class Publisher {
public:
    virtual ~Publisher() = default;
    virtual std::string target() const = 0;
    virtual pdt::Result<void> publish(const std::string& exposition) = 0;
    // Takes the report away: removes the file (none there is no error) or DELETEs the push group.
    // Both paths otherwise serve the last report for ever, so a run that ends and leaves it
    // behind looks, by its pdt_last_report_timestamp_seconds, like a run that stopped reporting.
    virtual pdt::Result<void> withdraw() = 0;
};

// Opens the target and proves it usable at start-up: the file's directory is writable (a
// temporary file is created there and removed), the URL parses and the gateway answers. The
// error names the path or URL and the cause. job and instance name the push group.
pdt::Result<std::unique_ptr<Publisher>> open_publisher(const std::string& target, const std::string& job,
                                                       const std::string& instance);

}  // namespace metrics
