#include "stream_tools/cuda_devices.hpp"

#include <cerrno>
#include <cstdint>

#include "stream_tools/options.hpp"
#include "cli/device_options.hpp"

namespace stream_tools {

void add_cuda_options(boost::program_options::options_description& description, CudaCli& cli) {
    namespace po = boost::program_options;
    cli::add_cuda_device_option(description, cli.devices);
    description.add_options()
        ("cuda_channels", po::value(&cli.channels), "GPU: channels (CUDA streams) per direction, 1..16 (default 1)")
        ("cuda_host_memory", po::value(&cli.host_memory),
         "GPU: pinned (default: the copy engines DMA the buffers directly) or pageable (staged by the driver)")
        ("cuda_reference_secs", po::value(&cli.reference_seconds),
         "GPU: seconds per mode of the bare cudaMemcpyAsync reference run first (default 2; 0: none)")
        ("cuda_corrupt", po::value(&cli.corrupt),
         "GPU test fault: h2c|c2h,<stream byte offset>: corrupt that byte on the GPU (the run must FAIL)");
    cli::add_lie_option(description, "cuda_lie", "GPU", cli.lie);
}

vfio::Result<CudaRunOptions> cuda_run_options(const CudaCli& cli) {
    CudaRunOptions o;
    o.channels = static_cast<unsigned>(PDT_TRY(parse_number("cuda_channels", cli.channels, 1, 16)));
    if (cli.host_memory != "pinned" && cli.host_memory != "pageable")
        return vfio::make_error("parse option --cuda_host_memory", cli.host_memory, EINVAL,
                                "expected pinned or pageable");
    o.pinned = cli.host_memory == "pinned";
    o.reference_seconds = cli.reference_seconds == "0" ? 0.0 : PDT_TRY(parse_seconds("cuda_reference_secs",
                                                                                        cli.reference_seconds));
    if (!cli.corrupt.empty()) {
        const auto comma = cli.corrupt.find(',');
        const std::string direction = cli.corrupt.substr(0, comma);
        if (comma == std::string::npos || (direction != "h2c" && direction != "c2h"))
            return vfio::make_error("parse option --cuda_corrupt", cli.corrupt, EINVAL,
                                    "expected h2c|c2h,<stream byte offset>");
        o.corrupt = std::make_pair(direction == "h2c",
                                   PDT_TRY(parse_number("cuda_corrupt", cli.corrupt.substr(comma + 1), 0, UINT64_MAX)));
    }
    o.lie = PDT_TRY(streams::parse_lie("option --cuda_lie", cli.lie));
    return o;
}

}  // namespace stream_tools
