#include "sim/model_copy_endpoint.hpp"

#include <sys/mman.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace sim {
namespace {

using streams::Direction;
using streams::HostMemory;

constexpr uint64_t kPage = 4096;
// A sleeping thread wakes late by 50 us (timer slack) to milliseconds (a loaded machine); the
// last 2 ms before a completion are spun instead.
constexpr int64_t kSpinUs = 2000;
constexpr uint64_t kHugePage = 2ull << 20;

class ModelHostBuffer : public streams::HostBuffer {
public:
    ModelHostBuffer(uint8_t* data, uint64_t size, uint64_t mapped, HostMemory memory)
        : m_data(data), m_size(size), m_mapped(mapped), m_memory(memory) {}
    ~ModelHostBuffer() override {
        if (m_mapped)
            munmap(m_data, m_mapped);
        else
            std::free(m_data);
    }
    uint8_t* data() override { return m_data; }
    uint64_t size() const override { return m_size; }
    HostMemory memory() const override { return m_memory; }
    // Expires with the buffer (a late tail of a lying card never lands in freed memory).
    std::weak_ptr<void> alive() const { return m_alive; }

private:
    std::shared_ptr<void> m_alive = std::make_shared<int>(0);
    uint8_t* m_data;
    uint64_t m_size, m_mapped;
    HostMemory m_memory;
};

std::chrono::nanoseconds from_us(double us) { return std::chrono::nanoseconds(static_cast<int64_t>(us * 1000.0)); }

}  // namespace

void pace_until(std::chrono::steady_clock::time_point deadline) {
    thread_local const bool slack_set = prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0;  // wake on time
    (void)slack_set;
    const auto spin = std::chrono::microseconds(kSpinUs);
    auto now = std::chrono::steady_clock::now();
    if (deadline - now > spin)
        std::this_thread::sleep_until(deadline - spin);
    while (std::chrono::steady_clock::now() < deadline) {
    }
}

ModelCopyEndpoint::ModelCopyEndpoint(const ModelCopyParameters& p) : m_parameters(p) {
    m_info.name = p.name;
    m_info.pci_address = p.pci_address;
    m_info.card_memory_bytes = p.card_memory_bytes;
    m_info.max_copy_bytes = p.max_copy_bytes ? p.max_copy_bytes : p.card_memory_bytes;
    m_info.queues = p.queues;
    m_info.max_in_flight = p.in_flight;
    m_info.can_launch = p.launch_us > 0;
    m_info.pageable_copies = p.pageable_copies;
    m_pending.resize(p.queues);
    m_last_completion.resize(p.queues);
    m_next_sequence.resize(p.queues);
}

pdt::Result<std::unique_ptr<ModelCopyEndpoint>> ModelCopyEndpoint::create(const ModelCopyParameters& p) {
    if (!(p.h2c_gbps > 0) || !(p.c2h_gbps > 0) || !(p.latency_us >= 0) || !(p.launch_us >= 0) ||
        !(p.launch_queued_us >= 0) || !(p.iotlb_miss_us >= 0))
        return pdt::usage_error("create", p.name, "rates must be above 0 GB/s, times 0 us or more");
    if (p.queues == 0 || p.in_flight == 0 || p.card_memory_bytes == 0)
        return pdt::usage_error("create", p.name, "queues, copies in flight and card memory must be 1 or more");
    std::unique_ptr<ModelCopyEndpoint> endpoint(new ModelCopyEndpoint(p));
    // Uninitialised: the pages are touched only where copies land.
    endpoint->m_card.reset(new (std::nothrow) uint8_t[p.card_memory_bytes]);
    if (!endpoint->m_card)
        return pdt::make_error("allocate card memory", p.name, ENOMEM, std::to_string(p.card_memory_bytes) + " bytes");
    return endpoint;
}

pdt::Result<std::unique_ptr<streams::HostBuffer>> ModelCopyEndpoint::allocate(uint64_t bytes, HostMemory memory) {
    if (bytes == 0)
        return pdt::make_error("allocate host buffer", m_info.name, EINVAL, "0 bytes");
    if (memory == HostMemory::RegisteredHugePages) {
        const uint64_t mapped = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
        if (p == MAP_FAILED)
            return pdt::errno_error("allocate huge-page host buffer", m_info.name,
                                    "reserve 2 MiB huge pages first (sysctl vm.nr_hugepages)");
        return std::unique_ptr<streams::HostBuffer>(
            std::make_unique<ModelHostBuffer>(static_cast<uint8_t*>(p), bytes, mapped, memory));
    }
    void* p = std::aligned_alloc(kPage, (bytes + kPage - 1) / kPage * kPage);
    if (!p)
        return pdt::make_error("allocate host buffer", m_info.name, ENOMEM, std::to_string(bytes) + " bytes");
    return std::unique_ptr<streams::HostBuffer>(std::make_unique<ModelHostBuffer>(static_cast<uint8_t*>(p), bytes, 0, memory));
}

