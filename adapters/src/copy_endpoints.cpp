#include "adapter_glue.hpp"

#include "etsoc1/endpoint.hpp"
#include "etsoc1/fake_card.hpp"
#include "etsoc1/runtime_card.hpp"

#include "base/numbers.hpp"
#include "adapters/stream_devices.hpp"

namespace po = boost::program_options;

namespace adapters {

CopyEndpoints::CopyEndpoints() {
    sim::ModelCopyParameters& m = m_model;
    m_options.add_options()(
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
        "model_memory", po::value(&m_model_memory), "model: card memory (default 256MiB)")(
        "model_corrupt_every", po::value(&m.corrupt_every)->default_value(m.corrupt_every),
        "model fault: flip one byte of every Nth copy (0: never)")(
        "model_pageable_copies", po::bool_switch(&m.pageable_copies),
        "model: copies may use pageable host buffers (staged by the driver, as CUDA's; default: refused)")(
        "model_pci_address", po::value(&m.pci_address), "model: a function whose LnkSta to read (with --pci_access sim)");
    cli::add_lie_option(m_options, "model_lie", "model and edu (--edu_sim): the simulated endpoint's", m_model_lie);
    add_xdma_options(m_options, m_xdma);
    add_qdma_options(m_options, m_qdma);
    add_edu_options(m_options, m_edu);
    add_cuda_options(m_options, m_cuda);
    cli::add_etsoc1_options(m_options, m_etsoc1);
    m_options.add_options()(
        "etsoc1_queues", po::value(&m_etsoc1_queues)->default_value(m_etsoc1_queues), "etsoc1: queues (card streams)")(
        "etsoc1_memory", po::value(&m_etsoc1_memory), "etsoc1: card memory the copies address (default 256MiB)");
    add_etsoc1_window_option(m_options, m_etsoc1_window);
}

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> CopyEndpoints::open_etsoc1() {
    etsoc1::EndpointConfig config;
    config.queues = m_etsoc1_queues;
    config.abort_timeout = m_transfer_timeout;
    config.window = PDT_TRY(etsoc1_window(m_etsoc1_window));
    config.card_memory_bytes = m_etsoc1_memory.empty() ? 256u << 20 : PDT_TRY(pdt::parse_size(m_etsoc1_memory));
    if (config.queues == 0)
        return pdt::make_error("--etsoc1_queues", "etsoc1", EINVAL, "at least one queue");
    if (m_etsoc1.devices.size() > 1)
        return pdt::make_error("--etsoc1_device", "etsoc1 endpoint", EINVAL, "pcie_link_measure measures one card");
    PDT_CHECK(cli::check_etsoc1_options_used(m_etsoc1, etsoc1_shaping()));
    if (m_etsoc1.devices.empty())
        return pdt::make_error("--endpoint etsoc1", "", EINVAL,
                                "name the card: --etsoc1_device N (a card of the runtime) or --etsoc1_device fake "
                                "(the fake card)");
    const cli::Etsoc1Cards cards = PDT_TRY(cli::parse_etsoc1_devices(m_etsoc1.devices));
    if (cards.indices.empty()) {  // --etsoc1_device fake
        m_etsoc1_card = std::make_shared<etsoc1::FakeCard>(PDT_TRY(etsoc1::parse_fake_parameters(m_etsoc1.fake)));
    } else {
        config.device = cards.indices.front();
        m_etsoc1_card = PDT_TRY(etsoc1::open_runtime_card(etsoc1_runtime_options(m_etsoc1, stderr)));
    }
    return etsoc1::open_endpoint(*m_etsoc1_card, config);
}

std::vector<cli::GivenOption> CopyEndpoints::etsoc1_shaping() const {
    return {{"etsoc1_window", m_etsoc1_window}, {"etsoc1_memory", m_etsoc1_memory}};
}

// Every ET-SoC-1 option is for --endpoint etsoc1: given with another endpoint, a usage error.
pdt::Result<void> CopyEndpoints::check_etsoc1_unused(const std::string& endpoint) const {
    std::vector<cli::GivenOption> given = etsoc1_shaping();
    given.push_back({"etsoc1_device", m_etsoc1.devices.empty() ? "" : m_etsoc1.devices.front()});
    given.push_back({"etsoc1_socket", m_etsoc1.socket});
    given.push_back({"etsoc1_log", m_etsoc1.log});
    given.push_back({"etsoc1_fake", m_etsoc1.fake});
    for (const cli::GivenOption& option : given)
        if (!option.text.empty())
            return pdt::make_error("option --" + option.name + " \"" + option.text + "\" is not used", "", EINVAL,
                                    "it is for --endpoint etsoc1, and the endpoint is " + endpoint);
    return {};
}

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> CopyEndpoints::open(const std::string& endpoint, std::string& adapter) {
    if (endpoint != "etsoc1")
        PDT_CHECK(check_etsoc1_unused(endpoint));
    if (endpoint == "model") {
        adapter = "model";
        if (!m_model_memory.empty())
            m_model.card_memory_bytes = PDT_TRY(pdt::parse_size(m_model_memory));
        if (!m_model_lie.empty())
            m_model.lie = PDT_TRY(streams::parse_lie("option --model_lie", m_model_lie));
        auto model = sim::ModelCopyEndpoint::create(m_model);
        if (!model)
            return std::move(model).error();
        return std::unique_ptr<streams::CopyEndpoint>(std::move(*model));
    }
    if (endpoint == "xdma") {
        adapter = "xdma";
        return open_xdma(m_xdma, m_designs);
    }
    if (endpoint == "qdma") {
        adapter = "qdma";
        return open_qdma(m_qdma, m_xdma, m_designs);
    }
    if (endpoint == "edu") {
        adapter = "edu";
        if (!m_model_lie.empty() && !m_edu.sim)
            return pdt::make_error("--model_lie", "edu endpoint", EINVAL, "a lie is for the simulated edu: add --edu_sim");
        if (!m_model_lie.empty())
            m_edu.sim_lie = PDT_TRY(streams::parse_lie("option --model_lie", m_model_lie));
        return open_edu(m_edu, m_xdma.devices, m_xdma.lock_timeout, m_xdma.no_iommu);
    }
    if (endpoint == "cuda") {
        adapter = "cuda";
        return open_cuda(m_cuda);
    }
    if (endpoint == "etsoc1") {
        adapter = "etsoc1";
        return open_etsoc1();
    }
    return pdt::make_error("--endpoint", endpoint, EINVAL, "known endpoints: model, xdma, edu, cuda, etsoc1, qdma");
}

}  // namespace adapters
