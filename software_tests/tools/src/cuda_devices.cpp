// The stream tools' GPU path: NVIDIA GPUs as StreamDevices over the cuda_stream adapter.
#include <unistd.h>

#include <cinttypes>
#include <climits>
#include <cstdlib>
#include <map>

#include "cuda_stream/cuda_stream.hpp"
#include "stream_tools/cuda_devices.hpp"

namespace stream_tools {
namespace {

using streams::Direction;

// The IOMMU group sysfs shows for the GPU (read only), -1 when it has none.
int iommu_group_of(const std::string& bdf) {
    char target[PATH_MAX] = {};
    const std::string link = "/sys/bus/pci/devices/" + bdf + "/iommu_group";
    const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
    if (n <= 0)
        return -1;
    const std::string path(target, static_cast<size_t>(n));
    return std::atoi(path.substr(path.rfind('/') + 1).c_str());
}

class CudaStreamDevice : public streams::StreamDevice {
public:
    CudaStreamDevice(cuda_stream::GpuInfo info, vfio::PciAddress address, unsigned channels,
                     cuda_stream::HostMemory memory, std::optional<cuda_stream::Corruption> corruption,
                     streams::Lie lie, bool loopback)
        : m_info(std::move(info)), m_address(address), m_channels(channels), m_memory(memory),
          m_corruption(corruption), m_lie(lie), m_loopback(loopback), m_group(iommu_group_of(m_info.pci_bus_id)) {}

    std::string design_name() const override { return "CUDA " + m_info.name; }
    vfio::PciAddress address() const override { return m_address; }
    int iommu_group() const override { return m_group; }
    unsigned h2c_channels() const override { return m_channels; }
    unsigned c2h_channels() const override { return m_channels; }
    // Loopback (parallel streams): channel i comes back on channel i through GPU memory.
    // Independent streams: no route, so the GPU generates each C2H channel's own stream.
    std::vector<streams::LoopRoute> routes() const override {
        std::vector<streams::LoopRoute> routes;
        for (unsigned i = 0; m_loopback && i < m_channels; ++i)
            routes.push_back(streams::LoopRoute{i, i});
        return routes;
    }

    vfio::Result<std::unique_ptr<streams::StreamChannel>> open_channel(Direction direction, unsigned channel,
                                                                       const streams::ChannelBuffers& buffers) override {
        cuda_stream::ChannelConfig config;
        config.gpu = m_info.ordinal;
        config.channel = channel;
        config.buffer_count = buffers.count;
        config.buffer_size = buffers.size;
        config.memory = m_memory;
        config.corruption = m_corruption;
        config.lie = m_lie;
        config.lie_transfers = m_lie_transfers;  // one count over every channel of the GPU
        std::shared_ptr<cuda_stream::Loop> loop;
        if (m_loopback) {
            auto& shared = m_loops[channel];
            if (!shared)
                // Twice the host ring in GPU memory: H2D may run a ring ahead of the D2H copies.
                shared = PDT_TRY(cuda_stream::make_loop(m_info.ordinal, 2 * buffers.count, buffers.size));
            loop = shared;
        }
        return direction == Direction::H2C ? cuda_stream::open_h2c(config, loop) : cuda_stream::open_c2h(config, loop);
    }

private:
    cuda_stream::GpuInfo m_info;
    vfio::PciAddress m_address;
    unsigned m_channels;
    cuda_stream::HostMemory m_memory;
    std::optional<cuda_stream::Corruption> m_corruption;
    streams::Lie m_lie;
    std::shared_ptr<cuda_stream::LieCounter> m_lie_transfers = std::make_shared<cuda_stream::LieCounter>(0);
    bool m_loopback;
    int m_group;
    std::map<unsigned, std::shared_ptr<cuda_stream::Loop>> m_loops;
};

// The bare cudaMemcpyAsync loop of the same sizes, before the verified run.
vfio::Result<void> print_reference(const cuda_stream::GpuInfo& info, double seconds, unsigned channels,
                                   cuda_stream::HostMemory memory, const StreamRunOptions& options, std::FILE* out) {
    if (seconds <= 0)
        return {};
    cuda_stream::BareConfig config{info.ordinal, channels, options.num_descriptors,
                                   (options.mapping_size / options.num_descriptors) & ~uint64_t{3}, memory, seconds};
    const cuda_stream::BareRates r = PDT_TRY(cuda_stream::bare_copy_rates(config));
    if (options.json)
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

vfio::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> open_cuda_stream_devices(const CudaCli& cli,
                                                                                   const StreamRunOptions& options,
                                                                                   std::FILE* out) {
    const CudaRunOptions o = PDT_TRY(cuda_run_options(cli));
    const auto memory = o.pinned ? cuda_stream::HostMemory::Pinned : cuda_stream::HostMemory::Pageable;
    std::optional<cuda_stream::Corruption> corruption;
    if (o.corrupt)
        corruption = cuda_stream::Corruption{o.corrupt->first ? Direction::H2C : Direction::C2H, o.corrupt->second};
    std::vector<std::unique_ptr<streams::StreamDevice>> devices;
    for (int ordinal : cli.devices) {
        const cuda_stream::GpuInfo info = PDT_TRY(cuda_stream::gpu_info(ordinal));
        const vfio::PciAddress address = PDT_TRY(vfio::PciAddress::parse(info.pci_bus_id));
        PDT_CHECK(print_reference(info, o.reference_seconds, o.channels, memory, options, out));
        devices.push_back(
            std::make_unique<CudaStreamDevice>(info, address, o.channels, memory, corruption, o.lie,
                                               cli.loopback));
    }
    return devices;
}

}  // namespace stream_tools
