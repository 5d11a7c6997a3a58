#include "etsoc1/stream_device.hpp"

#include <map>

#include "etsoc1/channels.hpp"

namespace etsoc1 {
namespace {

class Etsoc1StreamDevice : public streams::StreamDevice {
public:
    Etsoc1StreamDevice(std::shared_ptr<Card> card, StreamDeviceConfig config)
        : m_card(std::move(card)), m_config(std::move(config)) {}

    std::string design_name() const override { return m_config.info.name; }
    vfio::PciAddress address() const override { return m_config.address; }
    int iommu_group() const override { return -1; }  // the runtime's driver, not VFIO
    unsigned h2c_channels() const override { return m_config.channels; }
    unsigned c2h_channels() const override { return m_config.channels; }
    std::vector<streams::LoopRoute> routes() const override {
        std::vector<streams::LoopRoute> routes;
        for (unsigned i = 0; i < m_config.channels; ++i)
            routes.push_back(streams::LoopRoute{i, i});
        return routes;
    }

    pdt::Result<std::unique_ptr<streams::StreamChannel>> open_channel(streams::Direction direction, unsigned channel,
                                                                      const streams::ChannelBuffers& buffers) override {
        auto& loop = m_loops[channel];
        if (!loop) {
            ChannelConfig config;
            config.device = m_config.device;
            config.channel = channel;
            config.buffer_count = buffers.count;
            config.buffer_size = buffers.size;
            config.window = m_config.window;
            config.abort_timeout = m_config.abort_timeout;
            loop = PDT_TRY(make_loop(*m_card, config));
        }
        return direction == streams::Direction::H2C ? open_h2c(loop) : open_c2h(loop);
    }

private:
    std::shared_ptr<Card> m_card;  // outlives the loops (members go in reverse order)
    StreamDeviceConfig m_config;
    std::map<unsigned, std::shared_ptr<Loop>> m_loops;
};

}  // namespace

std::unique_ptr<streams::StreamDevice> make_stream_device(std::shared_ptr<Card> card, StreamDeviceConfig config) {
    return std::make_unique<Etsoc1StreamDevice>(std::move(card), std::move(config));
}

}  // namespace etsoc1
