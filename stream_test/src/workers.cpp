#include "base/format.hpp"
#include "workers.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>

namespace stream_test::detail {
namespace {

// How long one wait for a completion blocks before the worker looks at stop / abort again.
constexpr std::chrono::milliseconds WAIT_SLICE{20};

using pdt::format;

Failure channel_failure(const streams::StreamChannel& channel, std::string message, uint64_t byte_offset) {
    return Failure{channel.name(), std::move(message), byte_offset, std::nullopt};
}

// Waits for the next completion. nullopt with no failure: nothing yet (keep going);
// a failure: recorded, and the worker must stop.
enum class Waited { Completion, Nothing, Failed };

Waited wait_completion(streams::StreamChannel& channel, Shared& shared, const Options& options,
                       Clock::time_point& last_progress, uint64_t byte_offset, streams::Completion& out) {
    auto result = channel.wait(WAIT_SLICE);
    const auto now = Clock::now();
    if (result.ok()) {
        last_progress = now;
        out = *result;
        return Waited::Completion;
    }
    if (result.error().code != ETIMEDOUT) {
        shared.fail(channel_failure(channel, "wait: " + result.error().message(), byte_offset));
        return Waited::Failed;
    }
    if (now - last_progress > options.transfer_timeout) {
        const double secs = std::chrono::duration<double>(options.transfer_timeout).count();
        const std::string what =
            format("timeout: no %s completion for %.3f secs", streams::to_string(channel.direction()), secs);
        channel.report_failure(what);  // the engine's registers, where the channel can give them
        shared.fail(channel_failure(channel, what, byte_offset));
        return Waited::Failed;
    }
    return Waited::Nothing;
}

// Completions come back in submission order (the seam's contract): check it.
bool check_order(streams::StreamChannel& channel, Shared& shared, std::deque<size_t>& in_flight,
                 const streams::Completion& completion, uint64_t byte_offset) {
    if (!in_flight.empty() && completion.buffer == in_flight.front()) {
        in_flight.pop_front();
        return true;
    }
    const std::string expected = in_flight.empty() ? std::string("none queued") : std::to_string(in_flight.front());
    shared.fail(channel_failure(channel,
                                format("completion out of order: buffer %zu completed, expected %s",
                                       completion.buffer, expected.c_str()),
                                byte_offset));
    return false;
}

void stop_channel(streams::StreamChannel& channel, Shared& shared, uint64_t byte_offset) {
    auto result = channel.stop();
    if (!result.ok())
        shared.fail(channel_failure(channel, "stop: " + result.error().message(), byte_offset));
}

bool submit_source_buffer(Source& source, Shared& shared, const Options& options, size_t index) {
    auto& channel = source.channel;
    const uint64_t words = source.packet_bytes / 4;
    if (source.replay && index < source.generated.size() && source.generated[index]) {
        channel.describe(index, *source.generated[index]);  // resent unchanged: the card poisons first
    } else {
        pattern::generate(options.pool, source.pattern, reinterpret_cast<uint32_t*>(channel.buffer(index)), words,
                          source.next_word, source.store);
        const streams::PatternSpan span{source.pattern.stream(), source.pattern.pass(), source.next_word};
        channel.describe(index, span);
        if (source.replay && index < source.generated.size())
            source.generated[index] = span;
    }
    auto result = channel.submit(index, source.packet_bytes, true);
    if (!result.ok()) {
        shared.fail(channel_failure(channel, "submit: " + result.error().message(), source.next_word * 4));
        return false;
    }
    source.in_flight.push_back(index);
    source.next_word += words;
    source.bytes_submitted.fetch_add(source.packet_bytes);
    return true;
}

}  // namespace

void Shared::fail(Failure failure) {
    {
        std::lock_guard lock(mutex);
        failures.push_back(std::move(failure));
    }
    abort.store(true);
}

bool start_source(Source& source, Shared& shared, const Options& options) {
    for (size_t i = 0; i < source.channel.buffer_count(); ++i) {
        if (options.bytes_per_source && source.bytes_submitted.load() >= *options.bytes_per_source)
            break;
        if (!submit_source_buffer(source, shared, options, i))
            return false;
    }
    return true;
}

void run_source(Source& source, Shared& shared, const Options& options) {
    auto& channel = source.channel;
    auto last_progress = Clock::now();
    uint64_t completed_bytes = 0;
    while (!shared.abort.load()) {
        if (source.in_flight.empty() &&
            (shared.stop_submitting.load() ||
             (options.bytes_per_source && source.bytes_submitted.load() >= *options.bytes_per_source)))
            break;
        streams::Completion completion;
        const Waited waited = wait_completion(channel, shared, options, last_progress, completed_bytes, completion);
        if (waited == Waited::Failed)
            break;
        if (waited == Waited::Nothing)
            continue;
        if (!check_order(channel, shared, source.in_flight, completion, completed_bytes))
            break;
        if (completion.length != source.packet_bytes) {
            shared.fail(channel_failure(channel,
                                        format("H2C completion length %" PRIu64 ", submitted %" PRIu64,
                                               completion.length, source.packet_bytes),
                                        completed_bytes));
            break;
        }
        completed_bytes += completion.length;
        source.card_words_verified.fetch_add(completion.card_verified_bytes / 4);
        source.counter.add(completion.length, Clock::now());
        const bool limit_reached =
            options.bytes_per_source && source.bytes_submitted.load() >= *options.bytes_per_source;
        if (!shared.stop_submitting.load() && !limit_reached &&
            !submit_source_buffer(source, shared, options, completion.buffer))
            break;
    }
    stop_channel(channel, shared, completed_bytes);
    source.finished.store(true);
}

bool start_sink(Sink& sink, Shared& shared, const Options& options) {
    auto& channel = sink.channel;
    for (size_t i = 0; i < channel.buffer_count(); ++i) {
        if (sink.expect)
            sink.expect->prepare(channel.buffer(i), channel.buffer_size(), options.pool);
        auto result = channel.submit(i, channel.buffer_size(), false);
        if (!result.ok()) {
            shared.fail(channel_failure(channel, "submit: " + result.error().message(), 0));
            return false;
        }
        sink.in_flight.push_back(i);
    }
    return true;
}

namespace {

// A failure of the sink's transfer `transfer` (its completions counted from 1): the message
// starts "transfer <n>: ".
Failure transfer_failure(const Sink& sink, uint64_t transfer, const std::string& message, uint64_t byte_offset) {
    Failure failure = channel_failure(sink.channel, format("transfer %" PRIu64 ": ", transfer) + message, byte_offset);
    failure.transfer = transfer;
    return failure;
}

// Checks one C2H completion, the sink's transfer `transfer`: a valid length, then what the
// card function should have sent.
bool check_received(Sink& sink, Shared& shared, const Options& options, const streams::Completion& completion,
                    uint64_t transfer) {
    auto& channel = sink.channel;
    const uint64_t length = completion.length;
    if (length == 0 || length > channel.buffer_size() || length % 4 != 0) {
        shared.fail(transfer_failure(sink, transfer,
                                     format("C2H completion length %" PRIu64 " invalid (buffer %zu of %" PRIu64
                                            " bytes)",
                                            length, completion.buffer, channel.buffer_size()),
                                     sink.rx_bytes));
        return false;
    }
    if (!sink.expect)
        return true;
    Checked checked = sink.expect->check(channel, completion, sink.rx_bytes, options.pool);
    if (!checked.ok) {
        Failure failure = transfer_failure(sink, transfer, checked.message, checked.stream_byte_offset);
        failure.mismatch = checked.mismatch;
        shared.fail(std::move(failure));
        return false;
    }
    sink.words_verified.fetch_add(checked.words_verified);
    return true;
}

// A sink has drained once it received all the card makes of what its source sent; a sink
// with no end (no source, or fixed data) once submitting stopped or it received as many
// bytes as a source may send.
bool sink_drained(const Sink& sink, const Shared& shared, const Options& options) {
    const std::optional<uint64_t> expected =
        sink.expect && sink.source ? sink.expect->expected_bytes(sink.source->bytes_submitted.load()) : std::nullopt;
    if (!expected)
        return shared.stop_submitting.load() ||
               (options.bytes_per_source && sink.rx_bytes >= *options.bytes_per_source);
    return sink.source->finished.load() && sink.rx_bytes >= *expected;
}

}  // namespace

void run_sink(Sink& sink, Shared& shared, const Options& options) {
    auto& channel = sink.channel;
    auto last_progress = Clock::now();
    while (!shared.abort.load() && !sink_drained(sink, shared, options)) {
        streams::Completion completion;
        const Waited waited = wait_completion(channel, shared, options, last_progress, sink.rx_bytes, completion);
        if (waited == Waited::Failed)
            break;
        if (waited == Waited::Nothing)
            continue;
        ++sink.transfers;
        if (!check_order(channel, shared, sink.in_flight, completion, sink.rx_bytes) ||
            !check_received(sink, shared, options, completion, sink.transfers))
            break;
        sink.rx_bytes += completion.length;
        sink.counter.add(completion.length, Clock::now());
        if (sink.expect)  // poisoned before every submit (docs/verification.md, rule 2)
            sink.expect->prepare(channel.buffer(completion.buffer), channel.buffer_size(), options.pool);
        auto result = channel.submit(completion.buffer, channel.buffer_size(), false);
        if (!result.ok()) {
            shared.fail(channel_failure(channel, "submit: " + result.error().message(), sink.rx_bytes));
            break;
        }
        sink.in_flight.push_back(completion.buffer);
    }
    stop_channel(channel, shared, sink.rx_bytes);
    sink.finished.store(true);
}

}  // namespace stream_test::detail
