// The glue of each row of the adapter table (adapters/adapter_table.hpp), one file per adapter:
// how it adds its options, opens its copy endpoint and (where it has them) its stream devices.
// Each is declared by its kind in adapters/adapter_table.hpp (AddOptions, OpenCopyEndpoint, ...),
// so a glue function and the row's field it fills cannot differ. Usage errors are
// pdt::usage_error; the rest name the device and why.
#pragma once

#include <ostream>
#include <string>

#include "adapters/adapter_table.hpp"

namespace adapters {

// model.cpp: sim::ModelCopyEndpoint with the --model_* parameters.
AddOptions add_model_options;
OpenCopyEndpoint open_model_endpoint;

// xdma.cpp: xdma::open_copy_endpoint on the first identified design with a memory-mapped DMA
// bridge and card memory (ENODEV when none; the reasons are on stderr, as every tool prints
// them); the designs of the bus as stream devices (XDMA designs, and QDMA designs with stream
// routes: adapters/qdma_stream_devices.hpp), named by --sim_design or --device_routing.
AddOptions add_xdma_options;
OpenCopyEndpoint open_xdma_endpoint;
StreamDevicesNamed designs_named;
OpenStreamDevices open_designs_as_stream_devices;

// qdma.cpp: qdma::open_copy_endpoint on the first identified design with a QDMA and card memory,
// chosen with xdma's design selection. ENODEV when none.
AddOptions add_qdma_options;
OpenCopyEndpoint open_qdma_endpoint;

// edu.cpp: edu::open_copy_endpoint on the kernel's device (xdma's --device and --lock_timeout)
// or the register model. ENODEV when no edu is bound to vfio-pci there.
AddOptions add_edu_options;
OpenCopyEndpoint open_edu_endpoint;

// cuda.cpp: cuda_stream::open_copy_endpoint on one GPU; the GPUs of --cuda_device as stream
// devices. ENOTSUP or ENODEV when this build has no CUDA.
AddOptions add_cuda_endpoint_options;
OpenCopyEndpoint open_cuda_endpoint;
StreamDevicesNamed gpus_named;
OpenStreamDevices open_gpus_as_stream_devices;

// etsoc1.cpp: etsoc1::open_endpoint on one card (the runtime's or the fake); the cards of
// --etsoc1_device as stream devices. Its options are for it alone: given with another
// endpoint, or without --etsoc1_device, they are a usage error.
AddOptions add_etsoc1_endpoint_options;
CheckUnused check_etsoc1_unused;
OpenCopyEndpoint open_etsoc1_endpoint;
StreamDevicesNamed etsoc1_cards_named;
OpenStreamDevices open_etsoc1_cards_as_stream_devices;

// stream_devices.cpp: the devices an adapter opened in place of the designs (GPUs, ET-SoC-1
// cards), or "Error: <message>" on `errors` with status 2 for a usage error (Error::usage), else 1.
OpenedStreamDevices opened_or_failed(pdt::Result<StreamDevices> devices, std::ostream& errors);

}  // namespace adapters
