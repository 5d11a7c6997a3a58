#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <thread>

#include "base/format.hpp"
#include "cuda_raii.hpp"
#include "cuda_stream/cuda_copy_endpoint.hpp"
#include "kernels.hpp"
#include "lie.hpp"
#include "streams/kept_memory.hpp"

namespace cuda_stream {
namespace {

using Clock = std::chrono::steady_clock;
using streams::HostBuffer;
using streams::Ticket;
using streams::Direction;

using pdt::hex;  // "0x1f" (base/format.hpp)

// Host memory for the copies: pinned (cudaHostAlloc), huge pages pinned with cudaHostRegister,
// or plain pageable memory.
class CudaHostBuffer final : public HostBuffer {
public:
    using Release = void (*)(uint8_t*, uint64_t);
    CudaHostBuffer(uint8_t* data, uint64_t size, uint64_t mapped, streams::HostMemory memory, Release release)
        : m_data(data), m_size(size), m_mapped(mapped), m_memory(memory), m_release(release) {}
    CudaHostBuffer(const CudaHostBuffer&) = delete;
    CudaHostBuffer& operator=(const CudaHostBuffer&) = delete;
    ~CudaHostBuffer() override {
        if (m_at_risk && m_at_risk->load())
            streams::keep_until_exit(m_data);  // the GPU may still copy it (the endpoint said so)
        else
            m_release(m_data, m_mapped);
    }
    // Set once a queue's copies could not be seen complete before its stream was given up.
    void keep_if(streams::BuffersAtRisk at_risk) { m_at_risk = std::move(at_risk); }
    uint8_t* data() override { return m_data; }
    uint64_t size() const override { return m_size; }
    streams::HostMemory memory() const override { return m_memory; }
    // Expires when the buffer is gone (a held-back tail then never lands).
    std::weak_ptr<char> alive() const { return m_alive; }

private:
    uint8_t* m_data;
    uint64_t m_size, m_mapped;
    streams::HostMemory m_memory;
    Release m_release;
    streams::BuffersAtRisk m_at_risk;
    std::shared_ptr<char> m_alive = std::make_shared<char>(0);
};

constexpr uint64_t kHugePage = 2ull << 20;

pdt::Result<std::unique_ptr<HostBuffer>> allocate_host(uint64_t bytes, streams::HostMemory memory,
                                                       const std::string& object) {
    using streams::HostMemory;
    if (bytes == 0)
        return pdt::make_error("allocate host buffer", object, EINVAL, "size 0");
    void* p = nullptr;
    if (memory == HostMemory::Registered) {
        PDT_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocPortable), "cudaHostAlloc", object);
        return std::unique_ptr<HostBuffer>(std::make_unique<CudaHostBuffer>(
            static_cast<uint8_t*>(p), bytes, bytes, memory, [](uint8_t* q, uint64_t) { cudaFreeHost(q); }));
    }
    if (memory == HostMemory::Pageable) {
        p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
        if (p == nullptr)
            return pdt::make_error("allocate pageable host buffer", object, ENOMEM);
        return std::unique_ptr<HostBuffer>(std::make_unique<CudaHostBuffer>(
            static_cast<uint8_t*>(p), bytes, bytes, memory, [](uint8_t* q, uint64_t) { std::free(q); }));
    }
    const uint64_t mapped = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (p == MAP_FAILED)
        return pdt::errno_error("mmap MAP_HUGETLB " + hex(mapped) + " bytes", object,
                                "are 2 MiB huge pages reserved? (/proc/sys/vm/nr_hugepages)");
    if (const cudaError_t error = cudaHostRegister(p, mapped, cudaHostRegisterPortable); error != cudaSuccess) {
        munmap(p, mapped);
        return detail::cuda_error("cudaHostRegister of huge pages", object, error);
    }
    return std::unique_ptr<HostBuffer>(
        std::make_unique<CudaHostBuffer>(static_cast<uint8_t*>(p), bytes, mapped, memory, [](uint8_t* q, uint64_t n) {
            cudaHostUnregister(q);
            munmap(q, n);
        }));
}

struct Pending {
    uint64_t sequence = 0;
    detail::Event event;
};

