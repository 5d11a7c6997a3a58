// The copy endpoints on devices, each with its options (adapters/copy_endpoints.hpp holds
// their settings): --endpoint xdma (xdma::open_copy_endpoint on the first identified design
// with a memory-mapped DMA bridge and card memory), cuda (cuda_stream::open_copy_endpoint) and
// edu (edu::open_copy_endpoint on the kernel's device or the register model).
#pragma once

#include "adapters/copy_endpoints.hpp"

namespace adapters {

void add_xdma_options(boost::program_options::options_description& options, XdmaEndpointCli& cli);
// EINVAL for a usage error (an unknown design, a bad --device); ENODEV when none was found
// (the reasons are on stderr, as every tool prints them).
// `designs` receives the design the endpoint copies through (board health).
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_xdma(const XdmaEndpointCli& cli,
                                                               std::vector<tool_support::DesignUnderTest>& designs);

void add_qdma_options(boost::program_options::options_description& options, QdmaEndpointCli& cli);
// The design from `shared`'s --sim_design / --device / --design_file / --lock_timeout: the first
// identified design with a QDMA and card memory. EINVAL for a usage error; ENODEV when none.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_qdma(const QdmaEndpointCli& cli, const XdmaEndpointCli& shared,
                                                               std::vector<tool_support::DesignUnderTest>& designs);

void add_cuda_options(boost::program_options::options_description& options, CudaEndpointCli& cli);
// ENOTSUP when this build has no CUDA.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_cuda(const CudaEndpointCli& cli);

void add_edu_options(boost::program_options::options_description& options, EduEndpointCli& cli);
// `devices` and `lock_timeout` are the shared --device and --lock_timeout. EINVAL for a usage
// error (a bad --device, more than one); ENODEV when no edu is bound to vfio-pci there.
pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_edu(const EduEndpointCli& cli,
                                                             const std::vector<std::string>& devices,
                                                             const std::string& lock_timeout, bool no_iommu);

}  // namespace adapters
