// streams::StreamDevice over a QDMA function's stream queues.
#include "qdma/qdma_stream_device.hpp"

#include <cerrno>

namespace qdma {
namespace {

class QdmaStreamDevice final : public streams::StreamDevice {
public:
    QdmaStreamDevice(vfio::Device& device, std::shared_ptr<Function> function, StreamDeviceConfig config)
        : m_device(device), m_function(std::move(function)), m_config(std::move(config)) {}
    std::string design_name() const override { return m_config.design_name; }
    std::string display_name() const override {
        return m_config.display_name.empty() ? m_config.design_name : m_config.display_name;
    }
    vfio::PciAddress address() const override { return m_device.identity().address; }
    int iommu_group() const override { return m_device.identity().iommu_group; }
    unsigned h2c_channels() const override { return m_config.channels; }
    unsigned c2h_channels() const override { return m_config.channels; }
    std::vector<streams::LoopRoute> routes() const override { return m_config.routes; }
    streams::CardFunction card_function() const override { return m_config.card_function; }
    pdt::Result<std::unique_ptr<streams::StreamChannel>> open_channel(streams::Direction direction, unsigned channel,
                                                                      const streams::ChannelBuffers& buffers) override {
        if (channel >= m_config.channels)
            return pdt::make_error(std::string("open ") + streams::to_string(direction) + " channel " +
                                        std::to_string(channel) + " of",
                                    m_function->name(), EINVAL,
                                    "the device has " + std::to_string(m_config.channels) + " stream channel(s) each way");
        return open_stream_channel(m_function, direction, channel, buffers, m_config.channel);
    }

private:
    vfio::Device& m_device;
    std::shared_ptr<Function> m_function;
    StreamDeviceConfig m_config;
};

}  // namespace

pdt::Result<std::unique_ptr<streams::StreamDevice>> open_stream_device(vfio::Device& device,
                                                                       const StreamDeviceConfig& config) {
    const std::string object = device.identity().address.to_string() + " " + config.design_name;
    if (config.channels == 0 || config.channels > config.function.queues)
        return pdt::usage_error("open QDMA stream device", object,
                                std::to_string(config.channels) + " channels: 1.." +
                                    std::to_string(config.function.queues) + " (the function's FMAP queues)");
    for (const streams::LoopRoute& route : config.routes)
        if (route.h2c >= config.channels || route.c2h >= config.channels)
            return pdt::make_error("open QDMA stream device", object, EINVAL,
                                   "route H2C " + std::to_string(route.h2c) + " -> C2H " + std::to_string(route.c2h) +
                                       " names a channel past " + std::to_string(config.channels - 1));
    PDT_CHECK(device.enable_bus_master());
    std::shared_ptr<Function> function = PDT_TRY(Function::open(device, config.function));
    const Capabilities& caps = function->capabilities();
    if (!caps.h2c_st || !caps.c2h_st)
        return pdt::make_error("open QDMA stream device", object, ENODEV,
                               std::string("QDMA_GLBL2_CHANNEL_MDMA reports H2C_ST ") + (caps.h2c_st ? "1" : "0") +
                                   ", C2H_ST " + (caps.c2h_st ? "1" : "0") + ": no stream queue pair");
    return std::unique_ptr<streams::StreamDevice>(std::make_unique<QdmaStreamDevice>(device, std::move(function), config));
}

}  // namespace qdma