// One CUDA stream: its copies in issue order, each with an event recorded behind it.
struct Queue {
    detail::Stream stream;
    std::deque<Pending> pending;        // sequences completed_before .. next_sequence - 1
    std::vector<detail::Event> spare;   // events to record again
    uint64_t next_sequence = 0;
    uint64_t completed_before = 0;
    uint64_t reported_before = 0;  // every sequence below this was reported complete by wait
};

// A tail completes_early held back: its copy, and the copy it belongs to.
struct QueuedTail {
    detail::HeldBackTail copy;
    unsigned queue = 0;
    uint64_t sequence = 0;
    std::weak_ptr<char> host_alive;  // the host buffer's
};

class CudaCopyEndpoint final : public streams::CopyEndpoint {
public:
    explicit CudaCopyEndpoint(const CopyEndpointConfig& config) : m_config(config) {}
    ~CudaCopyEndpoint() override { settle("the endpoint closed"); }

    pdt::Result<void> open();
    const streams::EndpointInfo& info() const override { return m_info; }
    pdt::Result<std::unique_ptr<HostBuffer>> allocate(uint64_t bytes, streams::HostMemory memory) override {
        PDT_CUDA(cudaSetDevice(m_config.gpu), "cudaSetDevice", m_info.name);
        auto buffer = PDT_TRY(allocate_host(bytes, memory, m_info.name));
        static_cast<CudaHostBuffer&>(*buffer).keep_if(m_at_risk);
        return buffer;
    }
    pdt::Result<Ticket> issue(Direction direction, unsigned queue, HostBuffer& host, uint64_t host_offset,
                              uint64_t card_offset, uint64_t bytes) override;
    pdt::Result<void> wait(const Ticket& ticket, std::chrono::milliseconds timeout) override;
    pdt::Result<void> reset_queues() override;
    pdt::Result<void> launch_empty(unsigned queue, unsigned count, std::chrono::milliseconds timeout) override;

private:
    pdt::Result<void> make_queue(Queue& q);
    // Before a stream is given up: waits (at most kSettle) for each queue's last copy; where it
    // does not complete, host buffers are kept from then on (m_at_risk) and a warning says so.
    void settle(const char* why);
    pdt::Result<void> retire(Queue& q);
    void retire_through(Queue& q, uint64_t sequence);
    pdt::Result<void> poll(cudaEvent_t event, Clock::time_point deadline, const std::string& operation,
                           std::chrono::milliseconds timeout);
    pdt::Result<void> usable(const std::string& operation) const;
    // The copy as the test-only lie allows (config.lie): cudaMemcpyAsync of what it moves now.
    cudaError_t lying_copy(void* dst, const void* src, uint64_t bytes, cudaMemcpyKind kind, unsigned queue,
                           HostBuffer& host);
    // Copies, on `stream`, the held-back tails of copies a wait reported complete (completes_early).
    cudaError_t land_tails(cudaStream_t stream);

    CopyEndpointConfig m_config;
    streams::EndpointInfo m_info;
    detail::DeviceBuffer m_card;
    std::vector<Queue> m_queues;
    std::optional<pdt::Error> m_broken;  // a wait timed out or a copy failed: unusable until reset_queues
    uint64_t m_lie_transfers = 0;         // copies the lie counted, both directions, every queue
    std::vector<QueuedTail> m_tails;      // completes_early: held back until the next issue
    streams::BuffersAtRisk m_at_risk = streams::make_buffers_at_risk();
};

constexpr std::chrono::milliseconds kSettle{2000};

