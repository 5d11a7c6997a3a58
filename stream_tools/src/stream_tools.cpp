#include "stream_tools/stream_tools.hpp"

#include <algorithm>
#include <cinttypes>
#include <csignal>
#include <map>
#include <memory>
#include <optional>

#include "base/format.hpp"
#include "cli/option_names.hpp"
#include "stream_test/report.hpp"
#include "stream_tools/numa_placement.hpp"

namespace stream_tools {
namespace {

using streams::Direction;

using pdt::format;

std::string selecting_line(const streams::StreamDevice& device) {
    return format("Selecting test of %s design PCI device %s IOMMU group %d", device.display_name().c_str(),
                  device.address().to_string().c_str(), device.iommu_group());
}

bool selected(const std::vector<ChannelSelector>& selectors, const streams::StreamDevice& device, unsigned channel) {
    if (selectors.empty())
        return true;
    return std::any_of(selectors.begin(), selectors.end(), [&](const ChannelSelector& s) {
        return s.address == device.address() && s.channel == channel;
    });
}

// A selector that matches nothing is an error: the user asked for a channel that is not there.
std::optional<std::string> unmatched(const std::vector<ChannelSelector>& selectors,
                                     const std::vector<std::pair<streams::StreamDevice*, unsigned>>& chosen, const char* what) {
    for (const auto& s : selectors) {
        const bool found = std::any_of(chosen.begin(), chosen.end(), [&](const auto& c) {
            return c.first->address() == s.address && c.second == s.channel;
        });
        if (!found)
            return format("No %s channel %u on a stream design at %s", what, s.channel, s.address.to_string().c_str());
    }
    return std::nullopt;
}

// Buffers per channel: mapping_size split over the descriptors, a multiple of 4 bytes.
pdt::Result<streams::ChannelBuffers> channel_buffers(const StreamRunOptions& options) {
    streams::ChannelBuffers buffers{options.num_descriptors, (options.mapping_size / options.num_descriptors) & ~uint64_t{3},
                           options.allocation};
    if (buffers.size == 0)
        return pdt::usage_error("size stream buffers", "--stream_mapping_size",
                                "stream_mapping_size / stream_num_descriptors must be at least 4 bytes");
    return buffers;
}

// Buffers for one device: H2C packets a multiple of what its card function needs.
pdt::Result<streams::ChannelBuffers> device_buffers(const streams::ChannelBuffers& buffers, const streams::StreamDevice& device) {
    streams::ChannelBuffers sized = buffers;
    const uint64_t granularity = device.packet_granularity();
    sized.size -= sized.size % granularity;
    if (sized.size == 0)
        return pdt::usage_error("size stream buffers", device.design_name(),
                                format("its %s stream needs buffers of a multiple of %" PRIu64
                                       " bytes: raise --stream_mapping_size",
                                       streams::to_string(device.card_function()), granularity));
    return sized;
}

// The rows of a report as the run's metrics carry them. Verified bytes are the row's own check,
// as the totals print them (a pair row's H2C check on the card is of the same bytes: not added).
std::vector<tool_support::RowMetrics> row_metrics(const std::vector<stream_test::RowTotals>& rows,
                                                  const std::map<std::string, double>& rates) {
    std::vector<tool_support::RowMetrics> metrics;
    for (const auto& row : rows) {
        const auto rate = rates.find(row.label);
        metrics.push_back(
            {row.label, rate == rates.end() ? 0.0 : rate->second, row.words_verified * 4, row.failure ? 1u : 0u});
    }
    return metrics;
}

// The report, with the designs' temperature beside each rate line and the run's metrics
// published after each interval.
class HealthReport : public stream_test::Observer {
public:
    HealthReport(stream_test::Report& report, tool_support::BoardHealth& health) : m_report(report), m_health(health) {
        report.annotate([&health](const std::string& label) { return health.beside(label); },
                        [&health](const std::string& label) { return health.json_beside(label); });
    }
    void on_start() override { m_report.on_start(); }
    void on_interval(const std::vector<std::pair<std::string, stream_test::Interval>>& rows) override {
        m_report.on_interval(rows);
        for (const auto& [label, interval] : rows)
            if (!interval.too_short)
                m_rates[label] = interval.mbytes_per_sec() * 1e6;
    }
    void on_progress(const std::vector<stream_test::RowTotals>& rows,
                     const std::vector<stream_test::Failure>& failures) override {
        m_health.publish(row_metrics(rows, m_rates), failures.empty() && !m_health.tripped());
    }
    // The verdict's figures: each row's rate over the whole run.
    void finish(const stream_test::Summary& summary) {
        for (const auto& row : summary.rows)
            m_rates[row.label] = row.total.mbytes_per_sec() * 1e6;
        m_health.publish(row_metrics(summary.rows, m_rates), summary.passed(), true);
    }

private:
    stream_test::Report& m_report;
    tool_support::BoardHealth& m_health;
    std::map<std::string, double> m_rates;
};

// Everything one run holds: channels, the test, the report.
struct Run {
    Run(const StreamRunOptions& options, std::FILE* out)
        : pool(options.verify_threads > 0 ? std::make_unique<pattern::WorkerPool>(options.verify_threads) : nullptr),
          test([&] {
              stream_test::Options test_options = options.test;
              test_options.pool = pool.get();
              if (options.health)
                  test_options.stop_failing = &options.health->tripped();
              return test_options;
          }()),
          report(out, options.json), watcher(options.watcher), health(options.health) {
        report.name_requests([](std::string text) { return cli::name_options(std::move(text)); });
    }

