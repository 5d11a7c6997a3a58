// The glue of each row of the adapter table (adapters/adapter_table.hpp), one file per adapter:
// how it adds its options, opens its copy endpoint and (where it has them) its stream devices.
// Usage errors are pdt::usage_error; the rest name the device and why.
#pragma once

#include <ostream>
#include <string>

#include "adapters/adapter_table.hpp"

namespace adapters {

// model.cpp: sim::ModelCopyEndpoint with the --model_* parameters.
void add_model_options(boost::program_options::options_description& options, EndpointSettings& settings);
OpenedCopyEndpoint open_model_endpoint(const EndpointSettings& settings, EndpointHolds& holds);

// xdma.cpp: xdma::open_copy_endpoint on the first identified design with a memory-mapped DMA
// bridge and card memory (ENODEV when none; the reasons are on stderr, as every tool prints
// them); the designs of the bus as stream devices (XDMA designs, and QDMA designs with stream
// routes: adapters/qdma_stream_devices.hpp), named by --sim_design or --device_routing.
void add_xdma_options(boost::program_options::options_description& options, EndpointSettings& settings);
OpenedCopyEndpoint open_xdma_endpoint(const EndpointSettings& settings, EndpointHolds& holds);
pdt::Result<bool> designs_named(const StreamDeviceRequest& request);
OpenedStreamDevices open_designs_as_stream_devices(const StreamDeviceRequest& request, const StreamDeviceUse& use,
                                                   std::ostream& errors);

// qdma.cpp: qdma::open_copy_endpoint on the first identified design with a QDMA and card memory,
// chosen with xdma's design selection. ENODEV when none.
void add_qdma_options(boost::program_options::options_description& options, EndpointSettings& settings);
OpenedCopyEndpoint open_qdma_endpoint(const EndpointSettings& settings, EndpointHolds& holds);

// edu.cpp: edu::open_copy_endpoint on the kernel's device (xdma's --device and --lock_timeout)
// or the register model. ENODEV when no edu is bound to vfio-pci there.
void add_edu_options(boost::program_options::options_description& options, EndpointSettings& settings);
OpenedCopyEndpoint open_edu_endpoint(const EndpointSettings& settings, EndpointHolds& holds);

// cuda.cpp: cuda_stream::open_copy_endpoint on one GPU; the GPUs of --cuda_device as stream
// devices. ENOTSUP or ENODEV when this build has no CUDA.
void add_cuda_endpoint_options(boost::program_options::options_description& options, EndpointSettings& settings);
OpenedCopyEndpoint open_cuda_endpoint(const EndpointSettings& settings, EndpointHolds& holds);
pdt::Result<bool> gpus_named(const StreamDeviceRequest& request);
OpenedStreamDevices open_gpus_as_stream_devices(const StreamDeviceRequest& request, const StreamDeviceUse& use,
                                                std::ostream& errors);

// etsoc1.cpp: etsoc1::open_endpoint on one card (the runtime's or the fake); the cards of
// --etsoc1_device as stream devices. Its options are for it alone: given with another
// endpoint, or without --etsoc1_device, they are a usage error.
void add_etsoc1_endpoint_options(boost::program_options::options_description& options, EndpointSettings& settings);
pdt::Result<void> check_etsoc1_unused(const EndpointSettings& settings, const std::string& endpoint);
OpenedCopyEndpoint open_etsoc1_endpoint(const EndpointSettings& settings, EndpointHolds& holds);
pdt::Result<bool> etsoc1_cards_named(const StreamDeviceRequest& request);
OpenedStreamDevices open_etsoc1_cards_as_stream_devices(const StreamDeviceRequest& request,
                                                        const StreamDeviceUse& use, std::ostream& errors);

// stream_devices.cpp: the devices an adapter opened in place of the designs (GPUs, ET-SoC-1
// cards), or "Error: <message>" on `errors` with status 2 for a usage error (Error::usage), else 1.
OpenedStreamDevices opened_or_failed(pdt::Result<StreamDevices> devices, std::ostream& errors);

}  // namespace adapters