void CudaCopyEndpoint::settle(const char* why) {
    if (m_queues.empty() || cudaSetDevice(m_config.gpu) != cudaSuccess)
        return;
    const auto deadline = Clock::now() + kSettle;
    for (size_t i = 0; i < m_queues.size(); ++i) {
        Queue& q = m_queues[i];
        if (q.pending.empty())
            continue;
        cudaError_t state;
        while ((state = cudaEventQuery(q.pending.back().event.get())) == cudaErrorNotReady && Clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        if (state == cudaSuccess) {
            retire_through(q, q.pending.back().sequence);
            continue;
        }
        if (!m_at_risk->exchange(true))
            std::fprintf(stderr,
                         "Warning: %s queue %zu: copy %" PRIu64 " not seen complete %lld ms after %s (%s): the host "
                         "buffers released from now on stay allocated until the process exits (the GPU may still "
                         "copy them)\n",
                         m_info.name.c_str(), i, q.pending.back().sequence, static_cast<long long>(kSettle.count()),
                         why, cudaGetErrorName(state));
    }
}

pdt::Result<void> CudaCopyEndpoint::open() {
    const GpuInfo gpu = PDT_TRY(gpu_info(m_config.gpu));
    m_info.name = gpu.pci_bus_id + " " + gpu.name;
    m_info.pci_address = gpu.pci_bus_id;
    if (m_config.card_memory_bytes == 0 || m_config.card_memory_bytes > gpu.memory_bytes)
        return pdt::usage_error("open CUDA copy endpoint", m_info.name,
                                "card memory of " + hex(m_config.card_memory_bytes) + " bytes: expected 1 to the GPU's " +
                                    hex(gpu.memory_bytes));
    if (m_config.queues == 0 || m_config.max_in_flight == 0)
        return pdt::make_error("open CUDA copy endpoint", m_info.name, EINVAL, "queues and max_in_flight must be 1 or more");
    PDT_CUDA(cudaSetDevice(m_config.gpu), "cudaSetDevice", m_info.name);
    m_card = PDT_TRY(detail::DeviceBuffer::allocate(m_config.card_memory_bytes, m_info.name + " card memory"));
    m_queues.resize(m_config.queues);
    for (Queue& q : m_queues)
        PDT_CHECK(make_queue(q));
    m_info.card_memory_bytes = m_config.card_memory_bytes;
    m_info.max_copy_bytes = m_config.card_memory_bytes;
    m_info.queues = m_config.queues;
    m_info.max_in_flight = m_config.max_in_flight;
    m_info.can_launch = true;
    m_info.driver_stages = false;  // only pageable host memory is staged, by the CUDA driver
    m_info.pageable_copies = true;
    return {};
}

pdt::Result<void> CudaCopyEndpoint::make_queue(Queue& q) {
    q.stream = PDT_TRY(detail::Stream::create(m_info.name));
    q.pending.clear();
    q.spare.clear();
    for (unsigned i = 0; i <= m_config.max_in_flight; ++i)  // one more for launch_empty
        q.spare.push_back(PDT_TRY(detail::Event::create(m_info.name)));
    q.completed_before = q.next_sequence;
    return {};
}

pdt::Result<void> CudaCopyEndpoint::usable(const std::string& operation) const {
    if (m_broken)
        return streams::unusable_until_reset(operation, m_info.name, *m_broken);
    return {};
}

// Every copy of the queue up to and including `sequence` completed (a stream runs in order).
void CudaCopyEndpoint::retire_through(Queue& q, uint64_t sequence) {
    while (!q.pending.empty() && q.pending.front().sequence <= sequence) {
        q.spare.push_back(std::move(q.pending.front().event));
        q.pending.pop_front();
    }
    q.completed_before = std::max(q.completed_before, sequence + 1);
}

// Takes the copies whose events fired off the front of the queue.
pdt::Result<void> CudaCopyEndpoint::retire(Queue& q) {
    while (!q.pending.empty()) {
        const cudaError_t state = cudaEventQuery(q.pending.front().event.get());
        if (state == cudaErrorNotReady)
            return {};
        if (state != cudaSuccess)
            return detail::cuda_error("copy " + std::to_string(q.pending.front().sequence) + " of", m_info.name, state);
        retire_through(q, q.pending.front().sequence);
    }
    return {};
}

pdt::Result<Ticket> CudaCopyEndpoint::issue(Direction direction, unsigned queue, HostBuffer& host,
                                            uint64_t host_offset, uint64_t card_offset, uint64_t bytes) {
    const std::string operation =
        std::string("issue ") + to_string(direction) + " copy on queue " + std::to_string(queue) + " of";
    auto refuse = [&](int code, const std::string& why) {
        return streams::copy_issue_error(m_info.name, direction, queue, host_offset, card_offset, bytes, code, why);
    };
    PDT_CHECK(usable(operation));
    if (queue >= m_queues.size())
        return refuse(EINVAL, "the endpoint has " + std::to_string(m_queues.size()) + " queue(s), numbered from 0");
    if (auto refusal = streams::range_refusal(m_info, host, host_offset, card_offset, bytes))
        return refuse(refusal->code, refusal->why);
    Queue& q = m_queues[queue];
    if (auto retired = retire(q); !retired.ok()) {
        m_broken = retired.error();
        return retired.error();
    }
    if (q.pending.size() >= m_info.max_in_flight)
        return refuse(EBUSY, std::to_string(q.pending.size()) + " copies already in flight, the most one queue holds");
    PDT_CUDA(cudaSetDevice(m_config.gpu), "cudaSetDevice", m_info.name);
    uint8_t* card = m_card.data() + card_offset;
    uint8_t* host_data = host.data() + host_offset;
    const bool h2d = direction == Direction::H2C;
    const cudaError_t copied =
        m_config.lie.kind == streams::Lie::Kind::None
            ? cudaMemcpyAsync(h2d ? card : host_data, h2d ? host_data : card, bytes,
                              h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, q.stream.get())
            : lying_copy(h2d ? card : host_data, h2d ? host_data : card, bytes,
                         h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, queue, host);
    if (copied != cudaSuccess)
        return refuse(EIO, std::string("cudaMemcpyAsync: ") + cudaGetErrorName(copied) + ": " + cudaGetErrorString(copied));
    Pending pending{q.next_sequence, std::move(q.spare.back())};
    q.spare.pop_back();
    const cudaError_t recorded = cudaEventRecord(pending.event.get(), q.stream.get());
    if (recorded != cudaSuccess) {
        q.spare.push_back(std::move(pending.event));
        m_broken = detail::cuda_error(operation, m_info.name, recorded);
        return *m_broken;
    }
    q.pending.push_back(std::move(pending));
    return Ticket{queue, q.next_sequence++};
}

// Polls an event until it fired: spinning first (a 4 KiB copy completes in microseconds),
// yielding the core after 100 us. A timeout or a failure leaves the endpoint unusable.
pdt::Result<void> CudaCopyEndpoint::poll(cudaEvent_t event, Clock::time_point deadline, const std::string& operation,
                                         std::chrono::milliseconds timeout) {
    const auto spin_until = Clock::now() + std::chrono::microseconds(100);
    for (;;) {
        const cudaError_t state = cudaEventQuery(event);
        if (state == cudaSuccess)
            return {};
        if (state != cudaErrorNotReady) {
            m_broken = pdt::make_error(operation, m_info.name, EIO,
                                       std::string("the GPU reported it failed: ") + cudaGetErrorName(state) + ": " +
                                           cudaGetErrorString(state));
            return *m_broken;
        }
        const auto now = Clock::now();
        if (now >= deadline) {
            m_broken = pdt::make_error(operation, m_info.name, ETIMEDOUT,
                                       "not completed within " + std::to_string(timeout.count()) + " ms");
            return *m_broken;
        }
        if (now >= spin_until)
            std::this_thread::yield();
    }
}

pdt::Result<void> CudaCopyEndpoint::wait(const Ticket& ticket, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    const std::string operation =
        "wait for copy " + std::to_string(ticket.sequence) + " on queue " + std::to_string(ticket.queue) + " of";
    PDT_CHECK(usable(operation));
    if (ticket.queue >= m_queues.size() || ticket.sequence >= m_queues[ticket.queue].next_sequence)
        return streams::unknown_ticket_error(operation, m_info.name, ticket);
    Queue& q = m_queues[ticket.queue];
    if (ticket.sequence >= q.completed_before) {
        const Pending& pending = q.pending[ticket.sequence - q.pending.front().sequence];
        PDT_CHECK(poll(pending.event.get(), deadline, operation, timeout));
        retire_through(q, ticket.sequence);
    }
    q.reported_before = std::max(q.reported_before, ticket.sequence + 1);
    return {};
}

cudaError_t CudaCopyEndpoint::lying_copy(void* dst, const void* src, uint64_t bytes, cudaMemcpyKind kind,
                                         unsigned queue, HostBuffer& host) {
    cudaStream_t stream = m_queues[queue].stream.get();
    if (const cudaError_t landed = land_tails(stream); landed != cudaSuccess)
        return landed;
    const detail::LieSplit split = detail::split_copy(m_config.lie, ++m_lie_transfers, bytes);
    if (split.now > 0)
        if (const cudaError_t copied = cudaMemcpyAsync(dst, src, split.now, kind, stream); copied != cudaSuccess)
            return copied;
    if (split.held_back > 0) {
        const auto* owned = dynamic_cast<const CudaHostBuffer*>(&host);  // another's buffer: never lands
        m_tails.push_back(QueuedTail{{static_cast<uint8_t*>(dst) + split.now, static_cast<const uint8_t*>(src) + split.now,
                                split.held_back, kind},
                               queue, m_queues[queue].next_sequence,
                               owned ? owned->alive() : std::weak_ptr<char>()});
    }
    return cudaSuccess;
}

cudaError_t CudaCopyEndpoint::land_tails(cudaStream_t stream) {
    for (auto it = m_tails.begin(); it != m_tails.end();) {
        if (m_queues[it->queue].reported_before <= it->sequence) {
            ++it;
            continue;
        }
        if (!it->host_alive.expired())
            if (const cudaError_t copied = cudaMemcpyAsync(it->copy.dst, it->copy.src, it->copy.bytes, it->copy.kind,
                                                           stream);
                copied != cudaSuccess)
                return copied;
        it = m_tails.erase(it);
    }
    return cudaSuccess;
}

// CUDA cannot cancel queued work: each queue's last copy is waited for (settle), then the queue
// gets a fresh stream and events; the old ones are released by the driver once what they hold
// completed (cudaStreamDestroy, cudaEventDestroy).
pdt::Result<void> CudaCopyEndpoint::reset_queues() {
    settle("a reset of the queues");
    PDT_CUDA(cudaSetDevice(m_config.gpu), "cudaSetDevice", m_info.name);
    for (Queue& q : m_queues)
        PDT_CHECK(make_queue(q));
    m_tails.clear();  // held-back tails of abandoned copies never land
    m_broken.reset();
    return {};
}

pdt::Result<void> CudaCopyEndpoint::launch_empty(unsigned queue, unsigned count, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    const std::string operation = "launch " + std::to_string(count) + " empty kernel(s) on queue " + std::to_string(queue) + " of";
    PDT_CHECK(usable(operation));
    if (queue >= m_queues.size() || count == 0)
        return pdt::make_error(operation, m_info.name, EINVAL,
                               "expected a queue below " + std::to_string(m_queues.size()) + " and a count of 1 or more");
    Queue& q = m_queues[queue];
    PDT_CUDA(cudaSetDevice(m_config.gpu), "cudaSetDevice", m_info.name);
    PDT_CUDA(detail::launch_empty(count, q.stream.get()), "launch empty kernel", m_info.name);
    detail::Event& done = q.spare.back();  // one spare more than max_in_flight is kept for this
    PDT_CUDA(cudaEventRecord(done.get(), q.stream.get()), "cudaEventRecord", m_info.name);
    PDT_CHECK(poll(done.get(), deadline, operation, timeout));
    if (q.next_sequence > 0)
        retire_through(q, q.next_sequence - 1);  // the copies before the kernels completed too
    return {};
}

}  // namespace

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_copy_endpoint(const CopyEndpointConfig& config) {
    auto endpoint = std::make_unique<CudaCopyEndpoint>(config);
    PDT_CHECK(endpoint->open());
    return std::unique_ptr<streams::CopyEndpoint>(std::move(endpoint));
}