    pdt::Result<streams::StreamChannel*> open(streams::StreamDevice& device, Direction direction, unsigned channel,
                                              const streams::ChannelBuffers& buffers) {
        auto opened = PDT_TRY(device.open_channel(direction, channel, buffers));
        channels.push_back(std::move(opened));
        return channels.back().get();
    }
    // "Selecting test of ... <channels>" in text mode; in JSON mode a "selected" line with the
    // device, its design, the channels and the engine modes its adapter chose.
    void select(const streams::StreamDevice& device, const std::string& channels) {
        using stream_test::json_escape;
        report.line(selecting_line(device) + " " + channels);
        std::string json = "{\"type\":\"selected\",\"device\":" + json_escape(device.address().to_string()) +
                           ",\"design\":" + json_escape(device.design_name()) + ",\"channels\":" + json_escape(channels);
        report.json_line(json + stream_test::json_engine_fields(device.engines()) + "}");
    }
    int fail(const std::string& message) { return report.abort(message); }
    int run() {
        report.line("Press Ctrl-C to stop test");
        std::optional<HealthReport> observed;
        if (health) {
            observed.emplace(report, *health);
            health->start();
        }
        if (watcher)
            watcher->start();
        stream_test::Summary summary = test.run(observed ? static_cast<stream_test::Observer&>(*observed) : report);
        if (watcher)
            for (const std::string& text : watcher->stop())
                report.line(text);
        if (health) {
            health->stop();
            if (health->tripped())
                summary.failures.push_back({"Board health:", health->trip_reason(), std::nullopt, std::nullopt});
            observed->finish(summary);
        }
        return report.finish(summary);
    }

