// --endpoint model: the model of a link and its card (sim::ModelCopyEndpoint), shaped by the
// --model_* options.
#include "adapter_glue.hpp"

#include "base/numbers.hpp"
#include "cli/device_options.hpp"

namespace po = boost::program_options;

namespace adapters {

void add_model_options(po::options_description& options, EndpointSettings& settings) {
    sim::ModelCopyParameters& m = settings.model.parameters;
    options.add_options()(
        "model_h2c_gbps", po::value(&m.h2c_gbps)->default_value(m.h2c_gbps), "model: host-to-card rate, GB/s")(
        "model_c2h_gbps", po::value(&m.c2h_gbps)->default_value(m.c2h_gbps), "model: card-to-host rate, GB/s")(
        "model_latency_us", po::value(&m.latency_us)->default_value(m.latency_us), "model: fixed latency per copy, us")(
        "model_queues", po::value(&m.queues)->default_value(m.queues), "model: independent queues")(
        "model_in_flight", po::value(&m.in_flight)->default_value(m.in_flight), "model: copies in flight per queue")(
        "model_shared_link", po::bool_switch(&m.shared_link), "model: both directions share one link budget")(
        "model_launch_us", po::value(&m.launch_us)->default_value(m.launch_us),
        "model: one empty-kernel launch waited for, us (0: the card runs no code)")(
        "model_launch_queued_us", po::value(&m.launch_queued_us)->default_value(m.launch_queued_us),
        "model: each further launch queued behind it, us (0: as --model_launch_us)")(
        "model_iotlb_entries", po::value(&m.iotlb_entries)->default_value(m.iotlb_entries),
        "model: IOTLB entries of 4 KiB (0: no IOTLB)")(
        "model_iotlb_miss_us", po::value(&m.iotlb_miss_us)->default_value(m.iotlb_miss_us),
        "model: link time per IOTLB miss, us")(
        "model_memory", po::value(&settings.model.memory), "model: card memory (default 256MiB)")(
        "model_corrupt_every", po::value(&m.corrupt_every)->default_value(m.corrupt_every),
        "model fault: flip one byte of every Nth copy (0: never)")(
        "model_pageable_copies", po::bool_switch(&m.pageable_copies),
        "model: copies may use pageable host buffers (staged by the driver, as CUDA's; default: refused)")(
        "model_pci_address", po::value(&m.pci_address), "model: a function whose LnkSta to read (with --pci_access sim)");
    cli::add_lie_option(options, "model_lie", "model and edu (--edu_sim): the simulated endpoint's", settings.model.lie);
}

OpenedCopyEndpoint open_model_endpoint(const EndpointSettings& settings, EndpointHolds&) {
    sim::ModelCopyParameters parameters = settings.model.parameters;
    if (!settings.model.memory.empty())
        parameters.card_memory_bytes = PDT_TRY(pdt::parse_size(settings.model.memory));
    if (!settings.model.lie.empty())
        parameters.lie = PDT_TRY(streams::parse_lie("option --model_lie", settings.model.lie));
    auto model = sim::ModelCopyEndpoint::create(parameters);
    if (!model)
        return std::move(model).error();
    return std::unique_ptr<streams::CopyEndpoint>(std::move(*model));
}

}  // namespace adapters
