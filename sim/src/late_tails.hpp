// The lying engine's data writes (streams/lie.hpp), shared by the XDMA and QDMA models: each
// engine (an XDMA channel, a QDMA queue side) drops its writes as the lie says, or, under
// completes_early, holds back the last streams::kLateTailBytes of a transfer and lands them
// late, as a lying engine's late writes (a tail may land after its buffer was released: the
// lie's doing, not the driver's).
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/sim_device.hpp"
#include "streams/lie.hpp"

namespace sim {

// The last bytes of a transfer, held back from its destination.
struct HeldTail {
    bool card = false;  // to the card memory, else to a host IOVA
    uint64_t address = 0;
    std::vector<uint8_t> bytes;
    std::chrono::steady_clock::time_point due;  // lands at the first transfer started after this
};

// One engine's tails: the current transfer's, and those of ended transfers that wait to land.
// `write(card, address, data, n)` is the model's write that no lie stops.
struct LateTails {
    HeldTail held;                // the current transfer's tail
    std::vector<HeldTail> late;   // ended transfers' tails: they land at the next transfer

    // A data write of the current transfer by an engine under `lie`, after `transfers` transfers
    // of its model: dropped (moves_nothing, stale_after=N), written now, or held back
    // (completes_early).
    template <typename Write>
    void deliver(const streams::Lie& lie, uint64_t transfers, bool card, uint64_t address, const uint8_t* data,
                 uint64_t n, Write write) {
        if (!lie.moves(transfers))
            return;
        if (lie.late_tail())
            hold(card, address, data, n, write);
        else
            write(card, address, data, n);
    }

    // A write of the current transfer: all but its last kLateTailBytes lands now (held bytes a
    // write does not continue land first).
    template <typename Write>
    void hold(bool card, uint64_t address, const uint8_t* data, uint64_t n, Write write) {
        if (!held.bytes.empty() && (held.card != card || held.address + held.bytes.size() != address)) {
            write(held.card, held.address, held.bytes.data(), held.bytes.size());  // not contiguous
            held.bytes.clear();
        }
        if (held.bytes.empty())
            held.address = address, held.card = card;
        held.bytes.insert(held.bytes.end(), data, data + n);
        if (held.bytes.size() > streams::kLateTailBytes) {  // all but the last bytes land now
            const uint64_t now = held.bytes.size() - streams::kLateTailBytes;
            write(card, held.address, held.bytes.data(), now);
            held.bytes.erase(held.bytes.begin(), held.bytes.begin() + static_cast<long>(now));
            held.address += now;
        }
    }

    // The transfer ended: its tail waits `late_by` before it may land.
    void end_transfer(std::chrono::milliseconds late_by) {
        if (held.bytes.empty())
            return;
        held.due = std::chrono::steady_clock::now() + late_by;
        late.push_back(std::move(held));
        held = HeldTail{};
    }

    // The tails whose time has come land through `write`, as a lying engine's writes; the others
    // wait.
    template <typename Write>
    void land_due(Write write) {
        const auto now = std::chrono::steady_clock::now();
        std::vector<HeldTail> waiting;
        for (HeldTail& tail : late) {
            if (tail.due > now) {
                waiting.push_back(std::move(tail));
                continue;
            }
            SimIommu::LyingWriteScope lying;
            write(tail.card, tail.address, tail.bytes.data(), tail.bytes.size());
        }
        late = std::move(waiting);
    }
};

}  // namespace sim
