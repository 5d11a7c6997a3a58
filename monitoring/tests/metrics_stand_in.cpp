// A stand-in run for the fleet test (fleet_test.sh) until the stream tools write --metrics
// themselves: it publishes the tools' metric families through the metrics library to the target
// of --metrics every half second for --duration seconds, as a simulated run of --sim_design on
// two channels would, with one data error on channel 1 after a second when PDT_SIM_FAULT names
// data_bit_flip. Exit status 1 when the run failed, as the tools.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>
#include <thread>

#include "metrics/exposition.hpp"

namespace {

using metrics::Family;
using metrics::Type;

std::string option(int argc, char** argv, const std::string& name, const std::string& fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (argv[i] == name)
            return argv[i + 1];
    return fallback;
}

std::vector<Family> families(const metrics::Labels& run, double seconds, bool fault) {
    std::vector<Family> out{
        {"pdt_verified_bytes_total", "Bytes received and verified, per channel.", Type::Counter, {}},
        {"pdt_transfer_rate_bytes_per_second", "Verified bytes per second over the last interval.", Type::Gauge, {}},
        {"pdt_errors_total", "Data errors counted, per channel.", Type::Counter, {}},
        {"pdt_verdict_pass", "1 while the run passes so far, 0 once it failed.", Type::Gauge, {{run, 1}}},
        {"pdt_last_report_timestamp_seconds", "Unix time of this report.", Type::Gauge,
         {{run, static_cast<double>(std::time(nullptr))}}},
        {"pdt_sensor_celsius", "Die temperature.", Type::Gauge, {}},
    };
    for (const std::string channel : {"0", "1"}) {
        metrics::Labels labels = run;
        labels.emplace_back("channel", channel);
        const bool failed = fault && channel == "1" && seconds >= 1.0;
        out[0].samples.push_back({labels, 1.25e9 * seconds});
        out[1].samples.push_back({labels, 1.25e9});
        out[2].samples.push_back({labels, failed ? 1.0 : 0.0});
        if (failed)
            out[3].samples[0].value = 0;
    }
    metrics::Labels sensor = {run[0], run[2], run[3], {"block", "SYSMON"}, {"sensor", "Temp"}};
    out[5].samples.push_back({sensor, 38.0 + seconds});
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string target = option(argc, argv, "--metrics", "");
    const double duration = std::stod(option(argc, argv, "--duration", "3"));
    const char* fault_variable = std::getenv("PDT_SIM_FAULT");
    const bool fault = fault_variable != nullptr && std::string(fault_variable).starts_with("data_bit_flip");
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const metrics::Labels run = {{"host", host},
                                 {"tool", "metrics_stand_in"},
                                 {"design", option(argc, argv, "--sim_design", "TEF1001_dma_stream_loopback")},
                                 {"pci_address", "0000:15:00.0"}};
    auto publisher = metrics::open_publisher(target, "pdt", host);
    if (!publisher) {
        std::cerr << "metrics_stand_in: --metrics: " << publisher.error().message() << "\n";
        return 2;
    }
    const auto start = std::chrono::steady_clock::now();
    for (double seconds = 0;; seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) {
        const auto all = families(run, seconds, fault);
        if (const auto checked = metrics::check_families(all); !checked) {
            std::cerr << "metrics_stand_in: " << checked.error().message() << "\n";
            return 2;
        }
        if (const auto published = (*publisher)->publish(metrics::exposition_text(all)); !published)
            std::cerr << "metrics_stand_in: " << published.error().message() << "\n";
        if (seconds >= duration)
            return fault ? 1 : 0;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}
