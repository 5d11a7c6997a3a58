// The stream tools on NVIDIA GPUs (cuda_stream adapter): --cuda_device picks the GPUs, which then
// replace the FPGA designs. test_dma_bridge_parallel_streams loops every channel's data back
// through GPU memory; test_dma_bridge_independent_streams has the GPU check what H2C brought and
// generate what C2H sends. Before the run, a bare cudaMemcpyAsync loop of the same buffer sizes
// and channel count prints the reference rates. A build without CUDA says so (exit 1).
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "streams/lie.hpp"
#include "streams/stream_device.hpp"
#include "stream_tools/stream_tools.hpp"

namespace stream_tools {

struct CudaCli {
    std::vector<int> devices;            // --cuda_device (repeatable); empty: not a GPU run
    std::string channels = "1";          // --cuda_channels: channels (CUDA streams) per direction
    std::string host_memory = "pinned";  // --cuda_host_memory pinned|pageable
    std::string reference_seconds = "2"; // --cuda_reference_secs: per mode of the bare loop; 0: none
    std::string corrupt;                 // --cuda_corrupt h2c|c2h,<stream byte offset> (a test fault)
    std::string lie;                     // --cuda_lie (cli::add_lie_option): a test fault
    bool loopback = false;               // set by the main: loop C2H back from H2C through the GPU
};

void add_cuda_options(boost::program_options::options_description& description, CudaCli& cli);

// The GPU options, converted (usage errors: EINVAL, naming the option).
struct CudaRunOptions {
    unsigned channels = 1;
    bool pinned = true;
    double reference_seconds = 2;  // 0: no reference run
    std::optional<std::pair<bool, uint64_t>> corrupt;  // (h2c?, stream byte offset)
    streams::Lie lie;
};
vfio::Result<CudaRunOptions> cuda_run_options(const CudaCli& cli);

// True when this build has the CUDA adapter.
bool cuda_built();

// Opens the GPUs as stream devices and prints the bare reference to out (text) or stderr (JSON).
// Errors: 2-style usage errors have EINVAL; no GPU, no CUDA build: ENODEV.
vfio::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> open_cuda_stream_devices(const CudaCli& cli,
                                                                                   const StreamRunOptions& options,
                                                                                   std::FILE* out);

}  // namespace stream_tools
