// The CUDA stream adapter (namespace cuda_stream): an NVIDIA GPU as a card with DMA stream
// channels, behind the neutral seam streams::StreamChannel, so the same stream-test drivers
// that run XDMA, edu and ET-SoC-1 channels move and verify data over a real PCIe link.
//
//   H2C (host to device)  cudaMemcpyAsync from a host buffer into a device slot, then a kernel
//                         checks every word against the keyed pattern the source said it sent
//                         (StreamChannel::describe): H2D data is verified on the GPU.
//   C2H (device to host)  independent: a kernel generates the keyed pattern of the channel's
//                         own stream into a device slot, copied to the host buffer, where the
//                         host's worker pool verifies it. Loopback: the slot an H2C copy filled
//                         is copied back, in order, so the host verifies what it sent.
//
// Host buffers are pinned (cudaHostAlloc: direct DMA by the copy engines) or pageable (the CUDA
// driver stages them through its own pinned buffers). Each channel has its own CUDA stream.
// This header has no CUDA types: users need not compile with the CUDA headers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "streams/lie.hpp"
#include "streams/stream_channel.hpp"

namespace cuda_stream {

enum class HostMemory { Pinned, Pageable };
const char* to_string(HostMemory memory);  // "pinned", "pageable"

struct GpuInfo {
    int ordinal = 0;
    std::string name;        // "NVIDIA H200"
    std::string pci_bus_id;  // "0000:19:00.0", as the CUDA driver reports it
    uint64_t memory_bytes = 0;
};

// The GPUs the CUDA runtime sees; an error says why there are none usable (no driver, no device).
pdt::Result<int> gpu_count();
pdt::Result<GpuInfo> gpu_info(int ordinal);

// A test-only fault: one byte of the stream at this offset is corrupted on the GPU (H2C: in the
// device slot after the copy, before the check; C2H: after generation, before the copy).
struct Corruption {
    streams::Direction direction = streams::Direction::H2C;
    uint64_t stream_byte_offset = 0;
};

// The test-only lie (streams/lie.hpp, docs/verification.md, the run must FAIL): copies complete
// as usual, their events recorded, but do not move (all of) the data. Transfers are counted from
// 1 over both directions of every channel that shares the counter (a stream device: all of its
// channels); completes_early's tail is copied when the channel's (endpoint's) next transfer
// starts after the completion was handed over, or never.
using LieCounter = std::atomic<uint64_t>;

struct ChannelConfig {
    int gpu = 0;
    unsigned channel = 0;        // names the channel and (C2H) its generated stream
    size_t buffer_count = 8;
    uint64_t buffer_size = 16u << 20;  // a multiple of 4
    HostMemory memory = HostMemory::Pinned;
    std::optional<Corruption> corruption;
    streams::Lie lie;
    std::shared_ptr<LieCounter> lie_transfers;  // shared by a device's channels; null: the channel's own
};

// The stream a C2H channel generates when no H2C channel feeds it.
inline uint64_t generated_stream_of(unsigned channel) { return 0x10000 + channel; }

// Device memory an H2C and a C2H channel share so that data loops back through the GPU.
class Loop;
pdt::Result<std::shared_ptr<Loop>> make_loop(int gpu, size_t slots, uint64_t slot_size);

// loop null: the H2C channel only checks; the C2H channel generates.
pdt::Result<std::unique_ptr<streams::StreamChannel>> open_h2c(const ChannelConfig& config,
                                                              std::shared_ptr<Loop> loop);
pdt::Result<std::unique_ptr<streams::StreamChannel>> open_c2h(const ChannelConfig& config,
                                                              std::shared_ptr<Loop> loop);

// The reference: bare cudaMemcpyAsync of the same sizes, nothing generated or checked, on
// `streams` CUDA streams per direction with `buffer_count` copies in flight per stream.
struct BareRates {
    double h2d_gbps = 0;       // H2D alone (GB/s, 10^9 bytes)
    double d2h_gbps = 0;       // D2H alone
    double both_h2d_gbps = 0;  // both directions at once
    double both_d2h_gbps = 0;
};
struct BareConfig {
    int gpu = 0;
    unsigned streams = 1;
    size_t buffer_count = 8;
    uint64_t buffer_size = 16u << 20;
    HostMemory memory = HostMemory::Pinned;
    double seconds_per_mode = 2.0;
};
pdt::Result<BareRates> bare_copy_rates(const BareConfig& config);

}  // namespace cuda_stream
