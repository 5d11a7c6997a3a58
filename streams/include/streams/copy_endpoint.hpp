// The copy-endpoint seam (namespace streams): a card with memory that the host copies to and
// from, one copy at a time or several in flight on independent queues. The link measurement
// tool (measure/) is written once against it; each adapter implements it and knows nothing of
// the others: the XDMA card-memory path (dma_bridge, real or simulated designs), QEMU's edu
// device in the guest (edu/), the CUDA adapter (cudaMemcpyAsync on CUDA streams), the ET-SoC-1
// adapter, and a model endpoint with a set rate and latency (sim/) on which the tool's tests
// recover what was set.
//
// Where streams::StreamChannel moves an endless stream, this seam moves one sized copy between
// a host buffer and a card address, timed from issue to completion: what a sweep, a latency
// probe or an access-pattern run needs. Data still counts: the tool verifies what it timed
// (a pattern written to the card and read back), and a run whose check failed reports no rate.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/format.hpp"
#include "base/result.hpp"
#include "streams/stream_channel.hpp"

namespace streams {

// How host memory backs a buffer. Registered buffers are mapped for the card's DMA (VFIO
// IOMMU map, cudaHostAlloc); Pageable ones are plain memory that an adapter whose driver stages
// copies itself (CUDA with pageable memory, ET-SoC-1's runtime) may accept.
enum class HostMemory { Registered, RegisteredHugePages, Pageable };
inline const char* to_string(HostMemory m) {
    return m == HostMemory::Registered ? "registered" : m == HostMemory::RegisteredHugePages ? "huge-pages" : "pageable";
}

class HostBuffer {
public:
    virtual ~HostBuffer() = default;
    virtual uint8_t* data() = 0;
    virtual uint64_t size() const = 0;
    virtual HostMemory memory() const = 0;
};

struct EndpointInfo {
    std::string name;             // for output lines: "sim model 0", "0000:19:00.0 NVIDIA H200"
    std::string pci_address;      // the function whose LnkSta the tool reads; empty for a model
    // The card window copies may address: [0, card_memory_bytes). It is the endpoint's limit:
    // the tool measures no size above it (sweep leaves such sizes out, latency clamps to it; each
    // says so). QEMU's edu: 4095 bytes.
    uint64_t card_memory_bytes = 0;
    uint64_t max_copy_bytes = 0;     // the largest one copy may move (the tool splits above it)
    unsigned queues = 1;             // independent queues (streams, engines); copies on one queue complete in order
    unsigned max_in_flight = 1;      // copies one queue may hold at once
    bool can_launch = false;         // runs code on the card: launch_empty is implemented
    bool driver_stages = false;      // every copy goes through a bounce buffer of the driver (ET-SoC-1)
    // With driver_stages: card bytes at [card_memory_bytes, card_memory_bytes + decoy_card_bytes)
    // that only decoy writes address (measure::stage_decoy): copied there, bytes the check knows
    // to be wrong fill the reused bounce buffer, so that a card-to-host copy that moves nothing
    // hands them back instead of the pattern the last host-to-card copy staged (F30).
    uint64_t decoy_card_bytes = 0;
    bool pageable_copies = false;    // copies may use HostMemory::Pageable buffers: the driver stages them (CUDA)
    // DMA engines the adapter drives itself (XDMA): their run mode and completion method as the
    // --engine_mode and --completion options spell them ("credits", "poll_writeback"); else empty.
    std::string engine_mode, completion;
};

// A copy issued and not yet waited for. Tickets of one queue complete in issue order.
// Threads: one thread per queue may issue and wait at the same time as another thread on
// another queue (bidir runs H2C on queue 0 and C2H on queue 1 this way); one queue is used by
// one thread at a time.
struct Ticket {
    unsigned queue = 0;
    uint64_t sequence = 0;
};

class CopyEndpoint {
public:
    virtual ~CopyEndpoint() = default;

    virtual const EndpointInfo& info() const = 0;

    // A host buffer the endpoint's copies may use (errors say why a kind is not offered).
    virtual pdt::Result<std::unique_ptr<HostBuffer>> allocate(uint64_t bytes, HostMemory memory) = 0;

