#include "stream_test/driver.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <condition_variable>
#include <thread>

#include "workers.hpp"

namespace stream_test {

using detail::Sink;
using detail::Source;

bool Summary::passed() const {
    if (rows.empty() || !failures.empty())
        return false;
    bool verified = false;
    for (const auto& row : rows) {
        if (row.total.bytes == 0 || (row.verifies && row.words_verified == 0))
            return false;
        verified = verified || row.verifies;
    }
    return verified;
}

StreamTest::StreamTest(Options options) : m_options(options) {}
StreamTest::~StreamTest() = default;

pdt::Result<size_t> StreamTest::add_source(streams::StreamChannel& channel, uint64_t stream) {
    if (channel.direction() != streams::Direction::H2C)
        return pdt::make_error("add stream source", channel.name(), EINVAL, "a source must be an H2C channel");
    if (channel.buffer_count() == 0 || channel.buffer_size() == 0 || channel.buffer_size() % 4 != 0)
        return pdt::make_error("add stream source", channel.name(), EINVAL,
                               "needs at least one buffer, of a non-zero multiple of 4 bytes");
    m_sources.push_back(std::make_unique<Source>(channel, stream));
    return m_sources.size() - 1;
}

pdt::Result<size_t> StreamTest::add_sink(streams::StreamChannel& channel, std::optional<size_t> from,
                                         CardFunction function) {
    if (channel.direction() != streams::Direction::C2H)
        return pdt::make_error("add stream sink", channel.name(), EINVAL, "a sink must be a C2H channel");
    if (channel.buffer_count() == 0 || channel.buffer_size() == 0 || channel.buffer_size() % 4 != 0)
        return pdt::make_error("add stream sink", channel.name(), EINVAL,
                               "needs at least one buffer, of a non-zero multiple of 4 bytes");
    if (from && *from >= m_sources.size())
        return pdt::make_error("add stream sink", channel.name(), EINVAL, "unknown source");
    if (function == CardFunction::Generated && (from || !channel.generated_stream()))
        return pdt::make_error("add stream sink", channel.name(), EINVAL,
                               "generated data needs a channel whose card generates a stream, and no source");
    if (function == CardFunction::Crc64 && from &&
        (m_sources[*from]->packet_bytes % 8 != 0 || channel.buffer_size() < 8))
        return pdt::make_error("add stream sink", channel.name(), EINVAL,
                               "a CRC64 stream needs H2C packets of a multiple of 8 bytes and C2H buffers of at "
                               "least 8 bytes");
    m_sinks.push_back(std::make_unique<Sink>(channel, from ? m_sources[*from].get() : nullptr, function));
    return m_sinks.size() - 1;
}

void StreamTest::add_pair_row(std::string label, size_t sink) {
    m_rows.push_back(Row{std::move(label), false, sink, true});
}
void StreamTest::add_source_row(std::string label, size_t source) {
    m_rows.push_back(Row{std::move(label), true, source});
}
void StreamTest::add_sink_row(std::string label, size_t sink) { m_rows.push_back(Row{std::move(label), false, sink}); }

RateCounter& StreamTest::counter(const Row& row) {
    return row.is_source ? m_sources.at(row.index)->counter : m_sinks.at(row.index)->counter;
}

std::vector<std::pair<std::string, Interval>> StreamTest::take_intervals(bool last) {
    std::vector<std::pair<std::string, Interval>> intervals;
    for (const auto& row : m_rows)
        intervals.emplace_back(row.label, counter(row).take_interval(last));
    return intervals;
}

void StreamTest::report_interval(Observer& observer, detail::Shared& shared) {
    observer.on_interval(take_intervals());
    std::vector<Failure> failures;
    {
        std::lock_guard lock(shared.mutex);
        failures = shared.failures;
    }
    std::vector<RowTotals> rows;
    for (const auto& row : m_rows)
        rows.push_back(totals(row, failures));
    observer.on_progress(rows, failures);
}

namespace {

// Starts every channel (sinks first, so the card has somewhere to put looped-back data),
// then one thread per channel.
std::vector<std::thread> start_workers(std::vector<std::unique_ptr<Source>>& sources,
                                       std::vector<std::unique_ptr<Sink>>& sinks, detail::Shared& shared,
                                       const Options& options, std::atomic<size_t>& finished,
                                       std::condition_variable& wake) {
    for (auto& sink : sinks)
        if (!shared.abort.load())
            detail::start_sink(*sink, shared, options);
    for (auto& source : sources)
        if (!shared.abort.load())
            detail::start_source(*source, shared, options);
    std::vector<std::thread> threads;
    auto done = [&] {
        finished.fetch_add(1);
        wake.notify_all();
    };
    for (auto& sink : sinks)
        threads.emplace_back([&shared, &options, done, s = sink.get()] {
            detail::run_sink(*s, shared, options);
            done();
        });
    for (auto& source : sources)
        threads.emplace_back([&shared, &options, done, s = source.get()] {
            detail::run_source(*s, shared, options);
            done();
        });
    return threads;
}

}  // namespace

namespace {

// User + system CPU seconds of every thread of the process so far.
double process_cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

uint64_t Summary::bytes_verified() const {
    uint64_t bytes = 0;
    for (const auto& row : rows)
        bytes += (row.words_verified + row.card_words_verified) * 4;
    return bytes;
}

Summary StreamTest::run(Observer& observer) {
    detail::Shared shared;
    std::mutex mutex;
    std::condition_variable wake;
    std::atomic<size_t> finished{0};
    const auto start = Clock::now();
    const double cpu_at_start = process_cpu_seconds();
    for (auto& source : m_sources)
        source->counter.reset(start);
    for (auto& sink : m_sinks)
        sink->counter.reset(start);
    observer.on_start();
    const bool host_verifies = std::any_of(m_sinks.begin(), m_sinks.end(), [](const auto& s) { return s->expect != nullptr; });
    for (auto& source : m_sources) {
        source->store = host_verifies ? pattern::Store::NonTemporal : pattern::Store::Cached;
        const bool feeds_a_sink = std::any_of(m_sinks.begin(), m_sinks.end(),
                                              [&](const auto& s) { return s->source == source.get(); });
        source->replay = m_options.h2c_replay && !feeds_a_sink && source->channel.checks_h2c_data() &&
                         source->channel.poisons_destination();
        source->generated.assign(source->replay ? source->channel.buffer_count() : 0, std::nullopt);
    }
    std::vector<streams::StreamChannel*> counted;  // channels whose IP counts what they move
    for (auto& source : m_sources)
        if (source->channel.start_ip_counts())
            counted.push_back(&source->channel);
    for (auto& sink : m_sinks)
        if (sink->channel.start_ip_counts())
            counted.push_back(&sink->channel);
    std::vector<std::thread> threads = start_workers(m_sources, m_sinks, shared, m_options, finished, wake);

    Summary summary;
    auto next_report = start + m_options.report_interval;
    const size_t workers = threads.size();
    while (finished.load() < workers) {
        {
            std::unique_lock lock(mutex);
            wake.wait_for(lock, std::chrono::milliseconds(20));
        }
        const auto now = Clock::now();
        if (now >= next_report && !shared.stop_submitting.load() && !shared.abort.load()) {
            report_interval(observer, shared);
            next_report += m_options.report_interval;
        }
        if (m_options.stop != nullptr && m_options.stop->load() && !shared.stop_submitting.load()) {
            summary.stopped_by_user = true;
            shared.stop_submitting.store(true);
        }
        if (m_options.duration && now - start >= *m_options.duration)
            shared.stop_submitting.store(true);
        if (m_options.stop_failing != nullptr && m_options.stop_failing->load())
            shared.stop_submitting.store(true);
    }
    for (auto& thread : threads)
        thread.join();

    // The part interval since the last report (as fpga_sio prints after Ctrl-C).
    auto last = take_intervals(true);
    bool any = false;
    for (const auto& [label, interval] : last)
        any = any || interval.bytes > 0;
    if (any && shared.failures.empty())
        observer.on_interval(last);

    // Every channel must be idle now: a channel left running would keep DMA going after exit.
    auto check_idle = [&](streams::StreamChannel& channel) {
        if (channel.busy())
            shared.fail(Failure{channel.name(), "still busy after stop", std::nullopt, std::nullopt});
    };
    for (auto& source : m_sources)
        check_idle(source->channel);
    for (auto& sink : m_sinks)
        check_idle(sink->channel);
    summary.failures = shared.failures;
    for (const streams::StreamChannel* channel : counted)
        for (std::string& line : channel->ip_counts())
            summary.ip_counts.push_back(std::move(line));
    for (const auto& row : m_rows)
        summary.rows.push_back(totals(row, summary.failures));
    summary.cpu_seconds = process_cpu_seconds() - cpu_at_start;
    summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return summary;
}

RowTotals StreamTest::totals(const Row& row, const std::vector<Failure>& failures) {
    RowTotals totals;
    totals.label = row.label;
    totals.total = counter(row).total();
    std::vector<std::string> channels;
    if (row.is_source) {
        const Source& source = *m_sources[row.index];
        channels.push_back(source.channel.name());
        if (source.channel.checks_h2c_data()) {
            totals.verifies = totals.on_card = true;
            totals.words_verified = source.card_words_verified.load();
            totals.replayed = source.replay;
        }
    } else {
        const Sink& sink = *m_sinks[row.index];
        channels.push_back(sink.channel.name());
        totals.function = sink.function;
        if (sink.expect) {
            totals.verifies = true;
            totals.words_verified = sink.words_verified.load();
        }
        if (sink.source != nullptr && row.pair) {
            channels.push_back(sink.source->channel.name());
            totals.card_words_verified = sink.source->card_words_verified.load();
        }
    }
    // The row's own first failure (a pair row owns its sink's and its source's).
    for (const auto& failure : failures) {
        if (std::find(channels.begin(), channels.end(), failure.channel) != channels.end()) {
            totals.failure = failure;
            break;
        }
    }
    return totals;
}

}  // namespace stream_test
