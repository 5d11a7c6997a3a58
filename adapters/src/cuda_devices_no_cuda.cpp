// --cuda_device in a build without CUDA: says so.
#include <cerrno>

#include "cuda_devices.hpp"

namespace adapters {

bool cuda_built() { return false; }

pdt::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> open_cuda_stream_devices(const CudaStreamCli& cli,
                                                                                           const StreamDeviceUse&) {
    PDT_TRY(cuda_run_options(cli));  // usage errors first, as in a CUDA build
    return pdt::make_error("open CUDA devices", "--cuda_device", ENODEV,
                            "this build has no CUDA adapter: CMake did not find CUDA (nvcc); install the CUDA "
                            "toolkit and rebuild");
}

}  // namespace adapters
