// The qdma row: --endpoint qdma, the card memory of a QDMA design (real or --sim_design) through
// its memory-mapped queue pairs (qdma::open_copy_endpoint). Its stream queues open with the
// designs of the bus (xdma.cpp, adapters/qdma_stream_devices.hpp).
#include "design_endpoint.hpp"

#include <algorithm>

#include "qdma/qdma_copy_endpoint.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;

namespace adapters {

const identify::IdentifiedDesign* qdma_memory_design(const identify::Identification& found) {
    for (const identify::IdentifiedDesign& d : found.designs)
        if (d.design->qdma && d.design->qdma->memory_size > 0)
            return &d;
    return nullptr;
}

qdma::CopyEndpointConfig qdma_endpoint_config(const identify::IdentifiedDesign& design, const QdmaEndpointCli& cli) {
    qdma::CopyEndpointConfig config;
    config.name = design.identity.address.to_string() + " " + design.design->name;
    config.function.bar = design.design->qdma->bar;
    config.function.function = design.design->card ? design.design->card->physical_function : 0;
    config.card_memory_base = design.design->qdma->memory_base;
    config.card_memory_size = design.design->qdma->memory_size;
    config.queues = cli.queues;
    config.function.queues = static_cast<uint16_t>(std::max(16u, cli.queues));
    // Each PF its own range of physical queues (FMAP), so that PFs of one card do not share queues.
    config.function.qid_base = static_cast<uint16_t>(config.function.function * config.function.queues);
    config.ring_entries = cli.ring_entries;
    config.interrupts = cli.interrupts;
    config.interrupt_ring = config.function.function;  // one ring per PF
    return config;
}

void add_qdma_options(po::options_description& options, EndpointSettings& settings) {
    QdmaEndpointCli& cli = settings.qdma;
    options.add_options()(
        "qdma_queues", po::value(&cli.queues)->default_value(cli.queues), "qdma: H2C/C2H MM queue pairs")(
        "qdma_ring_entries", po::value(&cli.ring_entries)->default_value(cli.ring_entries),
        "qdma: descriptor ring entries, one of the IP's QDMA_GLBL_RNG_SZ values")(
        "qdma_interrupts", po::bool_switch(&cli.interrupts),
        "qdma: completion by MSI-X through an interrupt aggregation ring (default: polling)");
}

OpenedCopyEndpoint open_qdma_endpoint(const EndpointSettings& settings, EndpointHolds& holds) {
    const QdmaEndpointCli& cli = settings.qdma;
    const XdmaEndpointCli& shared = settings.xdma;  // the design selection
    std::string usage;
    auto locations = tool_support::parse_locations(shared.devices, "--device", usage);
    if (!locations)
        return pdt::usage_error("--device", "qdma endpoint", usage);
    const auto lock_timeout = PDT_TRY(cli::parse_lock_timeout(shared.lock_timeout));
    if (cli.queues == 0)
        return pdt::usage_error("--qdma_queues 0", "qdma endpoint", "expected 1 or more");
    auto registry = std::make_unique<designs::Registry>(PDT_TRY(designs::Registry::load(shared.design_files)));
    const tool_support::DesignSelection selection = endpoint_selection(shared, *locations, lock_timeout);
    EndpointDesign opened = PDT_TRY(open_endpoint_design(std::move(registry), selection, "qdma", qdma_memory_design,
                                                         "no design with a QDMA and card memory"));
    const qdma::CopyEndpointConfig config = qdma_endpoint_config(*opened.design, cli);
    auto inner = PDT_TRY(qdma::open_copy_endpoint(*opened.design->device, config));
    return own_design_endpoint(std::move(opened), std::move(inner), holds);
}

}  // namespace adapters
