// The cuda row: NVIDIA GPUs (cuda_stream), as the stream tools' stream devices (--cuda_device and
// the GPU options) and as --endpoint cuda. Every CUDA option is defined here; the GPUs open in
// cuda_devices.cpp, or cuda_devices_no_cuda.cpp says this build has none.
#include "adapter_glue.hpp"

#include "base/numbers.hpp"
#include "cuda_devices.hpp"

namespace po = boost::program_options;

namespace adapters {

void add_cuda_stream_options(po::options_description& description, CudaStreamCli& cli) {
    cli::add_cuda_device_option(description, cli.devices);
    description.add_options()
        ("cuda_channels", po::value(&cli.channels), "GPU: channels (CUDA streams) per direction, 1..16 (default 1)")
        ("cuda_host_memory", po::value(&cli.host_memory),
         "GPU: pinned (default: the copy engines DMA the buffers directly) or pageable (staged by the driver)")
        ("cuda_reference_secs", po::value(&cli.reference_seconds),
         "GPU: seconds per mode of the bare cudaMemcpyAsync reference run first (default 2; 0: none)")
        ("cuda_corrupt", po::value(&cli.corrupt),
         "GPU test fault: h2c|c2h,<stream byte offset>: corrupt that byte on the GPU (the run must FAIL)");
    add_cuda_lie_option(description, cli.lie);
}

void add_cuda_lie_option(po::options_description& description, std::string& text) {
    cli::add_lie_option(description, "cuda_lie", "GPU", text);
}

void add_cuda_endpoint_options(po::options_description& options, EndpointSettings& settings) {
    CudaEndpointCli& cli = settings.cuda;
    cli::add_cuda_device_option(options, cli.gpus);
    options.add_options()(
        "cuda_queues", po::value(&cli.queues)->default_value(cli.queues), "cuda: CUDA streams")(
        "cuda_memory", po::value(&cli.memory)->default_value(cli.memory), "cuda: device memory the copies address");
    add_cuda_lie_option(options, cli.lie);
}

namespace {

// --cuda_corrupt h2c|c2h,<stream byte offset>: (h2c?, offset).
pdt::Result<std::pair<bool, uint64_t>> parse_cuda_corrupt(const std::string& text) {
    const auto comma = text.find(',');
    const std::string direction = text.substr(0, comma);
    if (comma == std::string::npos || (direction != "h2c" && direction != "c2h"))
        return pdt::usage_error("parse option --cuda_corrupt", text, "expected h2c|c2h,<stream byte offset>");
    return std::make_pair(direction == "h2c",
                          PDT_TRY(pdt::parse_number("cuda_corrupt", text.substr(comma + 1), 0, UINT64_MAX)));
}

}  // namespace

pdt::Result<CudaRunOptions> cuda_run_options(const CudaStreamCli& cli) {
    CudaRunOptions o;
    o.channels = static_cast<unsigned>(PDT_TRY(pdt::parse_number("cuda_channels", cli.channels, 1, 16)));
    if (cli.host_memory != "pinned" && cli.host_memory != "pageable")
        return pdt::usage_error("parse option --cuda_host_memory", cli.host_memory, "expected pinned or pageable");
    o.pinned = cli.host_memory == "pinned";
    o.reference_seconds = cli.reference_seconds == "0"
                              ? 0.0
                              : PDT_TRY(pdt::parse_seconds("cuda_reference_secs", cli.reference_seconds));
    if (!cli.corrupt.empty())
        o.corrupt = PDT_TRY(parse_cuda_corrupt(cli.corrupt));
    o.lie = PDT_TRY(streams::parse_lie("option --cuda_lie", cli.lie));
    return o;
}

pdt::Result<bool> gpus_named(const StreamDeviceRequest& request) { return !request.cuda.devices.empty(); }

OpenedStreamDevices open_gpus_as_stream_devices(const StreamDeviceRequest& request, const StreamDeviceUse& use,
                                                std::ostream& errors) {
    return opened_or_failed(open_cuda_stream_devices(request.cuda, use), errors);
}

OpenedCopyEndpoint open_cuda_endpoint(const EndpointSettings& settings, EndpointHolds&) {
    // A usage error first, also in a build without CUDA.
    const streams::Lie lie = PDT_TRY(streams::parse_lie("option --cuda_lie", settings.cuda.lie));
    return open_cuda_copy_endpoint(settings.cuda, lie);
}

}  // namespace adapters
