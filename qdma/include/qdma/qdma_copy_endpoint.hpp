// The QDMA card-memory path behind the copy-endpoint seam (streams::CopyEndpoint): copies between
// IOMMU-mapped host buffers and the card's AXI memory through memory-mapped H2C / C2H queue
// pairs (PG302 "AXI Memory Mapped" queues, internal mode), on a real device or a simulated one.
//
// Endpoint queue q is the function's H2C MM queue and C2H MM queue numbered qid_first + q. A
// copy is split into MM descriptors of at most piece_bytes (lengthInByte holds 64K-1); copies
// of one direction go to their queue as soon as its ring has room, so several are in flight; a
// copy of the other direction waits until every earlier copy of its endpoint queue completed.
// Completion is read from each ring's status descriptor (writeback cidx): polled, or on the
// interrupt of an aggregation ring (config.interrupts).
//
//   qdma::CopyEndpointConfig config{.name = "0000:15:00.0 VD100_qdma_ddr4", .function = {.bar = 0},
//                                   .card_memory_base = 0x800000000, .card_memory_size = 1ull << 32};
//   auto endpoint = PDT_TRY(qdma::open_copy_endpoint(device, config));
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "qdma/qdma_function.hpp"
#include "streams/copy_endpoint.hpp"
#include "vfio_access/device.hpp"

namespace qdma {

struct CopyEndpointConfig {
    std::string name;               // for messages: "0000:15:00.0 VD100_qdma_ddr4"
    // The function opened: the QDMA BAR (designs::Qdma::bar), the PCIe function (physical
    // function number), its physical queues (FMAP qid_base, qid_max) and the context timeout.
    FunctionOptions function;
    uint16_t qid_first = 0;         // the first queue pair used
    uint64_t card_memory_base = 0;  // AXI address of card offset 0
    uint64_t card_memory_size = 0;  // bytes the copies may address
    unsigned queues = 2;            // queue pairs (endpoint queues)
    uint32_t ring_entries = 65;     // a QDMA_GLBL_RNG_SZ value (65: 64 descriptors, 63 outstanding)
    unsigned max_in_flight = 64;    // copies one endpoint queue holds at most
    uint32_t piece_bytes = 0x8000;  // bytes one MM descriptor moves at most (1..64K-1)
    unsigned dma_mask_bits = 64;
    std::function<void(const std::string&)> warn;  // a queue found enabled (default: stderr)
    // Completion by interrupt instead of polling alone: every queue interrupts through one
    // interrupt aggregation ring (qdma_interrupt_ring.hpp) on MSI-X vector msi_vector; wait()
    // sleeps on the vector between looks at the status descriptors.
    bool interrupts = false;
    unsigned interrupt_ring = 0;  // the ring's index (Interrupt Context), 0..255
    unsigned msi_vector = 0;
};

// Opens the function (FMAP, capabilities), starts MM channel 0 in both directions and sets up
// `queues` H2C and C2H MM queue pairs. A usage error for options the IP or PG302 refuses, naming the
// register and value (a ring size not among QDMA_GLBL_RNG_SZ, queues past the FMAP range or
// MULTQ_MAX); ENODEV when the IP has no MM engines; a usage error when card_memory_size is 0.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_copy_endpoint(vfio::Device& device,
                                                                       const CopyEndpointConfig& config);

}  // namespace qdma