    std::unique_ptr<pattern::WorkerPool> pool;
    std::vector<std::unique_ptr<streams::StreamChannel>> channels;
    stream_test::StreamTest test;
    stream_test::Report report;
    LoadWatcher* watcher;
    tool_support::BoardHealth* health;
};

// NUMA (F20): binds this thread to the devices' node before Run starts the worker pool and the
// channels allocate their buffers; the line is printed once the report exists.
std::string place_on_devices_node(const std::vector<streams::StreamDevice*>& devices, const StreamRunOptions& options) {
    if (options.sysfs_root.empty())
        return {};  // simulated: no device of this machine
    std::vector<vfio::PciAddress> addresses;
    for (const streams::StreamDevice* device : devices)
        addresses.push_back(device->address());
    return apply_numa_placement(plan_numa_placement(addresses, options.sysfs_root));
}

void report_numa(Run& run, const std::string& numa) {
    if (numa.empty())
        return;
    run.report.line(numa);
    run.report.json_line("{\"type\":\"numa\",\"text\":" + stream_test::json_escape(numa) + "}");
}

// The host buffers of `channels` channels must fit --host_memory_limit; checked before any opens.
std::optional<std::string> over_host_limit(const StreamRunOptions& options, const streams::ChannelBuffers& buffers,
                                           size_t channels) {
    const uint64_t needed = channels * buffers.count * buffers.size;
    if (options.host_memory_limit == 0 || needed <= options.host_memory_limit)
        return std::nullopt;
    return format("Not started: %zu channels x 0x%" PRIx64 " bytes of host buffers need 0x%" PRIx64
                  " bytes, more than --host_memory_limit 0x%" PRIx64
                  ": lower --stream_mapping_size or raise --host_memory_limit",
                  channels, buffers.count * buffers.size, needed, options.host_memory_limit);
}

std::string using_line(const StreamRunOptions& options, const streams::ChannelBuffers& buffers) {
    return format("Using num_descriptors=%zu bytes_per_buffer=0x%" PRIx64 " data_mapping_size_words=0x%" PRIx64,
                  buffers.count, buffers.size, options.mapping_size / 4);
}

}  // namespace

namespace {

using Pair = std::pair<streams::StreamDevice*, streams::LoopRoute>;

pdt::Result<void> add_pairs(Run& run, const std::vector<Pair>& pairs, const streams::ChannelBuffers& buffers) {
    uint64_t stream = 0;
    for (const auto& [device, route] : pairs) {
        const char* unit = device->channel_kind();
        run.select(*device, format("H2C %s %u C2H %s %u", unit, route.h2c, unit, route.c2h));
        const streams::ChannelBuffers sized = PDT_TRY(device_buffers(buffers, *device));
        streams::StreamChannel* h2c = PDT_TRY(run.open(*device, Direction::H2C, route.h2c, sized));
        streams::StreamChannel* c2h = PDT_TRY(run.open(*device, Direction::C2H, route.c2h, sized));
        const size_t source = PDT_TRY(run.test.add_source(*h2c, stream++));
        const size_t sink = PDT_TRY(run.test.add_sink(*c2h, source, device->card_function()));
        run.test.add_pair_row(format("%s %u -> %u", device->address().to_string().c_str(), route.h2c, route.c2h),
                              sink);
    }
    return {};
}

// The run's first lines: where it runs (NUMA) and the buffers it uses, checked.
pdt::Result<streams::ChannelBuffers> announce(Run& run, const std::string& numa, const StreamRunOptions& options) {
    report_numa(run, numa);
    const streams::ChannelBuffers buffers = PDT_TRY(channel_buffers(options));
    run.report.line(using_line(options, buffers));
    return buffers;
}

}  // namespace

int run_parallel_streams(const std::vector<streams::StreamDevice*>& devices, const std::vector<ChannelSelector>& selectors,
                         const StreamRunOptions& options, std::FILE* out) {
    const std::string numa = place_on_devices_node(devices, options);
    Run run(options, out);
    auto buffers = announce(run, numa, options);
    if (!buffers.ok())
        return run.fail(buffers.error().message());

    std::vector<Pair> pairs;
    std::vector<std::pair<streams::StreamDevice*, unsigned>> chosen;
    for (streams::StreamDevice* device : devices)
        for (const streams::LoopRoute& route : device->routes())
            if (selected(selectors, *device, route.h2c)) {
                pairs.emplace_back(device, route);
                chosen.emplace_back(device, route.h2c);
            }
    if (auto missing = unmatched(selectors, chosen, "H2C"))
        return run.fail(*missing);
    if (pairs.empty())
        return run.fail("No stream channels were tested: no loopback route on any selected stream design");
    if (auto over = over_host_limit(options, *buffers, 2 * pairs.size()))
        return run.fail(*over);
    if (auto added = add_pairs(run, pairs, *buffers); !added.ok())
        return run.fail(added.error().message());
    return run.run();
}

namespace {

struct Channel {
    streams::StreamDevice* device;
    unsigned channel;
};

// Sources first (H2C rows), then sinks verified against the source routed to them.
pdt::Result<void> add_independent(Run& run, const std::vector<Channel>& h2c, const std::vector<Channel>& c2h,
                                  const streams::ChannelBuffers& buffers) {
    std::vector<std::pair<Channel, size_t>> sources;
    uint64_t stream = 0;
    for (const Channel& c : h2c) {
        run.select(*c.device, format("H2C %s %u", c.device->channel_kind(), c.channel));
        const streams::ChannelBuffers sized = PDT_TRY(device_buffers(buffers, *c.device));
        streams::StreamChannel* channel = PDT_TRY(run.open(*c.device, Direction::H2C, c.channel, sized));
        const size_t source = PDT_TRY(run.test.add_source(*channel, stream++));
        run.test.add_source_row(format("%s H2C %s %u", c.device->address().to_string().c_str(), c.device->channel_kind(),
                                       c.channel),
                                source);
        sources.emplace_back(c, source);
    }
    for (const Channel& c : c2h) {
        run.select(*c.device, format("C2H %s %u", c.device->channel_kind(), c.channel));
        std::optional<size_t> from;
        for (const streams::LoopRoute& route : c.device->routes())
            for (const auto& [s, index] : sources)
                if (route.c2h == c.channel && s.device == c.device && s.channel == route.h2c)
                    from = index;
        streams::StreamChannel* channel =
            PDT_TRY(run.open(*c.device, Direction::C2H, c.channel, PDT_TRY(device_buffers(buffers, *c.device))));
        streams::CardFunction function = c.device->card_function();
        if (!from && channel->generated_stream())  // the card generates this channel's data itself
            function = streams::CardFunction::Generated;
        if (!from && function != streams::CardFunction::FixedData &&
            function != streams::CardFunction::Generated)
            run.report.line(format("Warning: no H2C channel under test feeds %s C2H %s %u: its data is not "
                                   "verified",
                                   c.device->address().to_string().c_str(), c.device->channel_kind(), c.channel));
        const size_t sink = PDT_TRY(run.test.add_sink(*channel, from, function));
        run.test.add_sink_row(
            format("%s C2H %s %u", c.device->address().to_string().c_str(), c.device->channel_kind(), c.channel), sink);
    }
    return {};
}

}  // namespace

int run_independent_streams(const std::vector<streams::StreamDevice*>& devices, const std::vector<ChannelSelector>& h2c,
                            const std::vector<ChannelSelector>& c2h, const StreamRunOptions& options,
                            std::FILE* out) {
    const std::string numa = place_on_devices_node(devices, options);
    Run run(options, out);
    run.report.count_transfers(true);  // fpga_sio's "(... bytes in N transfers over ... secs)"
    auto buffers = announce(run, numa, options);
    if (!buffers.ok())
        return run.fail(buffers.error().message());

    // With only one direction selected, the other direction is not tested.
    const bool any = !h2c.empty() || !c2h.empty();
    std::vector<Channel> sources, sinks;
    std::vector<std::pair<streams::StreamDevice*, unsigned>> chosen_h2c, chosen_c2h;
    for (streams::StreamDevice* device : devices) {
        for (unsigned ch = 0; ch < device->h2c_channels(); ++ch)
            if ((!any && h2c.empty()) || (!h2c.empty() && selected(h2c, *device, ch))) {
                sources.push_back(Channel{device, ch});
                chosen_h2c.emplace_back(device, ch);
            }
        for (unsigned ch = 0; ch < device->c2h_channels(); ++ch)
            if ((!any && c2h.empty()) || (!c2h.empty() && selected(c2h, *device, ch))) {
                sinks.push_back(Channel{device, ch});
                chosen_c2h.emplace_back(device, ch);
            }
    }
    if (auto missing = unmatched(h2c, chosen_h2c, "H2C"))
        return run.fail(*missing);
    if (auto missing = unmatched(c2h, chosen_c2h, "C2H"))
        return run.fail(*missing);
    if (sources.empty() && sinks.empty())
        return run.fail("No stream channels were tested: no stream design selected");
    if (auto over = over_host_limit(options, *buffers, sources.size() + sinks.size()))
        return run.fail(*over);
    if (auto added = add_independent(run, sources, sinks, *buffers); !added.ok())
        return run.fail(added.error().message());
    return run.run();
}

namespace {
std::atomic<bool> g_stop{false};
std::atomic<const std::atomic<bool>*> g_trip{nullptr};
extern "C" void on_stop_signal(int) { g_stop.store(true); }
}  // namespace

const std::atomic<bool>* stop_on_sigint() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    action.sa_flags = SA_RESETHAND;  // a second Ctrl-C (or SIGTERM) takes the default action
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);  // a batch system's stop: the engines stop as on Ctrl-C
    return &g_stop;
}

void stop_on_trip(const std::atomic<bool>* tripped) { g_trip.store(tripped); }

bool stop_requested() {
    const std::atomic<bool>* trip = g_trip.load();
    return g_stop.load() || (trip && trip->load());
}

pdt::Error stopped_early(const std::string& object) {
    return pdt::make_error("DMA", object, ECANCELED,
                           std::string("stopped by ") + (g_stop.load() ? "SIGINT or SIGTERM" : "a board-health trip") +
                               ": the engines were stopped before their buffers were released");
}

}  // namespace stream_tools
