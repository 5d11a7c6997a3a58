// The performance monitor of one XDMA channel (PG195, H2C and C2H Channel registers 0xC0-0xD0):
// the IP's own count of the clocks it ran and of the data beats it moved, so that a slow transfer
// says whether the IP moved data on every clock (the host was slow to give it work) or waited.
//
// Start clears the counts (Performance Monitor Control.Clear) and arms them (Run): they count
// while the channel's Control.Run is set. Stop clears Run; the counts then hold. Each count is
// 42 bits with a flag that it reached its maximum. A beat is one word of the DMA datapath, as
// wide as the Config Block's PCIE Data Width (0x18): a transfer of n bytes moves at least
// n / width beats.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "dma_bridge/xdma_direction.hpp"
#include "vfio_access/mmio.hpp"

namespace xdma {

struct PerformanceCounts {
    uint64_t cycles = 0;      // pmon_cyc_count [41:0]: clocks while running
    uint64_t data_beats = 0;  // pmon_dat_count [41:0]: valid data beats while running
    bool cycles_maxed = false;
    bool data_maxed = false;
    // The share of the clocks that moved data (0 when no clock was counted).
    double data_duty_cycle() const { return cycles == 0 ? 0.0 : static_cast<double>(data_beats) / cycles; }
};

// The Config Block's PCIE Data Width (0x18) in bytes: 8, 16, 32 or 64 (`regs` is the DMA register
// space). EIO when the field holds a code PG195 does not define.
pdt::Result<unsigned> datapath_width_bytes(const vfio::RegisterWindow& regs);

class PerformanceMonitor {
public:
    PerformanceMonitor(vfio::RegisterWindow regs, Direction direction, unsigned channel);

    void start();  // Clear, then Run
    void stop();   // Run cleared: the counts hold
    PerformanceCounts read() const;
    // "H2C 0 performance monitor: 1234 cycles, 1000 data beats (duty cycle 0.810)"
    std::string describe(const PerformanceCounts& counts) const;

private:
    uint64_t count(uint32_t low_register, bool& maxed) const;
    vfio::RegisterWindow m_regs;
    uint64_t m_channel_block;
    std::string m_name;  // "H2C 0"
};

// The monitors of some channels, started together: the IP's own count that a copy endpoint or a
// stream channel reports (streams' ip_counts).
class PerformanceMonitors {
public:
    // Clears and arms the monitor of each (direction, channel); false, with no monitor, when the
    // Config Block's PCIE Data Width is not one PG195 defines.
    bool start(const vfio::RegisterWindow& regs, const std::vector<std::pair<Direction, unsigned>>& channels);
    // A line for each monitor that counted (describe(), then its bytes at the datapath width),
    // or one saying that none counted; none before start().
    std::vector<std::string> lines() const;

private:
    std::vector<PerformanceMonitor> m_monitors;
    unsigned m_beat_bytes = 0;
};

}  // namespace xdma
