// The CUDA stream channels: two CUDA streams each (copies on one, kernels on the other, so a
// check or a generation never holds up the next copy), a ring of host buffers, device slots,
// and per buffer an event between the two streams and an event that says it completed. In loopback, both
// channels of a pair share a Loop: the n-th H2C packet fills slot n % N and the n-th C2H buffer
// is copied from that slot, ordered on the GPU by events, never by waiting on the host.
// Pageable host memory: the work is issued on an Issuer thread (issuer.hpp), one per channel or
// one per loopback pair, so that the driver's staging copies run beside the host's checks.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "cuda_raii.hpp"
#include "cuda_stream/cuda_stream.hpp"
#include "issuer.hpp"
#include "kernels.hpp"
#include "lie.hpp"
#include "pattern/pattern.hpp"

namespace cuda_stream {

using detail::cuda_error;
using streams::Direction;

namespace {

constexpr int kPoison = 0xa5;  // an independent H2C slot between its check and its next copy

struct Entry {
    size_t index = 0;
    uint64_t length = 0;
    bool issued = false;
    uint64_t transfer = 0;  // its number among the channel's transfers, from 1 (once issued)
    uint64_t id = 0;          // names the entry to an Issuer job (pageable memory)
    bool scheduled = false;   // its copy was issued or posted to the Issuer
};

// A tail completes_early held back, and the transfer it belongs to.
struct Tail {
    detail::HeldBackTail copy;
    uint64_t transfer = 0;
};

}  // namespace

class CudaChannel;

class Loop {
public:
    Loop(int gpu, size_t slots, uint64_t slot_size, detail::DeviceBuffer ring, std::vector<detail::Event> filled,
         std::vector<detail::Event> drained)
        : gpu(gpu), slots(slots), slot_size(slot_size), m_ring(std::move(ring)), m_filled(std::move(filled)),
          m_drained(std::move(drained)), m_length(slots, 0) {}

    // Issues every queued copy that the slots allow (called with mutex held).
    pdt::Result<void> pump();
    uint8_t* slot(uint64_t sequence) const { return m_ring.data() + sequence % slots * slot_size; }

    const int gpu;
    const size_t slots;
    const uint64_t slot_size;
    std::mutex mutex;
    CudaChannel* h2c = nullptr;
    CudaChannel* c2h = nullptr;

private:
    detail::DeviceBuffer m_ring;
    std::vector<detail::Event> m_filled, m_drained;
    std::vector<uint64_t> m_length;  // bytes the H2C packet in each slot holds
    uint64_t m_h2c_issued = 0, m_c2h_issued = 0;

public:
    std::unique_ptr<detail::Issuer> issuer;  // pageable memory: both channels' work, in pump's order (last: joined first)
};

class CudaChannel : public streams::StreamChannel {
public:
    CudaChannel(const ChannelConfig& config, Direction direction, std::shared_ptr<Loop> loop, std::string name)
        : m_config(config), m_direction(direction), m_loop(std::move(loop)), m_name(std::move(name)),
          m_spans(config.buffer_count),
          m_lie_transfers(config.lie_transfers ? config.lie_transfers : std::make_shared<LieCounter>(0)) {}
    ~CudaChannel() override {
        if (m_loop) {  // first, so that the partner's pump posts no more work of this channel
            std::lock_guard lock(m_loop->mutex);
            (m_direction == Direction::H2C ? m_loop->h2c : m_loop->c2h) = nullptr;
        }
        (void)stop();
    }

    pdt::Result<void> allocate();

    Direction direction() const override { return m_direction; }
    std::string name() const override { return m_name; }
    size_t buffer_count() const override { return m_config.buffer_count; }
    uint64_t buffer_size() const override { return m_config.buffer_size; }
    uint8_t* buffer(size_t index) override { return m_host.at(index).data(); }
    bool checks_h2c_data() const override { return m_direction == Direction::H2C; }
    // Independent H2C: each slot is poisoned on the GPU once its check ran, before its next copy.
    bool poisons_destination() const override { return m_direction == Direction::H2C && !m_loop; }
    void describe(size_t index, const streams::PatternSpan& content) override {
        if (index < m_spans.size())
            m_spans[index] = content;
    }
    std::optional<uint64_t> generated_stream() const override {
        if (m_direction == Direction::C2H && !m_loop)
            return generated_stream_of(m_config.channel);
        return std::nullopt;
    }

