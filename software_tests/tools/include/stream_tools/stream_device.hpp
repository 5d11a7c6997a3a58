// What the stream tools need of a device with DMA stream channels: its identity for the
// output lines, its loopback routes, and channels opened with registered buffers. The XDMA
// designs (kernel or simulated bus) implement it; so can the edu, CUDA and ET-SoC-1 adapters.
#pragma once

#include <cerrno>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "streams/stream_channel.hpp"
#include "stream_test/stream_test.hpp"
#include "stream_tools/options.hpp"
#include "vfio_access/pci_address.hpp"
#include "vfio_access/result.hpp"

namespace stream_tools {

// Waits for the next completion of a loopback's C2H channel. When none comes in time and the
// H2C channel feeding it has failed (a descriptor or data error), that failure is the cause
// to report: the C2H timeout is only its symptom. (The H2C completion polled to find out is
// lost: the caller stops on either error.)
inline vfio::Result<streams::Completion> wait_loopback(streams::StreamChannel& h2c, streams::StreamChannel& c2h,
                                                       std::chrono::milliseconds timeout) {
    auto done = c2h.wait(timeout);
    if (done.ok() || done.error().code != ETIMEDOUT || !h2c.busy())
        return done;
    if (auto h2c_state = h2c.poll(); !h2c_state.ok())
        return h2c_state.error();
    return done;
}

// Data sent on H2C channel h2c comes back on C2H channel c2h.
struct LoopRoute {
    unsigned h2c = 0;
    unsigned c2h = 0;
    auto operator<=>(const LoopRoute&) const = default;
};

struct ChannelBuffers {
    size_t count = 64;           // descriptors / buffers in the ring
    uint64_t size = 0x1000000;   // bytes per buffer
    BufferAllocation allocation = BufferAllocation::Heap;
};

class StreamDevice {
public:
    virtual ~StreamDevice() = default;
    virtual std::string design_name() const = 0;
    virtual vfio::PciAddress address() const = 0;
    virtual int iommu_group() const = 0;
    virtual unsigned h2c_channels() const = 0;
    virtual unsigned c2h_channels() const = 0;
    // Enabled loopback routes, in the order the tools select them.
    virtual std::vector<LoopRoute> routes() const = 0;
    // What the card does between H2C and C2H (loopback unless the design says otherwise), and
    // the granularity H2C packets must have for it (CRC64: the tdata width).
    virtual stream_test::CardFunction card_function() const { return stream_test::CardFunction::Loopback; }
    virtual uint64_t packet_granularity() const { return 4; }
    virtual vfio::Result<std::unique_ptr<streams::StreamChannel>> open_channel(streams::Direction direction,
                                                                               unsigned channel,
                                                                               const ChannelBuffers& buffers) = 0;
};

}  // namespace stream_tools
