#include "stream_tools/cuda_devices.hpp"

namespace stream_tools {

void add_cuda_options(boost::program_options::options_description& description, CudaCli& cli) {
    namespace po = boost::program_options;
    description.add_options()
        ("cuda_device", po::value(&cli.devices)->composing(),
         "run on this NVIDIA GPU (CUDA ordinal, repeatable) instead of FPGA designs")
        ("cuda_channels", po::value(&cli.channels), "GPU: channels (CUDA streams) per direction, 1..16 (default 1)")
        ("cuda_host_memory", po::value(&cli.host_memory),
         "GPU: pinned (default: the copy engines DMA the buffers directly) or pageable (staged by the driver)")
        ("cuda_reference_secs", po::value(&cli.reference_seconds),
         "GPU: seconds per mode of the bare cudaMemcpyAsync reference run first (default 2; 0: none)")
        ("cuda_corrupt", po::value(&cli.corrupt),
         "GPU test fault: h2c|c2h,<stream byte offset>: corrupt that byte on the GPU (the run must FAIL)");
}

}  // namespace stream_tools