pdt::Result<std::vector<double>> bare_copy_seconds(int gpu, Direction direction, uint64_t bytes, unsigned samples) {
    const std::string object = "bare copy reference on GPU " + std::to_string(gpu);
    PDT_TRY(gpu_info(gpu));
    if (bytes == 0 || samples == 0)
        return pdt::make_error("bare copy reference", object, EINVAL, "bytes and samples must be 1 or more");
    PDT_CUDA(cudaSetDevice(gpu), "cudaSetDevice", object);
    auto host = PDT_TRY(detail::HostBuffer::allocate(bytes, HostMemory::Pinned, object));
    auto card = PDT_TRY(detail::DeviceBuffer::allocate(bytes, object));
    auto stream = PDT_TRY(detail::Stream::create(object));
    const bool h2d = direction == Direction::H2C;
    void* dst = h2d ? static_cast<void*>(card.data()) : host.data();
    const void* src = h2d ? static_cast<const void*>(host.data()) : card.data();
    const cudaMemcpyKind kind = h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    std::vector<double> seconds;
    seconds.reserve(samples);
    for (unsigned i = 0; i < samples + 10; ++i) {  // the first ten warm up and are not kept
        const auto start = Clock::now();
        PDT_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()), "cudaMemcpyAsync", object);
        PDT_CUDA(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize", object);
        if (i >= 10)
            seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return seconds;
}

}  // namespace cuda_stream
