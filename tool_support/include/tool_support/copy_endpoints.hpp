// The endpoints pcie_link_measure can open (--endpoint NAME), each with its own options: the
// one place that knows the adapters. Add an adapter here: its options and one branch in open().
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>

#include "device_endpoints.hpp"
#include "edu_endpoint.hpp"
#include "etsoc1/card.hpp"
#include "streams/copy_endpoint.hpp"
#include "sim/model_copy_endpoint.hpp"

namespace measure_tool {

class Endpoints {
public:
    Endpoints();
    const boost::program_options::options_description& options() const { return m_options; }
    // The adapter name recorded in the result ("model", "xdma", "edu", "cuda", "etsoc1"); EINVAL for an
    // unknown endpoint (a usage error).
    vfio::Result<std::unique_ptr<streams::CopyEndpoint>> open(const std::string& endpoint, std::string& adapter);

private:
    boost::program_options::options_description m_options{"Endpoint options"};
    vfio::Result<std::unique_ptr<streams::CopyEndpoint>> open_etsoc1();

    sim::ModelCopyParameters m_model;
    std::string m_model_memory;
    std::string m_model_lie;  // --model_lie (test only)
    XdmaCli m_xdma;
    EduCli m_edu;  // with m_xdma's --device and --lock_timeout
    CudaCli m_cuda;
    // --endpoint etsoc1: one card of the runtime's (index) or the fake (none given: the fake),
    // which outlives the endpoint.
    cli::Etsoc1Selection m_etsoc1;
    std::string m_etsoc1_memory;
    unsigned m_etsoc1_queues = 4;
    unsigned m_etsoc1_window = 4;
    std::shared_ptr<etsoc1::Card> m_etsoc1_card;
};

}  // namespace measure_tool
