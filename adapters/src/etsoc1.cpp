// The etsoc1 row: Esperanto ET-SoC-1 cards (etsoc1), the runtime's or the fake, as the stream
// tools' stream devices (--etsoc1_device and the card options) and as --endpoint etsoc1. Every
// ET-SoC-1 option is for this row alone: given without a card, or with another endpoint, it is a
// usage error.
#include "adapter_glue.hpp"

#include <cstdio>

#include "base/numbers.hpp"
#include "etsoc1/endpoint.hpp"
#include "etsoc1/fake_card.hpp"
#include "etsoc1/runtime_card.hpp"
#include "etsoc1/stream_device.hpp"

namespace po = boost::program_options;

namespace adapters {

void add_etsoc1_stream_options(po::options_description& description, Etsoc1StreamCli& cli) {
    cli::add_etsoc1_options(description, cli);
    description.add_options()("etsoc1_channels", po::value(&cli.channels),
                              "ET-SoC-1: loopback channel pairs per card, 1..4 (default 1)");
    add_etsoc1_window_option(description, cli.window);
}

void add_etsoc1_window_option(po::options_description& description, std::string& text) {
    description.add_options()("etsoc1_window", po::value(&text),
                              "ET-SoC-1: copies in flight per direction on the card, 1..4 (its DMA channels each "
                              "way; default 4); the stream tools share them among the channels");
}

pdt::Result<unsigned> etsoc1_window(const std::string& text) {
    return text.empty() ? 4u : static_cast<unsigned>(PDT_TRY(pdt::parse_number("etsoc1_window", text, 1, 4)));
}

etsoc1::RuntimeOptions etsoc1_runtime_options(const cli::Etsoc1Selection& cli, std::FILE* out) {
    etsoc1::RuntimeOptions options;
    options.socket = cli.socket;
    if (!cli.log.empty())
        options.log_path = cli.log;
    if (etsoc1::runtime_built() && options.log_path != "-")
        std::fprintf(out, "the ET-SoC-1 runtime's own log goes to %s\n", options.log_path.c_str());
    return options;
}

namespace {

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

// The fake cards of --etsoc1_device fake, each with a made-up PCI address in a domain no host has.
pdt::Result<void> open_fake_cards(size_t count, const etsoc1::FakeParameters& fake, const etsoc1::StreamDeviceConfig& shape,
                                  std::FILE* out, StreamDevices& devices) {
    for (size_t i = 0; i < count; ++i) {
        auto card = std::make_shared<etsoc1::FakeCard>(fake);
        etsoc1::StreamDeviceConfig config = shape;
        config.info = PDT_TRY(card->info(0));
        config.info.name = "ET-SoC-1 fake " + std::to_string(i);
        config.address.domain = 0xffff;
        config.address.bus = static_cast<uint8_t>(i);
        std::fprintf(out, "%s (PCI address %s made up): %s\n", config.info.name.c_str(),
                     config.address.to_string().c_str(), describe_fake(fake).c_str());
        devices.push_back(etsoc1::make_stream_device(card, std::move(config)));
    }
    return {};
}

// A card whose PCI address the runtime does not give (its daemon) is shown at a made-up address
// in domain fffe, as the fakes are in ffff, and the line says so.
pdt::Result<void> open_runtime_cards(const Etsoc1StreamCli& cli, const std::vector<int>& indices,
                                     const etsoc1::StreamDeviceConfig& shape, std::FILE* out, StreamDevices& devices) {
    std::shared_ptr<etsoc1::Card> card = PDT_TRY(etsoc1::open_runtime_card(etsoc1_runtime_options(cli, out)));
    for (int index : indices) {
        etsoc1::StreamDeviceConfig config = shape;
        config.device = index;
        config.info = PDT_TRY(card->info(index));
        const etsoc1::DeviceInfo& info = config.info;
        if (!info.pci_address.empty()) {
            config.address = PDT_TRY(vfio::PciAddress::parse(info.pci_address));
        } else {
            config.address.domain = 0xfffe;
            config.address.bus = static_cast<uint8_t>(index);
        }
        const etsoc1::DmaLimits limits = PDT_TRY(card->limits(index));
        std::fprintf(out, "%s at %s: link %s x%s, DMA nodes of %llu bytes x %u per command; every copy staged by "
                     "the runtime's bounce buffer\n",
                     info.name.c_str(),
                     info.pci_address.empty() ? ("an unknown PCI address (shown as " + config.address.to_string() + ")").c_str()
                                              : info.pci_address.c_str(),
                     info.link_speed.empty() ? "unknown" : info.link_speed.c_str(),
                     info.link_width.empty() ? "?" : info.link_width.c_str(),
                     static_cast<unsigned long long>(limits.max_node_bytes), limits.max_nodes);
        devices.push_back(etsoc1::make_stream_device(card, std::move(config)));
    }
    return {};
}

// The cards of --etsoc1_device; one line each to out. Usage errors: pdt::usage_error.
pdt::Result<StreamDevices> open_etsoc1_stream_devices(const Etsoc1StreamCli& cli, std::chrono::milliseconds transfer_timeout,
                                                 std::FILE* out) {
    const auto channels = cli.channels.empty()
                              ? 1u
                              : static_cast<unsigned>(PDT_TRY(pdt::parse_number("etsoc1_channels", cli.channels, 1, 4)));
    const unsigned window = PDT_TRY(etsoc1_window(cli.window));
    if (window < channels)
        return pdt::usage_error("parse option --etsoc1_window", cli.window, "each of the " + std::to_string(channels) +
                                    " channels needs a copy in flight: at least --etsoc1_channels");
    const etsoc1::FakeParameters fake = PDT_TRY(etsoc1::parse_fake_parameters(cli.fake));
    const auto [fakes, indices] = PDT_TRY(cli::parse_etsoc1_devices(cli.devices));
    StreamDevices devices;
    etsoc1::StreamDeviceConfig shape;
    shape.channels = channels;
    shape.window = window / channels;
    if (transfer_timeout.count() > 0)
        shape.abort_timeout = transfer_timeout;  // a stop's aborts take no longer than a transfer may
    PDT_CHECK(open_fake_cards(fakes, fake, shape, out, devices));
    if (!indices.empty())
        PDT_CHECK(open_runtime_cards(cli, indices, shape, out, devices));
    std::fflush(out);
    return devices;
}

}  // namespace

pdt::Result<bool> etsoc1_cards_named(const StreamDeviceRequest& request) {
    const Etsoc1StreamCli& cli = request.etsoc1;
    PDT_CHECK(cli::check_etsoc1_options_used(cli, {{"etsoc1_window", cli.window}, {"etsoc1_channels", cli.channels}}));
    return !cli.devices.empty();
}

OpenedStreamDevices open_etsoc1_cards_as_stream_devices(const StreamDeviceRequest& request,
                                                        const StreamDeviceUse& use, std::ostream& errors) {
    std::FILE* out = use.json ? stderr : stdout;
    return opened_or_failed(open_etsoc1_stream_devices(request.etsoc1, use.transfer_timeout, out), errors);
}

void add_etsoc1_endpoint_options(po::options_description& options, EndpointSettings& settings) {
    Etsoc1EndpointCli& cli = settings.etsoc1;
    cli::add_etsoc1_options(options, cli);
    options.add_options()(
        "etsoc1_queues", po::value(&cli.queues)->default_value(cli.queues), "etsoc1: queues (card streams)")(
        "etsoc1_memory", po::value(&cli.memory), "etsoc1: card memory the copies address (default 256MiB)");
    add_etsoc1_window_option(options, cli.window);
}

namespace {

// --etsoc1_window and --etsoc1_memory as given: they shape the endpoint's card.
std::vector<cli::GivenOption> etsoc1_endpoint_shaping(const Etsoc1EndpointCli& cli) {
    return {{"etsoc1_window", cli.window}, {"etsoc1_memory", cli.memory}};
}

}  // namespace

pdt::Result<void> check_etsoc1_unused(const EndpointSettings& settings, const std::string& endpoint) {
    const Etsoc1EndpointCli& cli = settings.etsoc1;
    std::vector<cli::GivenOption> given = etsoc1_endpoint_shaping(cli);
    given.push_back({"etsoc1_device", cli.devices.empty() ? "" : cli.devices.front()});
    given.push_back({"etsoc1_socket", cli.socket});
    given.push_back({"etsoc1_log", cli.log});
    given.push_back({"etsoc1_fake", cli.fake});
    for (const cli::GivenOption& option : given)
        if (!option.text.empty())
            return pdt::usage_error("option --" + option.name + " \"" + option.text + "\" is not used", "",
                                    "it is for --endpoint etsoc1, and the endpoint is " + endpoint);
    return {};
}

OpenedCopyEndpoint open_etsoc1_endpoint(const EndpointSettings& settings, EndpointHolds& holds) {
    const Etsoc1EndpointCli& cli = settings.etsoc1;
    etsoc1::EndpointConfig config;
    config.mover.streams_per_direction = cli.queues;
    config.mover.abort_timeout = settings.transfer_timeout;
    config.mover.window = PDT_TRY(etsoc1_window(cli.window));
    config.card_memory_bytes = cli.memory.empty() ? 256u << 20 : PDT_TRY(pdt::parse_size(cli.memory));
    if (config.mover.streams_per_direction == 0)
        return pdt::usage_error("--etsoc1_queues", "etsoc1", "at least one queue");
    if (cli.devices.size() > 1)
        return pdt::usage_error("--etsoc1_device", "etsoc1 endpoint", "pcie_link_measure measures one card");
    PDT_CHECK(cli::check_etsoc1_options_used(cli, etsoc1_endpoint_shaping(cli)));
    if (cli.devices.empty())
        return pdt::usage_error("--endpoint etsoc1", "",
                                "name the card: --etsoc1_device N (a card of the runtime) or --etsoc1_device fake "
                                "(the fake card)");
    const cli::Etsoc1Cards cards = PDT_TRY(cli::parse_etsoc1_devices(cli.devices));
    if (cards.indices.empty()) {  // --etsoc1_device fake
        holds.etsoc1_card = std::make_shared<etsoc1::FakeCard>(PDT_TRY(etsoc1::parse_fake_parameters(cli.fake)));
    } else {
        config.mover.device = cards.indices.front();
        holds.etsoc1_card = PDT_TRY(etsoc1::open_runtime_card(etsoc1_runtime_options(cli, stderr)));
    }
    return etsoc1::open_endpoint(*holds.etsoc1_card, config);
}

}  // namespace adapters
