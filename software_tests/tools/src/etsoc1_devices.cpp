// The stream tools' ET-SoC-1 path: cards (runtime binding or fake) as StreamDevices whose
// channel pairs loop back through card memory.
#include "stream_tools/etsoc1_devices.hpp"

#include <map>

#include "etsoc1/channels.hpp"
#include "etsoc1/fake_card.hpp"
#include "etsoc1/runtime_card.hpp"
#include "stream_tools/options.hpp"

namespace stream_tools {

void add_etsoc1_options(boost::program_options::options_description& description, Etsoc1Cli& cli) {
    namespace po = boost::program_options;
    cli::add_etsoc1_options(description, cli);
    description.add_options()
        ("etsoc1_channels", po::value(&cli.channels), "ET-SoC-1: loopback channel pairs per card, 1..4 (default 1)")
        ("etsoc1_window", po::value(&cli.window), "ET-SoC-1: copies in flight per direction per channel, 1..4 (default 2)");
}

namespace {

class Etsoc1StreamDevice : public streams::StreamDevice {
public:
    Etsoc1StreamDevice(std::shared_ptr<etsoc1::Card> card, int index, etsoc1::DeviceInfo info, vfio::PciAddress address,
                       unsigned channels, unsigned window)
        : m_card(std::move(card)), m_index(index), m_info(std::move(info)), m_address(address), m_channels(channels),
          m_window(window) {}

    std::string design_name() const override { return m_info.name; }
    vfio::PciAddress address() const override { return m_address; }
    int iommu_group() const override { return -1; }  // the runtime's driver, not VFIO
    unsigned h2c_channels() const override { return m_channels; }
    unsigned c2h_channels() const override { return m_channels; }
    std::vector<streams::LoopRoute> routes() const override {
        std::vector<streams::LoopRoute> routes;
        for (unsigned i = 0; i < m_channels; ++i)
            routes.push_back(streams::LoopRoute{i, i});
        return routes;
    }

    vfio::Result<std::unique_ptr<streams::StreamChannel>> open_channel(streams::Direction direction, unsigned channel,
                                                                       const streams::ChannelBuffers& buffers) override {
        auto& loop = m_loops[channel];
        if (!loop) {
            etsoc1::ChannelConfig config;
            config.device = m_index;
            config.channel = channel;
            config.buffer_count = buffers.count;
            config.buffer_size = buffers.size;
            config.window = m_window;
            loop = PDT_TRY(etsoc1::make_loop(*m_card, config));
        }
        return direction == streams::Direction::H2C ? etsoc1::open_h2c(loop) : etsoc1::open_c2h(loop);
    }

private:
    std::shared_ptr<etsoc1::Card> m_card;  // outlives the loops (members go in reverse order)
    int m_index;
    etsoc1::DeviceInfo m_info;
    vfio::PciAddress m_address;
    unsigned m_channels, m_window;
    std::map<unsigned, std::shared_ptr<etsoc1::Loop>> m_loops;
};

std::string describe_fake(const etsoc1::FakeParameters& p) {
    char text[320];
    std::snprintf(text, sizeof text,
                  "staged by a %.3g GB/s memcpy, DMA %.3g GB/s per channel (%u read + %u write), link %.3g GB/s H2C, "
                  "%.3g GB/s C2H, polling %lld/%lld us",
                  p.memcpy_gbps, p.dma_channel_gbps, p.limits.read_channels, p.limits.write_channels, p.link_gbps,
                  p.link_gbps * p.c2h_link_ratio, static_cast<long long>(p.poll_busy.count()),
                  static_cast<long long>(p.poll_idle.count()));
    return text;
}

}  // namespace

vfio::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> open_etsoc1_stream_devices(const Etsoc1Cli& cli,
                                                                                     std::FILE* out) {
    const auto channels = static_cast<unsigned>(PDT_TRY(parse_number("etsoc1_channels", cli.channels, 1, 4)));
    const auto window = static_cast<unsigned>(PDT_TRY(parse_number("etsoc1_window", cli.window, 1, 4)));
    const etsoc1::FakeParameters fake = PDT_TRY(etsoc1::parse_fake_parameters(cli.fake));
    const auto [fakes, indices] = PDT_TRY(cli::parse_etsoc1_devices(cli.devices));
    std::vector<std::unique_ptr<streams::StreamDevice>> devices;
    for (size_t i = 0; i < fakes; ++i) {
        auto card = std::make_shared<etsoc1::FakeCard>(fake);
        etsoc1::DeviceInfo info = PDT_TRY(card->info(0));
        info.name = "ET-SoC-1 fake " + std::to_string(i);
        vfio::PciAddress address;  // none: a made-up one in a domain no host has
        address.domain = 0xffff;
        address.bus = static_cast<uint8_t>(i);
        std::fprintf(out, "%s (PCI address %s made up): %s\n", info.name.c_str(), address.to_string().c_str(),
                     describe_fake(fake).c_str());
        devices.push_back(std::make_unique<Etsoc1StreamDevice>(card, 0, info, address, channels, window));
    }
    if (!indices.empty()) {
        etsoc1::RuntimeOptions options;
        options.socket = cli.socket;
        std::shared_ptr<etsoc1::Card> card = PDT_TRY(etsoc1::open_runtime_card(options));
        for (int index : indices) {
            const etsoc1::DeviceInfo info = PDT_TRY(card->info(index));
            const vfio::PciAddress address =
                info.pci_address.empty() ? vfio::PciAddress{} : PDT_TRY(vfio::PciAddress::parse(info.pci_address));
            const etsoc1::DmaLimits limits = PDT_TRY(card->limits(index));
            std::fprintf(out, "%s at %s: link %s x%s, DMA nodes of %llu bytes x %u per command; every copy staged by "
                         "the runtime's bounce buffer\n",
                         info.name.c_str(), info.pci_address.empty() ? "an unknown PCI address" : info.pci_address.c_str(),
                         info.link_speed.empty() ? "unknown" : info.link_speed.c_str(),
                         info.link_width.empty() ? "?" : info.link_width.c_str(),
                         static_cast<unsigned long long>(limits.max_node_bytes), limits.max_nodes);
            devices.push_back(std::make_unique<Etsoc1StreamDevice>(card, index, info, address, channels, window));
        }
    }
    std::fflush(out);
    return devices;
}

}  // namespace stream_tools
