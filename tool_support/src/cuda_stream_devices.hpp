// The GPUs of --cuda_device as stream devices: stream_devices_cuda.cpp in a build with the CUDA
// adapter, stream_devices_no_cuda.cpp (which says it is missing) without.
#pragma once

#include <memory>
#include <vector>

#include "tool_support/stream_devices.hpp"

namespace tool_support {

pdt::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> open_cuda_stream_devices(const CudaStreamCli& cli,
                                                                                           const StreamDeviceUse& use);

}  // namespace tool_support
