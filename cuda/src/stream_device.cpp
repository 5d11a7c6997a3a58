#include "cuda_stream/stream_device.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <map>

namespace cuda_stream {
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
    CudaStreamDevice(GpuInfo info, vfio::PciAddress address, const StreamDeviceConfig& config)
        : m_info(std::move(info)), m_address(address), m_config(config), m_group(iommu_group_of(m_info.pci_bus_id)) {}

    std::string design_name() const override { return "CUDA " + m_info.name; }
    vfio::PciAddress address() const override { return m_address; }
    int iommu_group() const override { return m_group; }
    unsigned h2c_channels() const override { return m_config.channels; }
    unsigned c2h_channels() const override { return m_config.channels; }
    // Loopback (parallel streams): channel i comes back on channel i through GPU memory.
    // Independent streams: no route, so the GPU generates each C2H channel's own stream.
    std::vector<streams::LoopRoute> routes() const override {
        std::vector<streams::LoopRoute> routes;
        for (unsigned i = 0; m_config.loopback && i < m_config.channels; ++i)
            routes.push_back(streams::LoopRoute{i, i});
        return routes;
    }

    pdt::Result<std::unique_ptr<streams::StreamChannel>> open_channel(Direction direction, unsigned channel,
                                                                      const streams::ChannelBuffers& buffers) override {
        ChannelConfig config;
        config.gpu = m_info.ordinal;
        config.channel = channel;
        config.buffer_count = buffers.count;
        config.buffer_size = buffers.size;
        config.memory = m_config.memory;
        config.corruption = m_config.corruption;
        config.lie = m_config.lie;
        config.lie_transfers = m_lie_transfers;  // one count over every channel of the GPU
        std::shared_ptr<Loop> loop;
        if (m_config.loopback) {
            auto& shared = m_loops[channel];
            if (!shared)
                // Twice the host ring in GPU memory: H2D may run a ring ahead of the D2H copies.
                shared = PDT_TRY(make_loop(m_info.ordinal, 2 * buffers.count, buffers.size));
            loop = shared;
        }
        return direction == Direction::H2C ? open_h2c(config, loop) : open_c2h(config, loop);
    }

private:
    GpuInfo m_info;
    vfio::PciAddress m_address;
    StreamDeviceConfig m_config;
    std::shared_ptr<LieCounter> m_lie_transfers = std::make_shared<LieCounter>(0);
    int m_group;
    std::map<unsigned, std::shared_ptr<Loop>> m_loops;
};

}  // namespace

pdt::Result<std::unique_ptr<streams::StreamDevice>> open_stream_device(int ordinal, const StreamDeviceConfig& config) {
    GpuInfo info = PDT_TRY(gpu_info(ordinal));
    const vfio::PciAddress address = PDT_TRY(vfio::PciAddress::parse(info.pci_bus_id));
    return std::unique_ptr<streams::StreamDevice>(std::make_unique<CudaStreamDevice>(std::move(info), address, config));
}

}  // namespace cuda_stream
