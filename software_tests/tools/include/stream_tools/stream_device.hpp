// What the stream tools need of a device with DMA stream channels: its identity for the
// output lines, its loopback routes, and channels opened with registered buffers. The XDMA
// designs (kernel or simulated bus) implement it; so can the edu, CUDA and ET-SoC-1 adapters.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "streams/stream_channel.hpp"
#include "stream_test/stream_test.hpp"
#include "stream_tools/options.hpp"
#include "vfio_access/pci_address.hpp"
#include "vfio_access/result.hpp"

namespace stream_tools {

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
