// --cuda_device and --endpoint cuda in a build without CUDA: say so.
#include <cerrno>

#include "cuda_devices.hpp"

namespace adapters {

bool cuda_built() { return false; }

pdt::Result<StreamDevices> open_cuda_stream_devices(const CudaStreamCli& cli, const StreamDeviceUse&) {
    PDT_TRY(cuda_run_options(cli));  // usage errors first, as in a CUDA build
    return pdt::make_error("open CUDA devices", "--cuda_device", ENODEV,
                           "this build has no CUDA adapter: CMake did not find CUDA (nvcc); install the CUDA "
                           "toolkit and rebuild");
}

OpenedCopyEndpoint open_cuda_copy_endpoint(const CudaEndpointCli&, const streams::Lie&) {
    return pdt::make_error("open cuda endpoint", "--endpoint cuda", ENOTSUP, "this build has no CUDA (nvcc not found)");
}

}  // namespace adapters