    pdt::Result<void> submit(size_t index, uint64_t length, bool end_of_packet) override;
    pdt::Result<std::optional<streams::Completion>> poll() override;
    pdt::Result<streams::Completion> wait(std::chrono::milliseconds timeout) override;
    pdt::Result<void> stop() override;
    bool busy() const override {
        std::lock_guard lock(mutex());
        return !m_queue.empty();
    }

    // The first queued copy not yet issued to the GPU or posted to the Issuer (called with mutex held).
    Entry* first_unscheduled() {
        auto it = std::find_if(m_queue.begin(), m_queue.end(), [](const Entry& e) { return !e.scheduled; });
        return it == m_queue.end() ? nullptr : &*it;
    }
    // Issues entry's copy between slot and its host buffer; waits for `after` first (may be
    // null) and records `done` (may be null) once the slot is filled (H2C) or read (C2H). With
    // pageable memory it is posted to the Issuer, and marked issued once the job ran.
    pdt::Result<void> issue(Entry& entry, uint8_t* slot, cudaEvent_t after, cudaEvent_t done);

private:
    std::mutex& mutex() const { return m_loop ? m_loop->mutex : m_mutex; }
    detail::Issuer* issuer() const { return m_loop ? m_loop->issuer.get() : m_issuer.get(); }
    pdt::Result<void> issue_now(Entry& entry, uint8_t* slot, cudaEvent_t after, cudaEvent_t done);
    pdt::Result<void> issue_h2c(Entry& entry, uint8_t* slot, cudaEvent_t after, cudaEvent_t done);
    pdt::Result<void> issue_c2h(Entry& entry, uint8_t* slot, cudaEvent_t after, cudaEvent_t done);
    pdt::Result<void> corrupt_if_inside(uint8_t* slot, uint64_t stream_byte, uint64_t length, Direction direction,
                                        cudaStream_t stream);
    // The entry's copy between host buffer and slot, as the test-only lie allows (config.lie).
    pdt::Result<void> copy(Entry& entry, void* dst, const void* src, cudaMemcpyKind kind, cudaStream_t stream,
                           const char* operation);
    // Copies the held-back tails of the transfers poll handed over (completes_early).
    pdt::Result<void> land_tails(cudaStream_t stream);
    pdt::Result<void> record(cudaEvent_t event, cudaStream_t stream);
    pdt::Result<void> wait_for(cudaStream_t stream, cudaEvent_t event);
    pdt::Result<streams::Completion> complete(const Entry& entry);