pdt::Error ModelCopyEndpoint::copy_error(Direction direction, unsigned queue, uint64_t host_offset,
                                         uint64_t card_offset, uint64_t bytes, int code,
                                         const std::string& hint) const {
    return pdt::make_error(std::string(streams::to_string(direction)) + " copy on queue " + std::to_string(queue),
                           m_info.name + " host offset " + std::to_string(host_offset) + " card offset " +
                               std::to_string(card_offset) + " bytes " + std::to_string(bytes),
                           code, hint);
}

unsigned ModelCopyEndpoint::iotlb_misses(const uint8_t* host, uint64_t bytes) {
    if (m_parameters.iotlb_entries == 0 || bytes == 0)
        return 0;
    unsigned misses = 0;
    const uintptr_t first = reinterpret_cast<uintptr_t>(host) / kPage;
    const uintptr_t last = (reinterpret_cast<uintptr_t>(host) + bytes - 1) / kPage;
    for (uintptr_t page = first; page <= last; ++page) {
        auto hit = m_iotlb.find(page);
        if (hit != m_iotlb.end()) {
            m_iotlb_lru.splice(m_iotlb_lru.begin(), m_iotlb_lru, hit->second);
            continue;
        }
        ++misses;
        m_iotlb_lru.push_front(page);
        m_iotlb[page] = m_iotlb_lru.begin();
        if (m_iotlb_lru.size() > m_parameters.iotlb_entries) {
            m_iotlb.erase(m_iotlb_lru.back());
            m_iotlb_lru.pop_back();
        }
    }
    return misses;
}

pdt::Result<streams::Ticket> ModelCopyEndpoint::issue(Direction direction, unsigned queue, streams::HostBuffer& host,
                                                      uint64_t host_offset, uint64_t card_offset, uint64_t bytes) {
    const auto issued = Clock::now();
    if (queue >= m_parameters.queues)
        return copy_error(direction, queue, host_offset, card_offset, bytes, EINVAL,
                          "the model has " + std::to_string(m_parameters.queues) + " queues");
    if (bytes == 0 || bytes > m_info.max_copy_bytes || host_offset > host.size() || bytes > host.size() - host_offset ||
        card_offset > m_info.card_memory_bytes || bytes > m_info.card_memory_bytes - card_offset)
        return copy_error(direction, queue, host_offset, card_offset, bytes, EINVAL,
                          "outside the host buffer, the card memory or the largest copy");
    if (host.memory() == HostMemory::Pageable && !m_parameters.pageable_copies)
        return copy_error(direction, queue, host_offset, card_offset, bytes, EINVAL,
                          "the host buffer is pageable: the model copies only registered memory "
                          "(the parameter pageable_copies lets it stage them as CUDA's driver does)");
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_pending[queue].size() >= m_parameters.in_flight)
        return copy_error(direction, queue, host_offset, card_offset, bytes, EBUSY,
                          "the queue already holds " + std::to_string(m_parameters.in_flight) + " copies");
    uint8_t* host_bytes = host.data() + host_offset;
    uint8_t* card_bytes = m_card.get() + card_offset;
    land_late(direction == Direction::C2H);
    if (direction == Direction::H2C)
        move(card_bytes, host_bytes, bytes, host, false);
    else
        move(host_bytes, card_bytes, bytes, host, true);
    ++m_copies;
    if (m_parameters.corrupt_every && m_copies % m_parameters.corrupt_every == 0) {
        uint8_t* landed = direction == Direction::H2C ? card_bytes : host_bytes;  // where the copy wrote
        const uint64_t middle = bytes / 2;
        landed[middle] = static_cast<uint8_t>(landed[middle] ^ 0x5a);
    }

    const double gbps = direction == Direction::H2C ? m_parameters.h2c_gbps : m_parameters.c2h_gbps;
    const auto transfer = std::chrono::nanoseconds(static_cast<int64_t>(static_cast<double>(bytes) / gbps)) +
                          from_us(m_parameters.iotlb_miss_us * iotlb_misses(host_bytes, bytes));
    auto& link = m_link_free[m_parameters.shared_link ? 0 : static_cast<int>(direction)];
    const auto start = std::max(issued + from_us(m_parameters.latency_us), link);
    link = start + transfer;
    const auto completion = std::max(link, m_last_completion[queue]);
    m_last_completion[queue] = completion;
    const uint64_t sequence = m_next_sequence[queue]++;
    m_pending[queue].push_back({sequence, completion});
    return streams::Ticket{queue, sequence};
}

