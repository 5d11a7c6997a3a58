#include "design_endpoint.hpp"

#include <iostream>
#include <utility>

#include "owning_endpoint.hpp"

namespace adapters {

tool_support::DesignSelection endpoint_selection(const XdmaEndpointCli& cli, std::vector<vfio::PciAddress> locations,
                                                 std::chrono::milliseconds lock_timeout) {
    tool_support::DesignSelection selection{cli.sim_designs, std::move(locations), lock_timeout, false};
    selection.no_iommu = cli.no_iommu;
    return selection;
}

pdt::Result<EndpointDesign> open_endpoint_design(std::unique_ptr<designs::Registry> registry,
                                                 const tool_support::DesignSelection& selection,
                                                 const std::string& endpoint,
                                                 const identify::IdentifiedDesign* (*pick)(const identify::Identification&),
                                                 const std::string& none_picked) {
    EndpointDesign result{std::move(registry), {}, nullptr};
    result.opened = tool_support::open_designs(*result.registry, selection, nullptr, std::cerr);
    if (result.opened.status == tool_support::kUsageError)
        return pdt::usage_error("open " + endpoint + " endpoint", "--sim_design", "see the error above");
    result.design = pick(result.opened.found);
    if (result.design == nullptr)
        return pdt::make_error("open " + endpoint + " endpoint", "the selected devices", ENODEV,
                               result.opened.found.designs.empty() ? "no known FPGA design found (see above)"
                                                                   : none_picked);
    return result;
}

OpenedCopyEndpoint own_design_endpoint(EndpointDesign opened, std::unique_ptr<streams::CopyEndpoint> inner,
                                       EndpointHolds& holds) {
    const identify::IdentifiedDesign& design = *opened.design;
    holds.designs = {{design.device.get(), design.design, design.identity}};
    using Owned = std::pair<std::unique_ptr<designs::Registry>, tool_support::OpenedDesigns>;
    auto owner = std::make_unique<OwningEndpoint<Owned>>(Owned{std::move(opened.registry), std::move(opened.opened)});
    owner->inner = std::move(inner);
    return std::unique_ptr<streams::CopyEndpoint>(std::move(owner));
}

}  // namespace adapters
