// The GPUs of the cuda row (cuda.cpp), opened: cuda_devices.cpp in a build with the CUDA
// adapter, cuda_devices_no_cuda.cpp (which says it is missing) without.
#pragma once

#include "adapter_glue.hpp"

namespace adapters {

// The GPUs of --cuda_device as stream devices, each after its bare reference run.
pdt::Result<StreamDevices> open_cuda_stream_devices(const CudaStreamCli& cli, const StreamDeviceUse& use);
// One GPU as a copy endpoint; `lie` is --cuda_lie, parsed.
OpenedCopyEndpoint open_cuda_copy_endpoint(const CudaEndpointCli& cli, const streams::Lie& lie);

}  // namespace adapters
