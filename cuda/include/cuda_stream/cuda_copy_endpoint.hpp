// An NVIDIA GPU behind the copy-endpoint seam (streams::CopyEndpoint), for the link measurement
// suite: cudaMemcpyAsync between a host buffer and one device allocation (the "card memory").
//
//   queues        CUDA streams (non-blocking), one per queue; copies of a stream complete in order
//   host memory   Registered: pinned with cudaHostAlloc (the copy engines DMA it directly);
//                 RegisteredHugePages: 2 MiB huge pages (mmap MAP_HUGETLB) pinned with
//                 cudaHostRegister; Pageable: plain memory, which the CUDA driver stages through
//                 its own pinned buffers
//   issue         cudaMemcpyAsync, then an event recorded behind it; returns at once
//   wait          polls the event (cudaEventQuery) until it fired or the timeout passed: ETIMEDOUT,
//                 and the endpoint is unusable until reset_queues (fresh streams and events: CUDA
//                 cannot cancel queued work, the abandoned copies still complete behind them)
//   teardown      reset_queues and the close first wait up to 2 s for each queue's last copy;
//                 one not seen complete keeps every host buffer released from then on allocated
//                 until the process exits (a warning names the queue): no buffer is freed while
//                 the GPU may still copy it
//   launch_empty  an empty kernel <<<1,1>>> queued `count` times on the queue's stream, waited once
//   info()        the GPU's PCI address as cudaDeviceGetPCIBusId reports it
//   lie           a test fault (config.lie): completes_early copies a copy's held-back tail at the
//                 next issue after a wait saw the copy complete, unless its host buffer is gone
// This header has no CUDA types: users need not compile with the CUDA headers.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda_stream/cuda_stream.hpp"
#include "streams/copy_endpoint.hpp"

namespace cuda_stream {

struct CopyEndpointConfig {
    int gpu = 0;                                // CUDA ordinal
    unsigned queues = 4;                        // CUDA streams
    uint64_t card_memory_bytes = 512ull << 20;  // the device allocation copies address
    unsigned max_in_flight = 64;                // copies one queue holds at once
    streams::Lie lie;  // a test-only lie (streams/lie.hpp): copies counted over both directions and every queue
};

// Errors say why: no usable GPU, an ordinal out of range, a device allocation that failed.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_copy_endpoint(const CopyEndpointConfig& config);

// The reference the latency figures are compared with: `samples` bare cudaMemcpyAsync of
// `bytes` followed by cudaStreamSynchronize, each timed from the call to the return (seconds),
// between pinned host memory and the device, on one stream of GPU `gpu`.
pdt::Result<std::vector<double>> bare_copy_seconds(int gpu, streams::Direction direction, uint64_t bytes,
                                                   unsigned samples);

}  // namespace cuda_stream
