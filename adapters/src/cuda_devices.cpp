// The GPUs of --cuda_device as stream devices (cuda_stream adapter), each after a bare
// cudaMemcpyAsync loop of the same buffer sizes, whose rates are the run's reference; and one GPU
// as --endpoint cuda.
#include "cuda_devices.hpp"

#include <cinttypes>

#include "base/numbers.hpp"
#include "cuda_stream/cuda_copy_endpoint.hpp"
#include "cuda_stream/stream_device.hpp"

namespace adapters {
namespace {

// The bare cudaMemcpyAsync loop of the same sizes, before the verified run.
pdt::Result<void> print_reference(const cuda_stream::GpuInfo& info, double seconds, unsigned channels,
                                  cuda_stream::HostMemory memory, const StreamDeviceUse& use, std::FILE* out) {
    if (seconds <= 0)
        return {};
    cuda_stream::BareConfig config{info.ordinal, channels, use.buffers_per_channel,
                                   (use.bytes_per_channel / use.buffers_per_channel) & ~uint64_t{3}, memory, seconds};
    const cuda_stream::BareRates r = PDT_TRY(cuda_stream::bare_copy_rates(config));
    if (use.json)
        std::fprintf(out,
                     "{\"type\":\"cuda_reference\",\"gpu\":\"%s\",\"streams\":%u,\"buffers\":%zu,\"buffer_bytes\":%" PRIu64
                     ",\"host_memory\":\"%s\",\"h2d_gbps\":%.3f,\"d2h_gbps\":%.3f,\"both_h2d_gbps\":%.3f,"
                     "\"both_d2h_gbps\":%.3f}\n",
                     info.pci_bus_id.c_str(), channels, config.buffer_count, config.buffer_size,
                     cuda_stream::to_string(memory), r.h2d_gbps, r.d2h_gbps, r.both_h2d_gbps, r.both_d2h_gbps);
    else
        std::fprintf(out,
                     "Bare cudaMemcpyAsync reference on %s %s (%u stream(s) per direction, %zu x 0x%" PRIx64
                     " %s bytes each, nothing verified): H2D %.2f GB/s; D2H %.2f GB/s; both at once H2D %.2f + "
                     "D2H %.2f GB/s\n",
                     info.name.c_str(), info.pci_bus_id.c_str(), channels, config.buffer_count, config.buffer_size,
                     cuda_stream::to_string(memory), r.h2d_gbps, r.d2h_gbps, r.both_h2d_gbps, r.both_d2h_gbps);
    std::fflush(out);
    return {};
}

}  // namespace

bool cuda_built() { return true; }

pdt::Result<StreamDevices> open_cuda_stream_devices(const CudaStreamCli& cli, const StreamDeviceUse& use) {
    const CudaRunOptions o = PDT_TRY(cuda_run_options(cli));
    cuda_stream::StreamDeviceConfig config;
    config.channels = o.channels;
    config.memory = o.pinned ? cuda_stream::HostMemory::Pinned : cuda_stream::HostMemory::Pageable;
    if (o.corrupt)
        config.corruption = cuda_stream::Corruption{o.corrupt->first ? streams::Direction::H2C : streams::Direction::C2H,
                                                    o.corrupt->second};
    config.lie = o.lie;
    config.loopback = cli.loopback;
    StreamDevices devices;
    for (int ordinal : cli.devices) {
        const cuda_stream::GpuInfo info = PDT_TRY(cuda_stream::gpu_info(ordinal));
        PDT_CHECK(print_reference(info, o.reference_seconds, o.channels, config.memory, use, stdout));
        devices.push_back(PDT_TRY(cuda_stream::open_stream_device(ordinal, config)));
    }
    return devices;
}

OpenedCopyEndpoint open_cuda_copy_endpoint(const CudaEndpointCli& cli, const streams::Lie& lie) {
    cuda_stream::CopyEndpointConfig config;
    config.lie = lie;
    if (cli.gpus.size() > 1)
        return pdt::usage_error("--cuda_device", "cuda endpoint", "pcie_link_measure measures one GPU");
    config.gpu = cli.gpus.empty() ? 0 : cli.gpus.front();
    config.queues = cli.queues;
    config.card_memory_bytes = PDT_TRY(pdt::parse_size(cli.memory));
    return cuda_stream::open_copy_endpoint(config);
}

}  // namespace adapters
