// The endpoints of pcie_link_measure on devices: --endpoint xdma (the card memory of an XDMA
// design, real or --sim_design, through the memory-mapped engines: xdma::open_copy_endpoint) and
// --endpoint cuda (a GPU: cuda_stream::open_copy_endpoint, built when CUDA is found).
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/device_options.hpp"
#include "streams/copy_endpoint.hpp"

namespace measure_tool {

struct XdmaCli {
    std::vector<std::string> sim_designs;   // --sim_design
    std::vector<std::string> devices;       // --device
    std::vector<std::string> design_files;  // --design_file
    std::string lock_timeout;
    cli::XdmaModeText modes;  // --engine_mode, --completion
    unsigned queues = 4;  // --xdma_queues: engine pairs used at most
    double sim_rate_gbps = 0;     // --sim_rate_gbps: the simulated design's link rate per direction (0: unthrottled)
    double sim_latency_us = 0;    // --sim_latency_us: its latency per descriptor, whole microseconds
};
void add_xdma_options(boost::program_options::options_description& options, XdmaCli& cli);
// The first identified design with a memory-mapped DMA bridge and card memory (--device picks
// one). EINVAL for a usage error (an unknown design, a bad --device); ENODEV when none was found
// (the reasons are on stderr, as every tool prints them).
vfio::Result<std::unique_ptr<streams::CopyEndpoint>> open_xdma(const XdmaCli& cli);

struct CudaCli {
    std::vector<int> gpus;             // --cuda_device: one GPU (none given: 0)
    unsigned queues = 4;               // --cuda_queues
    std::string memory = "1GiB";       // --cuda_memory: the device allocation copies address
    std::string lie;                   // --cuda_lie: a test fault (streams::parse_lie)
};
void add_cuda_options(boost::program_options::options_description& options, CudaCli& cli);
// ENOTSUP when this build has no CUDA.
vfio::Result<std::unique_ptr<streams::CopyEndpoint>> open_cuda(const CudaCli& cli);

}  // namespace measure_tool
