// A model copy endpoint (namespace sim): a card with its own memory that really moves bytes
// between a host buffer and that memory, and paces every copy to set parameters in wall-clock
// time, so that the link measurement tool (measure/) can be tested on known values: a rate per
// direction, a fixed latency per copy, queues and copies in flight per queue, one link budget
// shared by both directions or one each, an empty-kernel launch latency, and an IOTLB of a set
// number of 4 KiB entries whose misses cost link time (the pcie-bench window effect).
//
// Timing model, per copy issued at t on queue q in direction d:
//   start = max(t + latency, link free), end = start + bytes / rate(d) + misses * miss time,
//   the link is then busy until end, and the copy completes at max(end, q's previous completion).
// So copies in flight overlap their latencies but share the link's bytes. The bytes are copied
// at issue; wait() sleeps until the completion time and spins its last 2 ms. Keep the set
// rates well below the host's memcpy rate (0.5-2 GB/s) so that the real copy never lags the model.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "streams/copy_endpoint.hpp"
#include "streams/lie.hpp"

namespace sim {

struct ModelCopyParameters {
    std::string name = "sim model 0";
    std::string pci_address;         // optional: a function whose LnkSta the tool reads (--pci_access sim)
    double h2c_gbps = 1.0;           // GB/s = 1e9 bytes/s
    double c2h_gbps = 1.0;
    double latency_us = 10.0;        // fixed per copy, from issue to the first byte on the link
    unsigned queues = 2;
    unsigned in_flight = 2;          // copies one queue may hold at once
    bool shared_link = false;        // true: both directions share one link budget
    double launch_us = 0;            // an empty kernel launched and waited for; 0: the card runs no code
    double launch_queued_us = 0;     // each further launch queued behind the first; 0: as launch_us
    unsigned iotlb_entries = 0;      // 4 KiB entries; 0: no IOTLB modelled
    double iotlb_miss_us = 0;        // link time each missed page costs
    uint64_t card_memory_bytes = 256ull << 20;
    uint64_t max_copy_bytes = 0;     // 0: card_memory_bytes
    uint64_t corrupt_every = 0;      // fault: flip one byte of every Nth copy (0: never)
    bool pageable_copies = false;    // copies may use pageable buffers (as CUDA's driver stages them); else refused
    streams::Lie lie;                   // test-only: the card lies (docs/verification.md); a transfer is a copy
};

class ModelCopyEndpoint : public streams::CopyEndpoint {
public:
    static pdt::Result<std::unique_ptr<ModelCopyEndpoint>> create(const ModelCopyParameters& parameters);

    const streams::EndpointInfo& info() const override { return m_info; }
    pdt::Result<std::unique_ptr<streams::HostBuffer>> allocate(uint64_t bytes, streams::HostMemory memory) override;
    pdt::Result<streams::Ticket> issue(streams::Direction direction, unsigned queue, streams::HostBuffer& host,
                                       uint64_t host_offset, uint64_t card_offset, uint64_t bytes) override;
    pdt::Result<void> wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) override;
    pdt::Result<void> reset_queues() override;
    pdt::Result<void> launch_empty(unsigned queue, unsigned count, std::chrono::milliseconds timeout) override;

    const ModelCopyParameters& parameters() const { return m_parameters; }
    // The card's memory, for tests that look behind the tool.
    uint8_t* card_memory() { return m_card.get(); }

private:
    using Clock = std::chrono::steady_clock;
    struct Pending {
        uint64_t sequence;
        Clock::time_point completion;
    };
    explicit ModelCopyEndpoint(const ModelCopyParameters& parameters);
    pdt::Error copy_error(streams::Direction direction, unsigned queue, uint64_t host_offset, uint64_t card_offset,
                          uint64_t bytes, int code, const std::string& hint) const;
    unsigned iotlb_misses(const uint8_t* host, uint64_t bytes);
    // Moves a copy's bytes as the lie allows; completes_early holds back its tail in m_late
    // until a copy of the same direction (its engine's next transfer) is issued late_by after.
    void move(uint8_t* to, const uint8_t* from, uint64_t bytes, streams::HostBuffer& host, bool to_host);
    void land_late(bool to_host);
    struct LateTail {
        uint8_t* to = nullptr;
        std::vector<uint8_t> bytes;
        std::weak_ptr<void> host_alive;  // a host destination: its buffer still exists
        bool to_host = false;
        Clock::time_point due;           // lands at the first copy issued after this
    };
    std::vector<LateTail> m_late;

    ModelCopyParameters m_parameters;
    streams::EndpointInfo m_info;
    std::unique_ptr<uint8_t[]> m_card;
    std::mutex m_mutex;
    Clock::time_point m_link_free[2];
    std::vector<std::deque<Pending>> m_pending;  // per queue, in issue order
    std::vector<Clock::time_point> m_last_completion;
    std::vector<uint64_t> m_next_sequence;
    uint64_t m_copies = 0;
    std::list<uintptr_t> m_iotlb_lru;  // most recent first
    std::unordered_map<uintptr_t, std::list<uintptr_t>::iterator> m_iotlb;
};

// Sleeps until `deadline` and spins its last 2 ms (a sleeping thread wakes late on a
// loaded machine), with the thread's timer slack set to 1 ns.
void pace_until(std::chrono::steady_clock::time_point deadline);

}  // namespace sim
