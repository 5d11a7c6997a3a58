// A C2H stream channel in PG195 continuous mode (namespace xdma): descriptor credit
// mode disabled on the channel, a ring of fixed buffers whose descriptors link in a circle with
// no STOP; once Run is set the engine follows the ring for ever. Software learns of completions
// from the Completed Descriptor Count register (reset by the rising edge of Run) and reads
// length / EOP from each descriptor's stream writeback.
//
// free_running: the source does not wait for software (a fixed-data card), so the engine may
// lap the ring. poll() then skips the descriptors overwritten before they were read and counts
// them (overwritten()); release() leaves the writeback alone, since the engine may already have
// written it again, and the Completed Descriptor Count alone says which buffers hold data.
//
// Run is set and cleared with proof (xdma_run_control.hpp). From start() until a proven stop the
// ring holds a claim on the device's DMA fence (vfio_access/dma_fence.hpp): the engine writes
// its buffers for ever, so they stay mapped until Run and busy read back clear.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "dma_bridge/xdma_run_control.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/dma.hpp"
#include "vfio_access/dma_fence.hpp"

namespace xdma {

// Typed settings of a ring (the tools fill them from their options).
struct ContinuousRingSettings {
    unsigned dma_bar = 0;      // the BAR of the DMA/Bridge Subsystem's registers
    unsigned c2h_channel = 0;  // the C2H stream channel
    size_t buffers = 0;        // descriptors (and buffers) in the ring
    vfio::BufferKind buffer_kind = vfio::BufferKind::Anonymous;
    unsigned dma_mask_bits = 64;
};

class ContinuousRing {
public:
    struct Piece {
        size_t buffer = 0;
        uint32_t length = 0;
        bool end_of_packet = false;
    };

    static pdt::Result<std::unique_ptr<ContinuousRing>> open(vfio::Device& device, const ContinuousRingSettings& o,
                                                             uint64_t size, bool free_running);
    ~ContinuousRing();

    uint8_t* buffer(size_t index) const { return m_data.data() + index * m_size; }
    uint64_t data_bytes() const { return m_data.size(); }
    const std::string& name() const { return m_name; }
    uint64_t overwritten() const { return m_overwritten; }

    pdt::Result<void> start();
    // The next completed descriptor, in ring order; nullopt when none is ready.
    pdt::Result<std::optional<Piece>> poll();
    // The descriptor just consumed may be filled again: clear its writeback (not free_running).
    void release(size_t index);
    // Clears Run and waits up to 1 s for the engine to go idle, both proven by reading back.
    pdt::Result<void> stop();
    // The channel's registers decoded, to the process's failure observer (xdma_register_dump.hpp).
    void report_failure(const std::string& what) const;

private:
    ContinuousRing(vfio::Device& device, vfio::RegisterWindow regs) : m_device(device), m_regs(std::move(regs)) {}
    uint32_t reg(uint64_t offset) const { return m_regs.read32(m_channel + offset); }
    void set(uint64_t offset, uint32_t value) const { m_regs.write32(m_channel + offset, value); }
    uint64_t descriptor_iova(size_t i) const;
    uint64_t writeback_iova(size_t i) const;

    vfio::Device& m_device;
    vfio::RegisterWindow m_regs;
    unsigned m_channel_index = 0;
    uint64_t m_channel = 0, m_sgdma = 0;
    uint32_t m_bit = 0;
    size_t m_count = 0;
    uint64_t m_size = 0, m_consumed = 0, m_overwritten = 0;
    bool m_running = false, m_free_running = false;
    std::string m_name;
    RunControl m_run;
    vfio::DmaRegion m_ring, m_data;
    vfio::DmaFence::Claim m_claim;  // from start() to a proven stop (destroyed before the regions)
};

}  // namespace xdma
