// The XDMA card-memory path behind the copy-endpoint seam (streams::CopyEndpoint): copies between
// IOMMU-mapped host buffers and the card's AXI memory through the memory-mapped H2C / C2H engines
// of a design (PG195 "AXI4 Memory Mapped" channels), with the same driver (xdma::Engine) the
// memory tests use. It runs on a real device or on the simulated XDMA model unchanged.
//
// Queue q is the engine pair H2C q / C2H q: queues = min(H2C, C2H channels). Copies of one
// direction go to their engine as soon as its ring has room, so several are in flight per
// queue; a copy of the other direction waits in software until every earlier copy of its queue
// completed (a card-to-host copy after a host-to-card one reads what it wrote, as on a CUDA
// stream). Tickets of one queue therefore complete in issue order.
//
//   xdma::CopyEndpointConfig config{.name = "0000:15:00.0 NiteFury_dma_ddr3", .dma_bar = 2,
//                                   .card_memory_base = 0, .card_memory_size = 1ull << 30};
//   auto endpoint = PDT_TRY(xdma::open_copy_endpoint(device, config));
//
// Registered host buffers are vfio::DmaRegions (anonymous or huge pages) mapped for DMA in the
// device's container. Pageable buffers are plain memory for the host's own use (the user buffer
// of a staged copy); a copy from or to one is refused: the engines reach only IOMMU-mapped memory.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "dma_bridge/xdma_ip.hpp"
#include "streams/copy_endpoint.hpp"
#include "vfio_access/device.hpp"

namespace xdma {

struct CopyEndpointConfig {
    std::string name;  // for messages: "0000:15:00.0 NiteFury_dma_ddr3"
    unsigned dma_bar = 0;
    uint64_t register_offset = 0;   // of the DMA register space inside dma_bar
    uint64_t card_memory_base = 0;  // AXI address of card offset 0
    uint64_t card_memory_size = 0;  // bytes the copies may address
    unsigned max_queues = 4;        // engine pairs used at most (the design may have fewer)
    unsigned ring_descriptors = 256;  // per engine
    unsigned max_in_flight = 64;      // copies one queue holds at once (issued, not waited for)
    unsigned dma_mask_bits = 64;
    IpOptions ip;       // what the design states about its XDMA IP
    ModeRequest modes;  // the engine mode and completion asked for
    // The engines' own progress deadline (wait() takes its own timeout per call).
    std::chrono::milliseconds engine_timeout{10000};
};

// Enables Bus Master in the device's Command register, discovers the memory-mapped channels and
// opens an engine pair per queue. ENODEV when the
// design has no memory-mapped H2C and C2H channel; EINVAL when card_memory_size is 0.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_copy_endpoint(vfio::Device& device,
                                                                       const CopyEndpointConfig& config);

}  // namespace xdma
