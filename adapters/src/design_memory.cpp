#include "adapters/design_memory.hpp"

#include "adapters/xdma_stream_devices.hpp"
#include "design_endpoint.hpp"

namespace adapters {
namespace {

// The design of the user's copy: one with XDMA card memory, else one with QDMA card memory.
const identify::IdentifiedDesign* user_memory_design(const identify::Identification& found) {
    if (const identify::IdentifiedDesign* xdma = xdma_memory_design(found))
        return xdma;
    return qdma_memory_design(found);
}

}  // namespace

pdt::Result<DesignMemory> open_design_memory(std::unique_ptr<designs::Registry> registry,
                                             const tool_support::DesignSelection& selection) {
    EndpointDesign opened =
        PDT_TRY(open_endpoint_design(std::move(registry), selection, "xdma or qdma", user_memory_design,
                                     "no design with card memory behind a memory-mapped XDMA or a QDMA"));
    const identify::IdentifiedDesign& design = *opened.design;
    DesignMemory memory;
    std::unique_ptr<streams::CopyEndpoint> inner;
    if (xdma_memory_design(opened.opened.found) == &design) {
        XdmaEndpointCli cli;
        cli.queues = 1;
        const xdma::ModeRequest modes = PDT_TRY(dma_mode_request(cli.modes));
        inner = PDT_TRY(xdma::open_copy_endpoint(*design.device, xdma_endpoint_config(design, cli, selection, modes)));
        memory.adapter = "xdma";
        memory.memory_base = design.dma_bridge->memory_base;
    } else {
        QdmaEndpointCli cli;
        cli.queues = 1;
        inner = PDT_TRY(qdma::open_copy_endpoint(*design.device, qdma_endpoint_config(design, cli)));
        memory.adapter = "qdma";
        memory.memory_base = design.design->qdma->memory_base;
    }
    memory.endpoint = PDT_TRY(own_design_endpoint(std::move(opened), std::move(inner), memory.holds));
    return memory;
}

}  // namespace adapters
