// time_memmapped's library part (fpga_sio's name): the time of CPU accesses to a BAR, 1, 2, 4,
// 8 and 64 bytes at a time, through the uncached VFIO mapping (vfio::Bar) and, where the kernel
// offers one, a write-combined mapping (vfio::WcMapping): read latency, write issue rate, a read
// behind a posted write and the read that flushes a run of writes.
//
// A 64-byte access is eight 8-byte accesses at consecutive addresses: on the uncached mapping
// each is its own transaction; on the write-combined one the CPU may merge the writes into one.
// On a simulated design every figure is the model's cost (a call into its register model), not
// a device's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vfio_access/bar_access.hpp"
#include "vfio_access/device.hpp"

namespace measure {

// The widths time_memmapped times, in bytes.
inline const std::vector<unsigned> kMmioWidths{1, 2, 4, 8, 64};

// One way of reaching the BAR.
class MmioAccessor {
public:
    virtual ~MmioAccessor() = default;
    virtual std::string mapping() const = 0;  // "UC (VFIO mmap)", "WC (sysfs resource2_wc)"
    virtual uint64_t read(uint64_t offset, unsigned width) = 0;   // width 64: eight 8-byte reads, the last returned
    // values: one value, or eight 8-byte words for width 64.
    virtual void write(uint64_t offset, unsigned width, const uint64_t* values) = 0;
    virtual void drain() {}  // empties the CPU's write-combining buffers (sfence)
};
std::unique_ptr<MmioAccessor> uncached_accessor(vfio::Bar& bar);
std::unique_ptr<MmioAccessor> write_combined_accessor(std::unique_ptr<vfio::WcMapping> mapping, unsigned bar);

struct MmioTimingRequest {
    uint64_t offset = 0;
    std::vector<unsigned> widths = kMmioWidths;
    unsigned count = 1000;  // accesses per figure
    bool write = false;     // time writes too (each writes back the value read first)
};

struct MmioRow {
    std::string mapping;
    std::string access;  // "read", "write", "write then read", "flushing read after N writes"
    unsigned width = 0;
    unsigned count = 0;
    double ns_min = 0, ns_median = 0, ns_max = 0;  // per access (per iteration for "write then read")
    double mb_per_s = 0;                          // bytes moved / total time; 0 for the flushing read
};

// The rows of one accessor: per width, the reads; with request.write the writes, a read behind
// one posted write and the flushing read after `count` writes (each writing back what was read
// there first, so the BAR keeps its content).
std::vector<MmioRow> time_accesses(MmioAccessor& accessor, const MmioTimingRequest& request);

// The request's accesses checked before any is made (vfio::check_bar_access for each width at
// the offset: a 64-byte access needs 64 bytes aligned to 64).
pdt::Result<vfio::Bar*> check_timing_request(vfio::Device& device, unsigned bar, const MmioTimingRequest& request,
                                             const std::vector<unsigned>& bar_widths);

// The table, one line a row, with a header naming the mappings' meaning.
std::string format_rows(const std::vector<MmioRow>& rows);
// {"rows": [...]} plus the fields a caller adds.
std::string format_rows_json(const std::vector<MmioRow>& rows, const std::string& wc_note, bool simulated);

}  // namespace measure
