// The stream tools' GPU path in a build without CUDA: says so.
#include <cerrno>

#include "stream_tools/cuda_devices.hpp"

namespace stream_tools {

bool cuda_built() { return false; }

vfio::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> open_cuda_stream_devices(const CudaCli& cli,
                                                                                   const StreamRunOptions&,
                                                                                   std::FILE*) {
    PDT_TRY(cuda_run_options(cli));  // usage errors first, as in a CUDA build
    return vfio::make_error("open CUDA devices", "--cuda_device", ENODEV,
                            "this build has no CUDA adapter: CMake did not find CUDA (nvcc); install the CUDA "
                            "toolkit and rebuild");
}

}  // namespace stream_tools
