// completes_early's held-back tails (streams/lie.hpp), shared by the XDMA and QDMA models: those
// whose time has come land through `write`, as a lying engine's late writes (a tail may land
// after its buffer was released: the lie's doing, not the driver's); the others wait.
#pragma once

#include <chrono>
#include <utility>
#include <vector>

#include "sim/sim_device.hpp"

namespace sim {

template <typename Tail, typename Write>
void land_due_tails(std::vector<Tail>& late, Write write) {
    const auto now = std::chrono::steady_clock::now();
    std::vector<Tail> waiting;
    for (Tail& tail : late) {
        if (tail.due > now) {
            waiting.push_back(std::move(tail));
            continue;
        }
        SimIommu::LyingWriteScope lying;
        write(tail);
    }
    late = std::move(waiting);
}

}  // namespace sim
