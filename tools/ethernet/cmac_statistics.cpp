// cmac_statistics: the statistics counters of every CMAC port (PG203) of the identified designs,
// as fpga_sio's cmac_statistics shows them: once, or every --interval seconds (fpga_sio's
// <display_interval_secs> argument) until Ctrl-C or --duration. Each collection writes TICK_REG
// of every port first, which latches its counters and restarts them from zero, then reads them:
// a collection shows what each port counted since the previous one ("over" the time between its
// ticks). Only the counters that are not zero are shown, in fpga_sio's order; a saturated one
// says so.
// Exit status: 0 read, 1 no design or no CMAC port found or a port that could not be read,
// 2 usage error.
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <sys/time.h>
#include <thread>
#include <vector>

#include "base/format.hpp"
#include "base/json_text.hpp"
#include "base/numbers.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "cmac_tool.hpp"

namespace po = boost::program_options;
namespace pg203 = ethernet::pg203;

namespace {

volatile std::sig_atomic_t g_stop = 0;

// A port's counters of one collection.
struct Sample {
    const cmac_tool::Port* port = nullptr;
    std::chrono::steady_clock::time_point tick;
    std::optional<double> over_secs;  // since the port's previous tick, from the second on
    pdt::Result<ethernet::CmacStatistics> stats = pdt::make_error("read CMAC statistics", "", EAGAIN, "not read");
};

// fpga_sio's counter name: PG203's without the STAT_ prefix.
const char* display_name(const pg203::CounterRegister& counter) { return counter.name + 5; }

// fpga_sio's order of the counters (its cmac_statistic_counters_t): STAT_CYCLE_COUNT, the transmit
// counters, the receive counters, the OTN ones, the RS-FEC ones; PG203's offset order within each.
const std::vector<size_t>& display_order() {
    static const std::vector<size_t> order = [] {
        const auto group = [](const std::string& name) {
            if (name.rfind("STAT_TX_", 0) == 0)
                return 1;
            if (name.rfind("STAT_RX_RSFEC_", 0) == 0)
                return 4;
            if (name.rfind("STAT_RX_", 0) == 0)
                return 2;
            if (name.rfind("STAT_OTN_", 0) == 0)
                return 3;
            return 0;  // STAT_CYCLE_COUNT
        };
        std::vector<size_t> indices;
        for (int g = 0; g <= 4; ++g)
            for (size_t i = 0; i < pg203::kCounterCount; ++i)
                if (group(pg203::kCounters[i].name) == g)
                    indices.push_back(i);
        return indices;
    }();
    return order;
}

int max_name_length() {
    size_t longest = 0;
    for (const pg203::CounterRegister& counter : pg203::kCounters)
        longest = std::max(longest, std::string(display_name(counter)).size());
    return static_cast<int>(longest);
}

std::string text_of(const Sample& s) {
    std::string text = pdt::format("%s port %u statistics", s.port->design.c_str(), s.port->number());
    if (s.over_secs)
        text += pdt::format(" (over %.3f secs)", *s.over_secs);
    text += ":\n";
    static const int width = max_name_length();
    for (size_t i : display_order()) {
        const uint64_t value = s.stats->values[i];
        if (value != 0)
            text += pdt::format("  %-*s: %15llu%s\n", width, display_name(pg203::kCounters[i]),
                                static_cast<unsigned long long>(value),
                                value == pg203::kCounterSaturated ? " (saturated)" : "");
    }
    return text;
}

std::string json_of(const Sample& s) {
    std::string counters, saturated;
    for (size_t i : display_order()) {
        if (!s.stats->implemented[i])
            continue;
        const char* name = display_name(pg203::kCounters[i]);
        counters += pdt::format("%s\"%s\": %llu", counters.empty() ? "" : ", ", name,
                                static_cast<unsigned long long>(s.stats->values[i]));
        if (s.stats->values[i] == pg203::kCounterSaturated)
            saturated += (saturated.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    }
    return "{" + cmac_tool::port_json(*s.port) +
           ", \"over_secs\": " + (s.over_secs ? pdt::format("%.3f", *s.over_secs) : std::string("null")) +
           ", \"counters\": {" + counters + "}, \"saturated\": [" + saturated + "]}";
}

// fpga_sio's time of a collection: local HH:MM:SS.mmm.
std::string time_of_day() {
    timeval tod{};
    gettimeofday(&tod, nullptr);
    std::tm local{};
    const std::time_t secs = tod.tv_sec;
    localtime_r(&secs, &local);
    char text[16];
    std::strftime(text, sizeof text, "%H:%M:%S", &local);
    return pdt::format("%s.%03ld", text, static_cast<long>(tod.tv_usec / 1000));
}

class Collector {
public:
    explicit Collector(const std::vector<cmac_tool::Port>& ports) : m_ports(ports), m_last(ports.size()) {}

    // Ticks every port (as close together as can be), then reads each one's counters.
    std::vector<Sample> collect() {
        std::vector<Sample> samples(m_ports.size());
        for (size_t i = 0; i < m_ports.size(); ++i) {
            samples[i].port = &m_ports[i];
            samples[i].tick = std::chrono::steady_clock::now();
            m_ports[i].cmac.tick();
        }
        for (size_t i = 0; i < m_ports.size(); ++i) {
            samples[i].stats = m_ports[i].cmac.read_statistics();
            if (m_last[i])
                samples[i].over_secs = std::chrono::duration<double>(samples[i].tick - *m_last[i]).count();
            m_last[i] = samples[i].tick;
        }
        return samples;
    }

private:
    const std::vector<cmac_tool::Port>& m_ports;
    std::vector<std::optional<std::chrono::steady_clock::time_point>> m_last;
};

// Prints a collection's ports (text), or adds them to `json`; 1 when a port could not be read.
int report(const std::vector<Sample>& samples, bool json, std::string& ports_json) {
    int status = 0;
    for (const Sample& s : samples) {
        if (!s.stats) {
            std::cerr << "Error: " << cmac_tool::port_name(*s.port) << ": " << s.stats.error().message() << "\n";
            status = 1;
        } else if (json) {
            ports_json += (ports_json.empty() ? "" : ", ") + json_of(s);
        } else {
            std::printf("%s\n", text_of(s).c_str());
        }
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    cmac_tool::Options options;
    std::vector<std::string> interval_words;  // fpga_sio's <display_interval_secs> argument
    std::string interval_text, duration_text;
    po::options_description description("Options");
    cli::add_help_and_version(description);
    cmac_tool::add_options(description, options);
    description.add_options()("interval", po::value(&interval_text),
                              "seconds between collections, until Ctrl-C (also fpga_sio's <display_interval_secs> "
                              "argument; default: one collection)")(
        "duration", po::value(&duration_text),
                              "with an interval: stop after this many seconds (default: run until Ctrl-C)");
    cli::add_json_option(description, options.json, cli::JsonForm::Document);
    const cli::CommandLine line(description,
                                cli::fpga_sio_usage(argv[0], "Displays the statistics counters of the CMAC ports of "
                                                             "the identified FPGA designs: once, or every "
                                                             "<display_interval_secs> until Ctrl-C."),
                                &interval_words, "display_interval_secs");
    if (auto status = cli::parse_command_line(argc, argv, line))
        return *status;
    std::optional<double> interval;
    if (!interval_text.empty())
        interval_words.insert(interval_words.begin(), interval_text);
    if (interval_words.size() > 1) {
        std::cerr << "Error: one <display_interval_secs> (or --interval) at most, not " << interval_words.size() << "\n";
        return 2;
    }
    if (!interval_words.empty()) {
        auto secs = pdt::parse_seconds("interval", interval_words[0]);
        if (!secs) {
            std::cerr << "Error: " << secs.error().message() << "\n";
            return 2;
        }
        interval = *secs;
    }
    const auto duration = duration_text.empty() ? pdt::Result<double>(0.0) : pdt::parse_seconds("duration", duration_text);
    if (!duration || (!duration_text.empty() && !interval)) {
        std::cerr << "Error: " << (!duration ? duration.error().message() : "--duration needs --interval") << "\n";
        return 2;
    }
    cmac_tool::Opened opened = cmac_tool::open(options);
    if (opened.ports.empty())
        return opened.status;
    int status = opened.status;
    Collector collector(opened.ports);
    std::string json;
    if (!interval) {
        status = std::max(status, report(collector.collect(), options.json, json));
        if (options.json)
            std::printf("{\"ports\": [%s]}\n", json.c_str());
        return status;
    }
    if (!options.json)
        std::printf("Press Ctrl-C to stop the CMAC port statistics collection\n");
    std::signal(SIGINT, [](int) { g_stop = 1; });
    const auto start = std::chrono::steady_clock::now();
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(*interval));
    collector.collect();  // the first tick starts the first interval
    unsigned collections = 0;
    for (auto next = start + period; !g_stop; next += period) {
        if (*duration > 0 && next - start > std::chrono::duration<double>(*duration) + std::chrono::milliseconds(1))
            break;
        while (!g_stop && std::chrono::steady_clock::now() < next)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (g_stop)
            break;
        ++collections;
        const std::string when = time_of_day();
        if (!options.json)
            std::printf("\n\n%s collection number %u\n", when.c_str(), collections);
        std::string ports;
        status = std::max(status, report(collector.collect(), options.json, ports));
        json += pdt::format("%s{\"number\": %u, \"time\": \"%s\", \"ports\": [%s]}", json.empty() ? "" : ", ",
                            collections, when.c_str(), ports.c_str());
    }
    if (options.json)
        std::printf("{\"interval_secs\": %.3f, \"collections\": [%s]}\n", *interval, json.c_str());
    return status;
}
