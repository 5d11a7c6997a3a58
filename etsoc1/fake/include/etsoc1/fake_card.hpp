// etsoc1::FakeCard: one ET-SoC-1 card as the runtime shows it to a program, behind our Card
// interface. It moves real data (card memory is host memory, zeros when allocated) and models,
// with named parameters, what seed 000 measured on three cards through libetrt
// (etsoc1/README.md):
//
//   - staging: every copy goes through one host bounce buffer per card, reused, as the
//     runtime's CmaManager does: a command's nodes are staged one after the other in the
//     lowest free range of the buffer (from offset 0 whenever no other command is in flight),
//     which it holds until it completes; the buffer grows when no free range holds a command.
//     Host-to-card: the copy thread's memcpy host -> bounce when staging ends, then the DMA
//     bounce -> card when it starts. Card-to-host: the DMA card -> bounce when it starts, then
//     the memcpy bounce -> host when unstaging ends. One host memcpy thread per command (a pool
//     of copy_threads) at memcpy_gbps, in series with the DMA;
//   - DMA: read_channels (host-to-card) and write_channels (card-to-host), one command per
//     channel, each at dma_channel_gbps, all commands of a direction sharing link_gbps
//     (card-to-host: c2h_link_ratio times it, so two card-to-host commands move 1.10 of one);
//   - submission queues: streams round-robin over submission_queues in-order queues; a command
//     whose barrier flag is set waits for every earlier command of its queue; a command with
//     no free channel holds up its queue;
//   - the one-stream collision: k host-to-card commands of one stream in DMA at once run at
//     one_stream_collision^(k-1) of their share (two: half as much as one);
//   - response polling: completions reach the host when the runtime's response thread next
//     looks: poll_busy after a poll that found a command in flight or completed, poll_idle after
//     one that found nothing (back-to-back copies complete near 50 us, idle ones near 500 us);
//   - injected faults: a copy error (the N-th command completes with a DmaInvalidAddress
//     stream error and moves nothing: its DMA and its unstaging do not happen), a hung command
//     (never completes: waits time out), and a corrupted byte (the H2C byte at that offset of
//     all bytes the card received is flipped);
//   - lying devices (docs/verification.md), each completing every command on time with no
//     error, copy commands counted from 1 in issue order over both directions (kernels do not
//     count); the staging memcpys between host and bounce buffer always happen, as the
//     runtime's daemon does with its fake device:
//       moves_nothing=1    the DMA between bounce buffer and card moves no byte;
//       stale_after=N      the first N copy commands move data, every later one moves none;
//       completes_early=1  a copy command's DMA writes its last node but for the node's last 64
//                          bytes (all of a shorter node); those bytes reach the DMA's destination
//                          (card memory, or for card-to-host the bounce buffer, whose stale bytes
//                          the unstaging then hands to the host) only when the next copy command
//                          starts its DMA, just after that command's own bytes moved; or never.
//     A read-back of the region just written, in one command of the same nodes, hands the
//     staged bytes straight back from the bounce buffer under moves_nothing: rule 3 of
//     docs/verification.md is what catches it.
//
// The model advances lazily in wall-clock time (an exact fluid model between phase changes),
// so rates and latencies are what a program measures with a steady clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etsoc1/card.hpp"