void ModelCopyEndpoint::move(uint8_t* to, const uint8_t* from, uint64_t bytes, streams::HostBuffer& host,
                             bool to_host) {
    const streams::Lie& lie = m_parameters.lie;
    if (!lie.moves(m_copies))
        return;
    const uint64_t late = lie.late_tail() ? std::min(bytes, streams::kLateTailBytes) : 0;
    std::memcpy(to, from, bytes - late);
    if (late == 0)
        return;
    LateTail tail{to + bytes - late, std::vector<uint8_t>(from + bytes - late, from + bytes), {}, to_host,
                  Clock::now() + lie.late_by};
    if (to_host) {
        const auto* buffer = dynamic_cast<ModelHostBuffer*>(&host);
        if (!buffer) {  // not ours: no way to know it outlives the tail, so it lands now
            std::memcpy(tail.to, tail.bytes.data(), late);
            return;
        }
        tail.host_alive = buffer->alive();
    }
    m_late.push_back(std::move(tail));
}

void ModelCopyEndpoint::land_late(bool to_host) {
    std::vector<LateTail> other;
    const auto now = Clock::now();
    for (LateTail& tail : m_late) {
        if (tail.to_host != to_host || tail.due > now)
            other.push_back(std::move(tail));
        else if (!to_host || !tail.host_alive.expired())
            std::memcpy(tail.to, tail.bytes.data(), tail.bytes.size());
    }
    m_late = std::move(other);
}

pdt::Result<void> ModelCopyEndpoint::wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) {
    Clock::time_point completion;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (ticket.queue >= m_parameters.queues)
            return pdt::make_error("wait", m_info.name, EINVAL, "no queue " + std::to_string(ticket.queue));
        auto& pending = m_pending[ticket.queue];
        auto it = std::find_if(pending.begin(), pending.end(),
                               [&](const Pending& p) { return p.sequence == ticket.sequence; });
        if (it == pending.end())
            return pdt::make_error("wait", m_info.name + " queue " + std::to_string(ticket.queue), EINVAL,
                                   "copy " + std::to_string(ticket.sequence) + " is not in flight");
        completion = it->completion;
        pending.erase(pending.begin(), it + 1);  // a queue completes in order
    }
    const auto deadline = Clock::now() + timeout;
    if (completion > deadline) {
        std::this_thread::sleep_until(deadline);
        return pdt::make_error("wait", m_info.name + " queue " + std::to_string(ticket.queue), ETIMEDOUT,
                               "the modelled copy needs longer than the timeout");
    }
    pace_until(completion);
    return {};
}

pdt::Result<void> ModelCopyEndpoint::reset_queues() {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto now = Clock::now();
    for (auto& pending : m_pending)
        pending.clear();
    std::fill(m_last_completion.begin(), m_last_completion.end(), now);
    m_link_free[0] = m_link_free[1] = now;
    return {};
}

pdt::Result<void> ModelCopyEndpoint::launch_empty(unsigned queue, unsigned count, std::chrono::milliseconds timeout) {
    if (!m_info.can_launch)
        return CopyEndpoint::launch_empty(queue, count, timeout);
    if (queue >= m_parameters.queues || count == 0)
        return pdt::make_error("launch", m_info.name, EINVAL, "queue " + std::to_string(queue) + ", count " +
                                                                   std::to_string(count));
    const double each = m_parameters.launch_queued_us > 0 ? m_parameters.launch_queued_us : m_parameters.launch_us;
    const auto duration = from_us(m_parameters.launch_us + each * (count - 1));
    if (duration > timeout) {
        std::this_thread::sleep_for(timeout);
        return pdt::make_error("launch", m_info.name, ETIMEDOUT, "the modelled launches need longer than the timeout");
    }
    pace_until(Clock::now() + duration);
    return {};
}

}  // namespace sim