    // Starts one copy of `bytes` between host[host_offset..] and card[card_offset..] on a
    // queue (< info().queues); returns at once. Errors name the endpoint, direction and range.
    virtual pdt::Result<Ticket> issue(Direction direction, unsigned queue, HostBuffer& host, uint64_t host_offset,
                                      uint64_t card_offset, uint64_t bytes) = 0;
    // Blocks until that copy completed; ETIMEDOUT after timeout (the endpoint is then unusable
    // until reset_queues). A copy the card reported failed is an error naming it.
    virtual pdt::Result<void> wait(const Ticket& ticket, std::chrono::milliseconds timeout) = 0;
    // Abandons whatever is queued and leaves every queue idle.
    virtual pdt::Result<void> reset_queues() = 0;

    // Launches `count` empty kernels (or the card's equivalent) on a queue, all queued at
    // once, and waits for the last. Only when info().can_launch; else ENOTSUP.
    virtual pdt::Result<void> launch_empty(unsigned queue, unsigned count, std::chrono::milliseconds timeout) {
        (void)queue, (void)count, (void)timeout;
        return pdt::make_error("launch", info().name, ENOTSUP, "this endpoint runs no code on the card");
    }

    // The IP's own count of what it moves, where it keeps one (XDMA: each channel's performance
    // monitor, PG195): start_ip_counts() clears and arms the counts of every queue, false when the
    // IP keeps none; ip_counts() reads them after the copies: a line for each channel that counted,
    // in the IP's words (clocks, data beats and their width).
    virtual bool start_ip_counts() { return false; }
    virtual std::vector<std::string> ip_counts() const { return {}; }
};

// For implementations of issue(): why a copy of `bytes` between host[host_offset..] and
// card[card_offset..] cannot be made, worded as the endpoints report it: no byte (EINVAL), past
// the end of the host buffer or of the card memory in `info` (ERANGE). Nothing when it fits.
struct CopyRefusal {
    int code;
    std::string why;
};
inline std::optional<CopyRefusal> range_refusal(const EndpointInfo& info, const HostBuffer& host,
                                                uint64_t host_offset, uint64_t card_offset, uint64_t bytes) {
    if (bytes == 0)
        return CopyRefusal{EINVAL, "a copy moves at least one byte"};
    if (host_offset > host.size() || bytes > host.size() - host_offset)
        return CopyRefusal{ERANGE, "beyond the host buffer of " + pdt::hex(host.size()) + " bytes"};
    if (card_offset > info.card_memory_bytes || bytes > info.card_memory_bytes - card_offset)
        return CopyRefusal{ERANGE, "beyond the card memory of " + pdt::hex(info.card_memory_bytes) + " bytes"};
    return std::nullopt;
}

// The errors the endpoints word alike (`endpoint`: EndpointInfo::name). A refused issue():
// "issue H2C copy on queue 1 of <endpoint>: <bytes> bytes, host offset <o>, card range [<a>,
// <b>): <why>".
inline pdt::Error copy_issue_error(const std::string& endpoint, Direction direction, unsigned queue,
                                   uint64_t host_offset, uint64_t card_offset, uint64_t bytes, int code,
                                   const std::string& why) {
    return pdt::make_error(std::string("issue ") + to_string(direction) + " copy on queue " + std::to_string(queue) + " of",
                           endpoint, code,
                           pdt::hex(bytes) + " bytes, host offset " + pdt::hex(host_offset) + ", card range [" +
                               pdt::hex(card_offset) + ", " + pdt::hex(card_offset + bytes) + "): " + why);
}
// After a wait timed out (or a copy failed, where the endpoint says so): EIO until reset_queues.
inline pdt::Error unusable_until_reset(const std::string& operation, const std::string& endpoint,
                                       const pdt::Error& broke) {
    return pdt::make_error(operation, endpoint, EIO, "the endpoint is unusable until reset_queues after: " + broke.message());
}
// wait() for a ticket the endpoint never gave: EINVAL.
inline pdt::Error unknown_ticket_error(const std::string& operation, const std::string& endpoint, const Ticket& ticket) {
    return pdt::make_error(operation, endpoint, EINVAL,
                           "no copy " + std::to_string(ticket.sequence) + " was issued on queue " +
                               std::to_string(ticket.queue));
}

// reset_queues of an endpoint whose queues each keep their copies in issue order (copies,
// next_sequence, completed_before: XDMA engine pairs, QDMA queue pairs): every mover of every
// queue (movers_of(queue)) is restarted by restart(mover), the first failure returned; the copies
// in flight are dropped (their tickets count as completed); `broken` clears when all restarted.
template <class Queue, class MoversOf, class Restart>
pdt::Result<void> reset_issue_queues(std::vector<Queue>& queues, std::optional<pdt::Error>& broken, MoversOf&& movers_of,
                                     Restart&& restart) {
    std::optional<pdt::Error> first;
    for (Queue& q : queues) {
        for (auto& mover : movers_of(q))
            if (auto restarted = restart(*mover); !restarted.ok() && !first)
                first = restarted.error();
        q.copies.clear();
        q.completed_before = q.next_sequence;
    }
    if (first)
        return *first;
    broken.reset();
    return {};
}

// What an endpoint of such queues is after a wait saw a copy fail: usable still (the next issue
// meets the mover's own error), or unusable until reset_queues as after a timeout.
enum class AfterFailedCopy { Usable, Unusable };

// What a wait() for `ticket` that gave up did: "wait for copy <n> on queue <q> of" (its endpoint).
inline std::string copy_wait_operation(const Ticket& ticket) {
    return "wait for copy " + std::to_string(ticket.sequence) + " on queue " + std::to_string(ticket.queue) + " of";
}

// The ETIMEDOUT of a wait() for `ticket` on such a queue: "wait for copy <n> on queue <q> of
// <endpoint>: not completed within <t> ms; oldest copy <m> H2C card [<a>, <b>) on <mover's name>:
// <its state>", the copy (sequence, direction, card_address, bytes) the queue's front and
// `mover` (name(), describe_state()) the engine or queue it was submitted to.
template <class Copy, class Mover>
pdt::Error oldest_copy_timeout(const Ticket& ticket, const std::string& endpoint, std::chrono::milliseconds timeout,
                               const Copy& oldest, Mover& mover) {
    return pdt::make_error(copy_wait_operation(ticket), endpoint, ETIMEDOUT,
                           "not completed within " + std::to_string(timeout.count()) + " ms; oldest copy " +
                               std::to_string(oldest.sequence) + " " + to_string(oldest.direction) + " card [" +
                               pdt::hex(oldest.card_address) + ", " + pdt::hex(oldest.card_address + oldest.bytes) +
                               ") on " + mover.name() + ": " + mover.describe_state());
}

// wait() of an endpoint whose queues keep their copies in issue order (as reset_issue_queues):
// refuses while `broken` and a ticket never issued; else pump(q) (takes the completions, submits
// what may start) until the ticket's copy completed, idle(q, deadline) between looks. A failed
// pump is the card's report of a failed copy ("the card reported it failed: ...", its code; the
// endpoint then `after_failure`); past `timeout`, the error timed_out(q) gives, which `broken`
// holds until reset_queues.
template <class Queue, class Pump, class TimedOut, class Idle>
pdt::Result<void> wait_in_issue_order(std::vector<Queue>& queues, const Ticket& ticket, std::chrono::milliseconds timeout,
                                      const std::string& endpoint, std::optional<pdt::Error>& broken,
                                      AfterFailedCopy after_failure, Pump&& pump, TimedOut&& timed_out, Idle&& idle) {
    if (broken)
        return unusable_until_reset("wait for copy of", endpoint, *broken);
    if (ticket.queue >= queues.size() || ticket.sequence >= queues[ticket.queue].next_sequence)
        return unknown_ticket_error("wait for copy of", endpoint, ticket);
    Queue& q = queues[ticket.queue];
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (ticket.sequence >= q.completed_before) {
        if (auto pumped = pump(q); !pumped.ok()) {
            pdt::Error failed = pdt::make_error(copy_wait_operation(ticket), endpoint, pumped.error().code,
                                                "the card reported it failed: " + pumped.error().message());
            if (after_failure == AfterFailedCopy::Unusable)
                broken = failed;
            return failed;
        }
        if (ticket.sequence < q.completed_before)
            break;
        if (std::chrono::steady_clock::now() >= deadline) {
            broken = timed_out(q);
            return *broken;
        }
        PDT_CHECK(idle(q, deadline));
    }
    return {};
}

}  // namespace streams