namespace etsoc1 {

struct FakeParameters {
    DmaLimits limits{};                   // hardware's: 128 MiB x 8, 4 read + 4 write channels
    uint64_t memory_bytes = 32ull << 30;  // reported; allocations are host memory
    double memcpy_gbps = 10.0;            // the host's bounce-buffer memcpy, per copy thread
    unsigned copy_threads = 4;            // the runtime's per-device copy pool
    double dma_channel_gbps = 12.0;       // one DMA channel
    double link_gbps = 12.0;              // all channels of one direction together (host-to-card)
    // Card-to-host, all write channels together carry this times link_gbps: one channel alone
    // does not fill it, so with the defaults (link_gbps = one channel) two card-to-host commands
    // in flight move 1.10 of one (seed 000 section 5, E55: 1.10 at 64 MB on both cards).
    double c2h_link_ratio = 1.10;
    unsigned submission_queues = 2;       // the firmware's MM_SQ_COUNT
    std::chrono::microseconds poll_busy{50};   // kResponsePollingIntervalWithEventsOnFly
    std::chrono::microseconds poll_idle{500};  // kResponsePollingIntervalNoEventsOnFly
    double one_stream_collision = 0.5;    // two H2C commands of one stream move this much of one
    std::chrono::microseconds kernel_time{10};  // an empty kernel on the card
    // Faults (commands counted from 1 in issue order, both directions and kernels).
    std::optional<uint64_t> corrupt_h2c_byte;  // flips this byte of all H2C bytes received
    std::optional<uint64_t> copy_error_command;
    std::optional<uint64_t> hang_command;
    bool abort_hangs = false;  // an abort of a stream with a command in flight never completes
    // Lies (see above).
    bool moves_nothing = false;
    std::optional<uint64_t> stale_after;
    bool completes_early = false;
};

// "key=value,..." with the keys memcpy_gbps, copy_threads, dma_gbps, link_gbps, c2h_link_ratio,
// read_channels, write_channels, node_bytes, nodes, queues, poll_busy_us, poll_idle_us,
// collision, kernel_us, corrupt_h2c_byte, copy_error_at, hang_at, abort_hangs (0 or 1), moves_nothing (0 or 1),
// stale_after (a whole number >= 0), completes_early (0 or 1); unknown keys and bad values are
// usage errors naming them.
pdt::Result<FakeParameters> parse_fake_parameters(const std::string& text);

// What the card was asked to do, for tests.
struct CommandRecord {
    enum Kind { ToCard, FromCard, Kernel } kind = ToCard;
    StreamId stream = 0;
    bool barrier = false;
    std::vector<uint64_t> node_bytes;
};

class FakeCard : public Card {
public:
    explicit FakeCard(FakeParameters parameters = {});
    ~FakeCard() override;
    FakeCard(const FakeCard&) = delete;
    FakeCard& operator=(const FakeCard&) = delete;

    int device_count() const override { return 1; }
    pdt::Result<DeviceInfo> info(int device) const override;
    pdt::Result<DmaLimits> limits(int device) const override;
    pdt::Result<CardAddress> allocate(int device, uint64_t bytes, uint32_t alignment) override;
    pdt::Result<void> free(int device, CardAddress address) override;
    pdt::Result<StreamId> create_stream(int device) override;
    pdt::Result<void> destroy_stream(StreamId stream) override;
    pdt::Result<EventId> copy_to_card(StreamId stream, std::span<const Node> nodes, bool barrier) override;
    pdt::Result<EventId> copy_from_card(StreamId stream, std::span<const Node> nodes, bool barrier) override;
    pdt::Result<bool> wait_event(EventId event, std::chrono::seconds timeout) override;
    pdt::Result<bool> wait_stream(StreamId stream, std::chrono::seconds timeout) override;
    pdt::Result<std::vector<CardError>> drain_errors(StreamId stream) override;
    pdt::Result<void> abort_stream(StreamId stream, std::chrono::seconds timeout) override;
    bool can_launch() const override { return true; }
    pdt::Result<EventId> launch_empty(StreamId stream, bool barrier) override;

    const FakeParameters& parameters() const;
    std::vector<CommandRecord> commands() const;
    // The most commands of a kind issued and not yet seen complete at once.
    unsigned max_in_flight(CommandRecord::Kind kind) const;
    // What card memory holds now (for tests: the host cannot read a real card's memory).
    pdt::Result<std::vector<uint8_t>> card_memory(CardAddress address, uint64_t bytes) const;
    // The bounce buffer's size: its high-water mark of bytes staged at once.
    uint64_t bounce_bytes() const;

    struct Model;

private:
    std::unique_ptr<Model> m;
};

}  // namespace etsoc1
