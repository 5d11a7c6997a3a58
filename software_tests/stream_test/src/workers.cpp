#include "workers.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>

namespace stream_test::detail {
namespace {

// How long one wait for a completion blocks before the worker looks at stop / abort again.
constexpr std::chrono::milliseconds WAIT_SLICE{20};

std::string format(const char* fmt, auto... args) {
    char text[256];
    std::snprintf(text, sizeof text, fmt, args...);
    return text;
}

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
        shared.fail(channel_failure(channel,
                                    format("timeout: no %s completion for %.3f secs",
                                           streams::to_string(channel.direction()), secs),
                                    byte_offset));
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
    pattern::generate(options.pool, source.pattern, reinterpret_cast<uint32_t*>(channel.buffer(index)), words,
                      source.next_word);
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

bool start_sink(Sink& sink, Shared& shared) {
    auto& channel = sink.channel;
    for (size_t i = 0; i < channel.buffer_count(); ++i) {
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

// Checks one C2H completion: length and EOP against the source's packets, then every word.
bool check_received(Sink& sink, Shared& shared, const Options& options, const streams::Completion& completion) {
    auto& channel = sink.channel;
    const uint64_t length = completion.length;
    if (length == 0 || length > channel.buffer_size() || length % 4 != 0) {
        shared.fail(channel_failure(channel, format("C2H completion length %" PRIu64 " invalid (buffer %" PRIu64 ")",
                                                    length, channel.buffer_size()),
                                    sink.rx_bytes));
        return false;
    }
    if (sink.source == nullptr)
        return true;
    const uint64_t packet = sink.source->packet_bytes;
    const uint64_t in_packet = sink.rx_bytes % packet;
    const uint64_t expected_length = std::min(packet - in_packet, channel.buffer_size());
    const bool expected_eop = in_packet + expected_length == packet;
    if (length != expected_length || completion.end_of_packet != expected_eop) {
        shared.fail(channel_failure(channel,
                                    format("C2H completion length %" PRIu64 " EOP %d, expected length %" PRIu64
                                           " EOP %d (packets of %" PRIu64 " bytes)",
                                           length, completion.end_of_packet ? 1 : 0, expected_length,
                                           expected_eop ? 1 : 0, packet),
                                    sink.rx_bytes));
        return false;
    }
    const auto* words = reinterpret_cast<const uint32_t*>(channel.buffer(completion.buffer));
    const pattern::Mismatch mismatch =
        pattern::verify(options.pool, sink.source->pattern, words, length / 4, sink.rx_bytes / 4);
    if (!mismatch.ok()) {
        Failure failure = channel_failure(channel,
                                          format("data error in buffer %zu at stream byte offset 0x%" PRIx64 ": ",
                                                 completion.buffer, mismatch.first_bad_word * 4) +
                                              mismatch.describe(sink.rx_bytes / 4),
                                          mismatch.first_bad_word * 4);
        failure.mismatch = mismatch;
        shared.fail(std::move(failure));
        return false;
    }
    sink.words_verified.fetch_add(length / 4);
    return true;
}

bool sink_drained(const Sink& sink, const Shared& shared) {
    if (sink.source == nullptr)
        return shared.stop_submitting.load();
    return sink.source->finished.load() && sink.rx_bytes >= sink.source->bytes_submitted.load();
}

}  // namespace

void run_sink(Sink& sink, Shared& shared, const Options& options) {
    auto& channel = sink.channel;
    auto last_progress = Clock::now();
    while (!shared.abort.load() && !sink_drained(sink, shared)) {
        streams::Completion completion;
        const Waited waited = wait_completion(channel, shared, options, last_progress, sink.rx_bytes, completion);
        if (waited == Waited::Failed)
            break;
        if (waited == Waited::Nothing)
            continue;
        if (!check_order(channel, shared, sink.in_flight, completion, sink.rx_bytes) ||
            !check_received(sink, shared, options, completion))
            break;
        sink.rx_bytes += completion.length;
        sink.counter.add(completion.length, Clock::now());
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
