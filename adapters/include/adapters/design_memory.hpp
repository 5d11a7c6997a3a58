// The card memory of the one design a command line names, through its XDMA memory-mapped engines
// or its QDMA memory-mapped queues, whichever the design has: the copy endpoint of the xdma or
// qdma row (copy_endpoints.hpp) chosen by the design found, not by an option (dma_to_device,
// dma_from_device). One engine pair or one queue pair: a user's copy is one copy at a time.
#pragma once

#include <memory>
#include <string>

#include "adapters/copy_endpoints.hpp"
#include "designs/registry.hpp"
#include "tool_support/open_designs.hpp"

namespace adapters {

struct DesignMemory {
    std::unique_ptr<streams::CopyEndpoint> endpoint;
    std::string adapter;       // the row that opened it: "xdma" or "qdma"
    uint64_t memory_base = 0;  // the card's bus address of the endpoint's card offset 0 (the design's memory_base)
    EndpointHolds holds;       // the design (valid while the endpoint lives)
};

// The first design of `selection` with card memory behind a memory-mapped XDMA bridge or a QDMA,
// opened as a copy endpoint (the engines' or queues' default modes). A usage error for an unknown --sim_design (its message on stderr, as every tool
// prints it); ENODEV when no such design was found (the reasons on stderr).
pdt::Result<DesignMemory> open_design_memory(std::unique_ptr<designs::Registry> registry,
                                             const tool_support::DesignSelection& selection);

}  // namespace adapters
