// An NVIDIA GPU as a streams::StreamDevice (the seam the stream tools open): its channels are
// the cuda_stream channels of cuda_stream.hpp. With loopback, channel n's C2H copies bring back,
// through GPU memory, what its H2C copies brought (test_dma_bridge_parallel_streams); without,
// the GPU checks what each H2C channel brings and generates each C2H channel's own stream.
#pragma once

#include <memory>
#include <optional>

#include "cuda_stream/cuda_stream.hpp"
#include "streams/stream_device.hpp"

namespace cuda_stream {

struct StreamDeviceConfig {
    unsigned channels = 1;  // per direction
    HostMemory memory = HostMemory::Pinned;
    std::optional<Corruption> corruption;  // a test fault
    streams::Lie lie;                      // a test fault, one transfer count over every channel
    bool loopback = false;
};

// The GPU of this ordinal (gpu_info) as a stream device. ENODEV when the CUDA runtime has no
// such GPU.
pdt::Result<std::unique_ptr<streams::StreamDevice>> open_stream_device(int ordinal, const StreamDeviceConfig& config);

}  // namespace cuda_stream