    ChannelConfig m_config;
    Direction m_direction;
    std::shared_ptr<Loop> m_loop;
    std::string m_name;
    mutable std::mutex m_mutex;
    detail::Stream m_stream;         // copies
    detail::Stream m_kernel_stream;  // H2C: checks; C2H: generation
    std::vector<detail::HostBuffer> m_host;
    std::vector<detail::DeviceBuffer> m_slots;  // independent channels: one slot per buffer
    std::vector<detail::Event> m_events;  // the buffer's work is done (its completion)
    std::vector<detail::Event> m_handed;  // H2C: copied, to check; C2H: generated, to copy
    std::vector<detail::Event> m_poisoned;  // independent H2C: the slot holds poison again
    std::vector<streams::PatternSpan> m_spans;
    std::shared_ptr<void> m_results_memory;           // mapped pinned memory: one CheckResult per buffer
    detail::CheckResult* m_results = nullptr;         // as the host addresses it
    detail::CheckResult* m_device_results = nullptr;  // as the GPU addresses it
    std::deque<Entry> m_queue;
    uint64_t m_generated_words = 0;  // C2H independent: the next word of the generated stream
    std::shared_ptr<LieCounter> m_lie_transfers;  // the transfers the lie counts (a device's channels share it)
    uint64_t m_transfers = 0;                     // this channel's transfers issued
    std::atomic<uint64_t> m_handed_over{0};       // transfers 1..this were handed over by poll
    std::deque<Tail> m_tails;                     // completes_early: held back, in transfer order
    uint64_t m_next_id = 0;
    std::unique_ptr<detail::Issuer> m_issuer;  // pageable, not looped back (last: joined first)
};

pdt::Result<void> Loop::pump() {
    for (;;) {
        Entry* h = h2c ? h2c->first_unscheduled() : nullptr;
        if (h != nullptr && m_h2c_issued < m_c2h_issued + slots) {
            const size_t s = m_h2c_issued % slots;
            PDT_CHECK(h2c->issue(*h, slot(m_h2c_issued), m_h2c_issued >= slots ? m_drained[s].get() : nullptr,
                                 m_filled[s].get()));
            m_length[s] = h->length;
            ++m_h2c_issued;
            continue;
        }
        Entry* c = c2h ? c2h->first_unscheduled() : nullptr;
        if (c != nullptr && m_c2h_issued < m_h2c_issued) {
            const size_t s = m_c2h_issued % slots;
            if (c->length < m_length[s])
                return pdt::make_error("loop back on the GPU", c2h->name(), EINVAL,
                                       "C2H buffer of " + std::to_string(c->length) + " bytes is smaller than the " +
                                           std::to_string(m_length[s]) + "-byte H2C packet");
            c->length = m_length[s];
            PDT_CHECK(c2h->issue(*c, slot(m_c2h_issued), m_filled[s].get(), m_drained[s].get()));
            ++m_c2h_issued;
            continue;
        }
        return {};
    }
}

pdt::Result<void> CudaChannel::allocate() {
    PDT_CUDA(cudaSetDevice(m_config.gpu), "cudaSetDevice", m_name);
    void* results = nullptr;
    PDT_CUDA(cudaHostAlloc(&results, m_config.buffer_count * sizeof(detail::CheckResult),
                           cudaHostAllocMapped | cudaHostAllocPortable),
             "cudaHostAlloc", m_name);
    m_results_memory = std::shared_ptr<void>(results, [](void* p) { cudaFreeHost(p); });
    m_results = static_cast<detail::CheckResult*>(results);
    void* device_results = nullptr;
    PDT_CUDA(cudaHostGetDevicePointer(&device_results, results, 0), "cudaHostGetDevicePointer", m_name);
    m_device_results = static_cast<detail::CheckResult*>(device_results);
    if (m_config.memory == HostMemory::Pageable) {
        if (!m_loop)
            m_issuer = std::make_unique<detail::Issuer>();
        else if (std::lock_guard lock(m_loop->mutex); !m_loop->issuer)
            m_loop->issuer = std::make_unique<detail::Issuer>();
    }
    m_stream = PDT_TRY(detail::Stream::create(m_name));
    m_kernel_stream = PDT_TRY(detail::Stream::create(m_name));
    for (size_t i = 0; i < m_config.buffer_count; ++i) {
        m_host.push_back(PDT_TRY(detail::HostBuffer::allocate(m_config.buffer_size, m_config.memory, m_name)));
        m_events.push_back(PDT_TRY(detail::Event::create(m_name)));
        m_handed.push_back(PDT_TRY(detail::Event::create(m_name)));
        m_poisoned.push_back(PDT_TRY(detail::Event::create(m_name)));
        if (!m_loop) {
            m_slots.push_back(PDT_TRY(detail::DeviceBuffer::allocate(m_config.buffer_size, m_name)));
            PDT_CUDA(cudaMemset(m_slots.back().data(), kPoison, m_config.buffer_size), "cudaMemset (poison)", m_name);
        }
    }
    return {};
}

pdt::Result<void> CudaChannel::submit(size_t index, uint64_t length, bool /*end_of_packet*/) {
    if (index >= m_config.buffer_count || length == 0 || length > m_config.buffer_size || length % 4 != 0)
        return pdt::make_error("submit", m_name, EINVAL,
                               "buffer " + std::to_string(index) + " length " + std::to_string(length) +
                                   ": needs a buffer index below " + std::to_string(m_config.buffer_count) +
                                   " and a non-zero multiple of 4 bytes up to the buffer size");
    std::lock_guard lock(mutex());
    m_queue.push_back(Entry{index, length, false, 0, ++m_next_id, false});
    if (m_loop)
        return m_loop->pump();
    Entry& entry = m_queue.back();
    return issue(entry, m_slots[index].data(), nullptr, nullptr);
}

pdt::Result<void> CudaChannel::issue(Entry& entry, uint8_t* slot, cudaEvent_t after, cudaEvent_t done) {
    entry.scheduled = true;
    detail::Issuer* on = issuer();
    if (on == nullptr)
        return issue_now(entry, slot, after, done);
    on->post([this, copy = entry, slot, after, done]() mutable -> pdt::Result<void> {
        PDT_CHECK(issue_now(copy, slot, after, done));
        std::lock_guard lock(mutex());
        for (Entry& e : m_queue)
            if (e.id == copy.id) {
                e.issued = true;
                e.transfer = copy.transfer;
            }
        return {};
    });
    return {};
}

pdt::Result<void> CudaChannel::issue_now(Entry& entry, uint8_t* slot, cudaEvent_t after, cudaEvent_t done) {
    PDT_CUDA(cudaSetDevice(m_config.gpu), "cudaSetDevice", m_name);
    PDT_CHECK(m_direction == Direction::H2C ? issue_h2c(entry, slot, after, done) : issue_c2h(entry, slot, after, done));
    entry.issued = true;
    return {};
}

pdt::Result<void> CudaChannel::record(cudaEvent_t event, cudaStream_t stream) {
    PDT_CUDA(cudaEventRecord(event, stream), "cudaEventRecord", m_name);
    return {};
}

pdt::Result<void> CudaChannel::wait_for(cudaStream_t stream, cudaEvent_t event) {
    PDT_CUDA(cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent", m_name);
    return {};
}

pdt::Result<void> CudaChannel::copy(Entry& entry, void* dst, const void* src, cudaMemcpyKind kind,
                                    cudaStream_t stream, const char* operation) {
    PDT_CHECK(land_tails(stream));  // the next transfer starts: what was held back lands first
    entry.transfer = ++m_transfers;
    const detail::LieSplit split =
        m_config.lie.kind == streams::Lie::Kind::None ? detail::LieSplit{entry.length, 0}
                                           : detail::split_copy(m_config.lie, m_lie_transfers->fetch_add(1) + 1,
                                                                entry.length);
    if (split.now > 0)
        PDT_CUDA(cudaMemcpyAsync(dst, src, split.now, kind, stream), operation, m_name);
    if (split.held_back > 0)
        m_tails.push_back(Tail{{static_cast<uint8_t*>(dst) + split.now, static_cast<const uint8_t*>(src) + split.now,
                                split.held_back, kind},
                               entry.transfer});
    return {};
}

pdt::Result<void> CudaChannel::land_tails(cudaStream_t stream) {
    while (!m_tails.empty() && m_tails.front().transfer <= m_handed_over) {
        const detail::HeldBackTail& t = m_tails.front().copy;
        PDT_CUDA(cudaMemcpyAsync(t.dst, t.src, t.bytes, t.kind, stream), "cudaMemcpyAsync of a held-back tail", m_name);
        m_tails.pop_front();
    }
    return {};
}

pdt::Result<void> CudaChannel::corrupt_if_inside(uint8_t* slot, uint64_t stream_byte, uint64_t length,
                                                 Direction direction, cudaStream_t stream) {
    const auto& c = m_config.corruption;
    if (!c || c->direction != direction || c->stream_byte_offset < stream_byte ||
        c->stream_byte_offset >= stream_byte + length)
        return {};
    PDT_CUDA(detail::launch_corrupt(slot, c->stream_byte_offset - stream_byte, stream), "corrupt a byte", m_name);
    return {};
}

// Copy stream: [wait for the slot to be free | poisoned] copy, [corrupt]; kernel stream: check,
// then the slot is filled (done) and the buffer complete; independent: then the slot is
// poisoned for its next copy (poisons_destination), off the copies' path.
pdt::Result<void> CudaChannel::issue_h2c(Entry& entry, uint8_t* slot, cudaEvent_t after, cudaEvent_t done) {
    const streams::PatternSpan span = m_spans[entry.index];
    cudaStream_t copy = m_stream.get(), kernel = m_kernel_stream.get();
    if (after != nullptr)
        PDT_CHECK(wait_for(copy, after));
    if (!m_loop)
        PDT_CHECK(wait_for(copy, m_poisoned[entry.index].get()));  // never recorded yet: no wait
    PDT_CHECK(this->copy(entry, slot, m_host[entry.index].data(), cudaMemcpyHostToDevice, copy, "cudaMemcpyAsync H2D"));
    PDT_CHECK(corrupt_if_inside(slot, span.first_word * 4, entry.length, Direction::H2C, copy));
    PDT_CHECK(record(m_handed[entry.index].get(), copy));
    PDT_CHECK(wait_for(kernel, m_handed[entry.index].get()));
    m_results[entry.index] = detail::CheckResult{0, ~0ull, 0, 0};
    PDT_CUDA(detail::launch_check(reinterpret_cast<const uint32_t*>(slot), entry.length / 4, span.stream, span.pass,
                                  span.first_word, &m_device_results[entry.index], kernel),
             "launch the H2D check kernel", m_name);
    if (done != nullptr)
        PDT_CHECK(record(done, kernel));
    PDT_CHECK(record(m_events[entry.index].get(), kernel));
    if (m_loop)
        return {};
    PDT_CUDA(cudaMemsetAsync(slot, kPoison, m_config.buffer_size, kernel), "cudaMemsetAsync (poison)", m_name);
    return record(m_poisoned[entry.index].get(), kernel);
}

// Independent: kernel stream generates [and corrupts], copy stream copies. Loopback: copy
// stream waits for the slot to be filled, copies, and the slot is free again (done).
pdt::Result<void> CudaChannel::issue_c2h(Entry& entry, uint8_t* slot, cudaEvent_t after, cudaEvent_t done) {
    cudaStream_t copy = m_stream.get(), kernel = m_kernel_stream.get();
    if (!m_loop) {
        PDT_CUDA(detail::launch_generate(reinterpret_cast<uint32_t*>(slot), entry.length / 4,
                                         generated_stream_of(m_config.channel), 0, m_generated_words, kernel),
                 "launch the D2H generate kernel", m_name);
        PDT_CHECK(corrupt_if_inside(slot, m_generated_words * 4, entry.length, Direction::C2H, kernel));
        m_generated_words += entry.length / 4;
        PDT_CHECK(record(m_handed[entry.index].get(), kernel));
        after = m_handed[entry.index].get();
    }
    if (after != nullptr)
        PDT_CHECK(wait_for(copy, after));
    PDT_CHECK(this->copy(entry, m_host[entry.index].data(), slot, cudaMemcpyDeviceToHost, copy, "cudaMemcpyAsync D2H"));
    if (done != nullptr)
        PDT_CHECK(record(done, copy));
    return record(m_events[entry.index].get(), copy);
}

pdt::Result<streams::Completion> CudaChannel::complete(const Entry& entry) {
    streams::Completion completion{entry.index, entry.length, true, 0};
    if (m_direction == Direction::C2H)
        return completion;
    const detail::CheckResult& r = m_results[entry.index];
    if (r.bad_words != 0) {
        const pattern::Mismatch mismatch{r.bad_words, r.first_bad_word, r.expected, r.actual};
        const uint64_t at = r.first_bad_word * 4, first = m_spans[entry.index].first_word * 4;
        char where[160];
        std::snprintf(where, sizeof where,
                      "GPU check: data error at stream byte offset 0x%" PRIx64 " (transfer %" PRIu64
                      " of the channel, byte 0x%" PRIx64 " of its %" PRIu64 "): ",
                      at, entry.transfer, at - first, entry.length);
        return pdt::make_error("check H2D data", m_name, EIO, where + mismatch.describe());
    }
    completion.card_verified_bytes = entry.length;
    return completion;
}

pdt::Result<std::optional<streams::Completion>> CudaChannel::poll() {
    std::lock_guard lock(mutex());
    if (detail::Issuer* on = issuer())
        if (auto failed = on->error())
            return *failed;
    if (m_queue.empty() || !m_queue.front().issued)
        return std::optional<streams::Completion>{};
    const Entry entry = m_queue.front();
    const cudaError_t state = cudaEventQuery(m_events[entry.index].get());
    if (state == cudaErrorNotReady)
        return std::optional<streams::Completion>{};
    if (state != cudaSuccess)
        return cuda_error("cudaEventQuery", m_name, state);
    m_queue.pop_front();
    m_handed_over = entry.transfer;
    return std::optional<streams::Completion>{PDT_TRY(complete(entry))};
}

pdt::Result<streams::Completion> CudaChannel::wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        auto polled = PDT_TRY(poll());
        if (polled)
            return *polled;
        if (std::chrono::steady_clock::now() >= deadline)
            return pdt::make_error("wait for completion", m_name, ETIMEDOUT);
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
}

pdt::Result<void> CudaChannel::stop() {
    if (detail::Issuer* on = issuer())
        on->drain();  // before the lock: a job takes it when it finishes
    std::lock_guard lock(mutex());
    if (m_stream.get() == nullptr)
        return {};
    PDT_CUDA(cudaSetDevice(m_config.gpu), "cudaSetDevice", m_name);
    cudaError_t error = cudaStreamSynchronize(m_stream.get());
    const cudaError_t kernel_error = cudaStreamSynchronize(m_kernel_stream.get());
    error = error != cudaSuccess ? error : kernel_error;
    m_queue.clear();
    m_tails.clear();  // held-back tails of transfers a stop abandoned never land
    if (error != cudaSuccess)
        return cuda_error("cudaStreamSynchronize", m_name, error);
    if (detail::Issuer* on = issuer())
        if (auto failed = on->error())
            return *failed;
    return {};
}

pdt::Result<std::shared_ptr<Loop>> make_loop(int gpu, size_t slots, uint64_t slot_size) {
    const std::string object = "GPU " + std::to_string(gpu) + " loopback ring";
    PDT_CUDA(cudaSetDevice(gpu), "cudaSetDevice", object);
    detail::DeviceBuffer ring = PDT_TRY(detail::DeviceBuffer::allocate(slots * slot_size, object));
    std::vector<detail::Event> filled, drained;
    for (size_t i = 0; i < slots; ++i) {
        filled.push_back(PDT_TRY(detail::Event::create(object)));
        drained.push_back(PDT_TRY(detail::Event::create(object)));
    }
    return std::make_shared<Loop>(gpu, slots, slot_size, std::move(ring), std::move(filled), std::move(drained));
}

namespace {

pdt::Result<std::unique_ptr<streams::StreamChannel>> open(const ChannelConfig& config, Direction direction,
                                                          std::shared_ptr<Loop> loop) {
    const GpuInfo info = PDT_TRY(gpu_info(config.gpu));
    const std::string name = info.pci_bus_id + " " + streams::to_string(direction) + " " +
                             std::to_string(config.channel);
    if (config.buffer_count == 0 || config.buffer_size == 0 || config.buffer_size % 4 != 0)
        return pdt::make_error("open CUDA channel", name, EINVAL,
                               "needs at least one buffer, of a non-zero multiple of 4 bytes");
    if (loop && (loop->slot_size < config.buffer_size || loop->gpu != config.gpu))
        return pdt::make_error("open CUDA channel", name, EINVAL, "the loopback ring's slots are too small");
    auto channel = std::make_unique<CudaChannel>(config, direction, loop, name);
    PDT_CHECK(channel->allocate());
    if (loop) {
        std::lock_guard lock(loop->mutex);
        (direction == Direction::H2C ? loop->h2c : loop->c2h) = channel.get();
    }
    return std::unique_ptr<streams::StreamChannel>(std::move(channel));
}

}  // namespace

pdt::Result<std::unique_ptr<streams::StreamChannel>> open_h2c(const ChannelConfig& config,
                                                              std::shared_ptr<Loop> loop) {
    return open(config, Direction::H2C, std::move(loop));
}

pdt::Result<std::unique_ptr<streams::StreamChannel>> open_c2h(const ChannelConfig& config,
                                                              std::shared_ptr<Loop> loop) {
    return open(config, Direction::C2H, std::move(loop));
}

}  // namespace cuda_stream
