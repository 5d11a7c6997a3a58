// The channel performance monitor (xdma_performance.hpp).
#include "dma_bridge/xdma_performance.hpp"

#include <cerrno>

#include "base/format.hpp"
#include "dma_bridge/xdma_registers.hpp"

namespace xdma {
namespace {

constexpr uint32_t kCountHighBits = 0x3FF;  // [9:0]: count [41:32]
constexpr uint32_t kCountMaxed = 1u << 16;

}  // namespace

pdt::Result<unsigned> datapath_width_bytes(const vfio::RegisterWindow& regs) {
    const uint64_t config = block_offset(target::CONFIG);
    const uint32_t code = regs.read32(config + config_reg::PCIE_DATA_WIDTH) & 0x7;
    if (code > 3)
        return pdt::make_error("read Config Block PCIE Data Width", pdt::hex(config + config_reg::PCIE_DATA_WIDTH),
                               EIO, "pcie_width " + std::to_string(code) + ": PG195 defines 0 to 3 (64 to 512 bits)");
    return 8u << code;
}

PerformanceMonitor::PerformanceMonitor(vfio::RegisterWindow regs, Direction direction, unsigned channel)
    : m_regs(std::move(regs)),
      m_channel_block(block_offset(direction == Direction::H2C ? target::H2C_CHANNEL : target::C2H_CHANNEL, channel)),
      m_name(std::string(to_string(direction)) + " " + std::to_string(channel)) {}

void PerformanceMonitor::start() {
    m_regs.write32(m_channel_block + channel_reg::PERFORMANCE_MONITOR_CONTROL, performance::clear);
    m_regs.write32(m_channel_block + channel_reg::PERFORMANCE_MONITOR_CONTROL, performance::run);
}

void PerformanceMonitor::stop() { m_regs.write32(m_channel_block + channel_reg::PERFORMANCE_MONITOR_CONTROL, 0); }

uint64_t PerformanceMonitor::count(uint32_t low_register, bool& maxed) const {
    // The high word last, then the low word again: a low word that wrapped between the two reads
    // is read again with its high word.
    uint32_t low = m_regs.read32(m_channel_block + low_register);
    uint32_t high = m_regs.read32(m_channel_block + low_register + 4);
    if (const uint32_t again = m_regs.read32(m_channel_block + low_register); again < low) {
        low = again;
        high = m_regs.read32(m_channel_block + low_register + 4);
    }
    maxed = (high & kCountMaxed) != 0;
    return uint64_t{high & kCountHighBits} << 32 | low;
}

PerformanceCounts PerformanceMonitor::read() const {
    PerformanceCounts counts;
    counts.cycles = count(channel_reg::PERFORMANCE_CYCLE_COUNT, counts.cycles_maxed);
    counts.data_beats = count(channel_reg::PERFORMANCE_DATA_COUNT, counts.data_maxed);
    return counts;
}

std::string PerformanceMonitor::describe(const PerformanceCounts& counts) const {
    return m_name + " performance monitor: " + std::to_string(counts.cycles) + " cycles" +
           (counts.cycles_maxed ? " (maxed)" : "") + ", " + std::to_string(counts.data_beats) + " data beats" +
           (counts.data_maxed ? " (maxed)" : "") + pdt::format(" (duty cycle %.3f)", counts.data_duty_cycle());
}

bool PerformanceMonitors::start(const vfio::RegisterWindow& regs,
                                const std::vector<std::pair<Direction, unsigned>>& channels) {
    m_monitors.clear();
    auto width = datapath_width_bytes(regs);
    if (!width)
        return false;
    m_beat_bytes = *width;
    for (const auto& [direction, channel] : channels)
        m_monitors.emplace_back(regs, direction, channel).start();
    return true;
}

std::vector<std::string> PerformanceMonitors::lines() const {
    std::vector<std::string> lines;
    for (const PerformanceMonitor& monitor : m_monitors)
        if (const PerformanceCounts counts = monitor.read(); counts.cycles > 0 || counts.data_beats > 0)
            lines.push_back(monitor.describe(counts) + ": " + std::to_string(counts.data_beats * m_beat_bytes) +
                            " bytes at " + std::to_string(m_beat_bytes) + " bytes a beat");
    if (lines.empty() && !m_monitors.empty())
        lines.push_back("the XDMA channels' performance monitors counted nothing");
    return lines;
}

}  // namespace xdma
