// The stream device seam: what the stream tools open and run on. A device with DMA stream
// channels says who it is (for the output lines), which H2C channel loops to which C2H channel,
// what the card does between them, and opens channels with registered buffers.
//
// Contract:
//   - design_name(), address(), iommu_group() name the device in every line about it (the
//     text lines that fpga_sio also prints name it by display_name(), fpga_sio's name); a device
//     that is not a VFIO function (a GPU, an ET-SoC-1 card) gives iommu_group() -1 and may make
//     up an address in a domain no host has (0xffff).
//   - routes() are the enabled loopbacks in the order the tools select them; each names an
//     H2C channel < h2c_channels() and a C2H channel < c2h_channels().
//   - card_function() is what the card does to the data of a route (it decides what the C2H
//     side is checked against); packet_granularity() is the length every H2C packet must be a
//     multiple of for it.
//   - open_channel() opens one channel with `buffers.count` buffers of `buffers.size` bytes,
//     registered for DMA; the channel may be opened once, and lives at most as long as the
//     device. Failures are errors naming the device and channel; EINVAL for a request the
//     device cannot take (a channel it does not have, a size it cannot map).
// The XDMA designs (kernel or simulated bus), the GPUs and the ET-SoC-1 cards implement it.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "base/spellings.hpp"
#include "streams/stream_channel.hpp"
#include "vfio_access/pci_address.hpp"

namespace streams {

// What the card does between a source and the sink it feeds (designs::StreamFunction), so a
// sink knows what it should receive:
//   Loopback   the source's packets, byte for byte;
//   Crc64      one 8-byte packet per source packet, its CRC-64;
//   FixedData  zeros in full buffers, never an end of packet, whatever the source sent;
//   Generated  no source: the card generates the keyed pattern of the stream the C2H channel
//              names (StreamChannel::generated_stream, a GPU), whole buffers in order.
enum class CardFunction { Loopback, Crc64, FixedData, Generated };

inline constexpr pdt::Spelling<CardFunction> kCardFunctionNames[] = {{CardFunction::Loopback, "loopback"},
                                                                     {CardFunction::Crc64, "crc64"},
                                                                     {CardFunction::FixedData, "fixed_data"},
                                                                     {CardFunction::Generated, "generated"}};

// "loopback", "crc64", "fixed_data", "generated".
inline const char* to_string(CardFunction function) { return pdt::spelling(function, kCardFunctionNames); }

// Where a channel's host buffers come from (--buffer_allocation heap|shared_memory|huge_pages).
enum class BufferAllocation { Heap, SharedMemory, HugePages };

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

// How a device's DMA engines run, where its adapter chooses (XDMA): the run mode and completion
// method as the --engine_mode and --completion options spell them ("credits", "poll_writeback").
struct EngineChoice {
    std::string engine_mode, completion;
};

class StreamDevice {
public:
    virtual ~StreamDevice() = default;
    virtual std::string design_name() const = 0;
    virtual std::string display_name() const { return design_name(); }
    virtual vfio::PciAddress address() const = 0;
    virtual int iommu_group() const = 0;
    virtual unsigned h2c_channels() const = 0;
    virtual unsigned c2h_channels() const = 0;
    virtual std::vector<LoopRoute> routes() const = 0;
    virtual CardFunction card_function() const { return CardFunction::Loopback; }
    virtual uint64_t packet_granularity() const { return 4; }
    // What the tools call a channel of the device in their lines: "channel" (XDMA engines), or
    // "queue" (QDMA queues).
    virtual const char* channel_kind() const { return "channel"; }
    // The engine modes the adapter chose when it opened the device; nullopt where it has no choice.
    virtual std::optional<EngineChoice> engines() const { return std::nullopt; }
    virtual pdt::Result<std::unique_ptr<StreamChannel>> open_channel(Direction direction, unsigned channel,
                                                                     const ChannelBuffers& buffers) = 0;
};

// Waits for the next completion of a loopback's C2H channel. When none comes in time and the
// H2C channel feeding it has failed (a descriptor or data error), that failure is the cause
// to report: the C2H timeout is only its symptom. (The H2C completion polled to find out is
// lost: the caller stops on either error.)
inline pdt::Result<Completion> wait_loopback(StreamChannel& h2c, StreamChannel& c2h,
                                             std::chrono::milliseconds timeout) {
    auto done = c2h.wait(timeout);
    if (done.ok() || done.error().code != ETIMEDOUT || !h2c.busy())
        return done;
    if (auto h2c_state = h2c.poll(); !h2c_state.ok())
        return h2c_state.error();
    return done;
}

}  // namespace streams
