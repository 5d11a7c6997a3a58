// time_memmapped --copy's library part: fpga_sio's time_memmapped_libpciaccess, a whole window
// of BAR memory copied host-to-card and card-to-host by the CPU (PIO), timed, and every byte of
// every copy verified. Before each copy its destination holds a decoy: the BAR the complement of
// what is to be written, the host buffer another value again, so that data a copy did not move
// never verifies. Each pass writes its own pattern (measure::persistence_value of key + pass),
// so one pass's data left in the BAR does not verify the next.
//
// A copy moves 8 bytes at a time through the accessor (MmioAccessor: the uncached VFIO mapping
// or the write-combined one); a host-to-card copy ends with the accessor's drain() and a read
// of the window's first word, so that writes still posted are paid for in its time (fpga_sio's
// "flush posted writes").
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/mmio_timing.hpp"

namespace measure {

struct BarCopyRequest {
    unsigned bar = 0;
    uint64_t offset = 0;                   // of the window in the BAR, a multiple of 8
    uint64_t size = 0;                     // bytes, a multiple of 8
    uint64_t total_bytes = 64ull << 20;    // per direction and mapping (fpga_sio: 64 MiB); at least one pass
    uint64_t key = 1;
};

struct BarCopyMismatch {
    uint64_t offset = 0;  // in the BAR
    uint64_t expected = 0, read = 0;
    unsigned pass = 0;
    std::string why;  // which decoy was read, or "neither decoy: stale or wrong data"
};

struct BarCopyRun {
    std::string mapping;  // the accessor's
    std::vector<std::chrono::nanoseconds> to_card, to_host;  // each copy's time
    uint64_t bytes_verified = 0;
    std::optional<BarCopyMismatch> mismatch;  // the first word that did not verify; the run stops there
    bool passed() const { return bytes_verified > 0 && !mismatch; }
    // "BAR 2 offset 0x1238 (pass 3): read 0x.., expected 0x..: <why>"
    std::string describe_mismatch() const;
};

// The passes (total_bytes / size, at least one) on `accessor`, stopping at the first mismatch.
BarCopyRun copy_bar_window(MmioAccessor& accessor, const BarCopyRequest& request);

}  // namespace measure
