// The GPUs of --cuda_device as stream devices: cuda_devices.cpp in a build with the CUDA
// adapter, cuda_devices_no_cuda.cpp (which says it is missing) without.
#pragma once

#include <memory>
#include <vector>

#include "adapters/stream_devices.hpp"

namespace adapters {

pdt::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> open_cuda_stream_devices(const CudaStreamCli& cli,
                                                                                           const StreamDeviceUse& use);

}  // namespace adapters
