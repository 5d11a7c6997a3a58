// A streams::StreamDevice of fake loopback pairs, for tests of the stream tools without a model.
#pragma once

#include <map>

#include "fake_stream.hpp"
#include "forwarding_channel.hpp"
#include "streams/stream_device.hpp"

namespace fake {

class FakeStreamDevice : public streams::StreamDevice {
public:
    FakeStreamDevice(std::string bdf, std::string design, int group, std::vector<streams::LoopRoute> routes,
                     unsigned channels, LoopbackConfig faults = {})
        : m_bdf(std::move(bdf)), m_design(std::move(design)), m_group(group), m_routes(std::move(routes)),
          m_channels(channels), m_faults(faults) {}

    std::string design_name() const override { return m_design; }
    vfio::PciAddress address() const override { return *vfio::PciAddress::parse(m_bdf); }
    int iommu_group() const override { return m_group; }
    unsigned h2c_channels() const override { return m_channels; }
    unsigned c2h_channels() const override { return m_channels; }
    std::vector<streams::LoopRoute> routes() const override { return m_routes; }

    pdt::Result<std::unique_ptr<streams::StreamChannel>> open_channel(streams::Direction direction, unsigned channel,
                                                                      const streams::ChannelBuffers& buffers) override {
        if (channel >= m_channels || fail_open)
            return pdt::make_error("open channel", m_bdf, ENODEV);
        for (const auto& route : m_routes) {
            const bool h2c = direction == streams::Direction::H2C;
            if ((h2c ? route.h2c : route.c2h) != channel)
                continue;
            auto& loop = m_loops[route.h2c];
            if (!loop) {
                LoopbackConfig config = m_faults;
                config.bdf = m_bdf;
                config.h2c_channel = route.h2c;
                config.c2h_channel = route.c2h;
                config.buffers = buffers.count;
                config.buffer_size = buffers.size;
                loop = std::make_unique<FakeLoopback>(config);
            }
            // The loopback keeps its channels: the caller owns one that forwards to them.
            return std::unique_ptr<streams::StreamChannel>(
                std::make_unique<stream_channel_test::ForwardingChannel>(h2c ? loop->h2c() : loop->c2h()));
        }
        return pdt::make_error("open channel", m_bdf, ENOENT, "no route");
    }

    bool any_busy() const {
        for (const auto& [h2c, loop] : m_loops)
            if (loop->h2c().busy() || loop->c2h().busy())
                return true;
        return false;
    }
    bool fail_open = false;

private:
    std::string m_bdf, m_design;
    int m_group;
    std::vector<streams::LoopRoute> m_routes;
    unsigned m_channels;
    LoopbackConfig m_faults;
    std::map<unsigned, std::unique_ptr<FakeLoopback>> m_loops;
};

}  // namespace fake
