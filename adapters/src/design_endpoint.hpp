// The copy endpoints on a design's card memory (xdma.cpp, qdma.cpp): the designs of the selection
// opened, the one with the endpoint's engine and card memory picked, and the endpoint that owns
// them (the registry its design points into, the bus its device is on).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "adapter_glue.hpp"
#include "dma_bridge/xdma_copy_endpoint.hpp"
#include "qdma/qdma_copy_endpoint.hpp"
#include "tool_support/open_designs.hpp"

namespace adapters {

// The designs the xdma options select (--sim_design, --no_iommu; --device parsed into `locations`),
// waited for `lock_timeout` when busy: xdma's selection, which qdma shares.
tool_support::DesignSelection endpoint_selection(const XdmaEndpointCli& cli, std::vector<vfio::PciAddress> locations,
                                                 std::chrono::milliseconds lock_timeout);

struct EndpointDesign {
    std::unique_ptr<designs::Registry> registry;
    tool_support::OpenedDesigns opened;
    const identify::IdentifiedDesign* design = nullptr;  // in opened.found
};

// The designs of `selection`, and the first that `pick` takes. A usage error when the selection is
// (an unknown design: its message is on stderr); ENODEV, `none_picked` its reason, when designs
// were found but none taken. `endpoint` names the endpoint in the errors ("xdma").
pdt::Result<EndpointDesign> open_endpoint_design(std::unique_ptr<designs::Registry> registry,
                                                 const tool_support::DesignSelection& selection,
                                                 const std::string& endpoint,
                                                 const identify::IdentifiedDesign* (*pick)(const identify::Identification&),
                                                 const std::string& none_picked);

// `inner`, opened on the picked design, owning what it copies through; the design under test in `holds`.
OpenedCopyEndpoint own_design_endpoint(EndpointDesign opened, std::unique_ptr<streams::CopyEndpoint> inner,
                                       EndpointHolds& holds);

// The first design found with a memory-mapped XDMA bridge and card memory (xdma.cpp), and with a
// QDMA and card memory (qdma.cpp); null when there is none.
const identify::IdentifiedDesign* xdma_memory_design(const identify::Identification& found);
const identify::IdentifiedDesign* qdma_memory_design(const identify::Identification& found);

// The endpoint on `design`, named after it (and its simulated link, where `selection` sets one),
// with the engine pairs and modes of `cli` and `modes` (xdma.cpp).
xdma::CopyEndpointConfig xdma_endpoint_config(const identify::IdentifiedDesign& design, const XdmaEndpointCli& cli,
                                              const tool_support::DesignSelection& selection,
                                              const xdma::ModeRequest& modes);
// The endpoint on the design's function: its own range of physical queues (qdma.cpp).
qdma::CopyEndpointConfig qdma_endpoint_config(const identify::IdentifiedDesign& design, const QdmaEndpointCli& cli);

}  // namespace adapters
