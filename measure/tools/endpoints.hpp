// The endpoints pcie_link_measure can open (--endpoint NAME), each with its own options: the
// one place that knows the adapters. Add an adapter here: its options and one branch in open().
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>

#include "measure/copy_endpoint.hpp"
#include "sim/model_copy_endpoint.hpp"

namespace measure_tool {

class Endpoints {
public:
    Endpoints();
    const boost::program_options::options_description& options() const { return m_options; }
    // The adapter name recorded in the result ("model", "xdma", "cuda", "etsoc1"); EINVAL for an
    // unknown endpoint (a usage error).
    vfio::Result<std::unique_ptr<measure::CopyEndpoint>> open(const std::string& endpoint, std::string& adapter);

private:
    boost::program_options::options_description m_options{"Endpoint options"};
    sim::ModelCopyParameters m_model;
    std::string m_model_memory;
};

}  // namespace measure_tool
