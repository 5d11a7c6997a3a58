#include "adapters/xdma_stream_devices.hpp"

#include <algorithm>

#include "base/spellings.hpp"
#include "dma_bridge/xdma_stream_channel.hpp"

namespace adapters {

RoutingDecision decide_routing(const SwitchRoutes& current, const SwitchRoutes& defaults,
                               const std::optional<std::vector<tool_support::SwitchRoute>>& requested, bool force) {
    if (requested) {
        SwitchRoutes wanted(current.size());
        for (const tool_support::SwitchRoute& route : *requested)
            if (route.master < wanted.size())
                wanted[route.master] = route.slave;
        return RoutingDecision{wanted, force || wanted != current};
    }
    const bool all_disabled = std::none_of(current.begin(), current.end(), [](const auto& r) { return r.has_value(); });
    if (all_disabled || force)
        return RoutingDecision{all_disabled ? defaults : current, true};
    return RoutingDecision{current, false};
}

pdt::Result<void> write_switch_routes(vfio::Device& device, const identify::SwitchInfo& info,
                                      const SwitchRoutes& routes) {
    vfio::Bar* bar = PDT_TRY(device.bar(info.bar));
    const uint64_t frame = axis_switch::MI_MUX + 4 * routes.size();
    const vfio::RegisterWindow regs = PDT_TRY(bar->window(info.offset, frame));
    for (size_t m = 0; m < routes.size(); ++m)
        regs.write32(axis_switch::MI_MUX + 4 * m, routes[m] ? *routes[m] : axis_switch::MI_MUX_DISABLE);
    regs.write32(axis_switch::CONTROL, axis_switch::CONTROL_REG_UPDATE);
    return {};
}

pdt::Result<SwitchRoutes> read_switch_routes(vfio::Device& device, const identify::SwitchInfo& info) {
    vfio::Bar* bar = PDT_TRY(device.bar(info.bar));
    const uint64_t frame = axis_switch::MI_MUX + 4 * info.routes.size();
    const vfio::RegisterWindow regs = PDT_TRY(bar->window(info.offset, frame));
    SwitchRoutes routes(info.routes.size());
    for (size_t m = 0; m < routes.size(); ++m) {
        const uint32_t mux = regs.read32(axis_switch::MI_MUX + 4 * m);
        if ((mux & axis_switch::MI_MUX_DISABLE) == 0)
            routes[m] = mux & 0xfu;
    }
    return routes;
}

std::string describe_routes(const SwitchRoutes& routes) {
    std::string text;
    for (size_t m = 0; m < routes.size(); ++m)
        if (routes[m])
            text += (text.empty() ? "" : " ") + std::string("master ") + std::to_string(m) + " <- slave " +
                    std::to_string(*routes[m]);
    return text.empty() ? "all disabled" : text;
}

pdt::Result<SwitchUpdate> update_switch_routes(identify::IdentifiedDesign& design, const SwitchRoutes& wanted,
                                               bool force) {
    const std::string prefix = "Device " + design.identity.address.to_string() + " design " + design.design->text_name();
    if (!design.axi_switch || !design.device)
        return pdt::make_error("route AXI4-Stream Switch", design.identity.address.to_string(), ENODEV,
                               "the design has no AXI4-Stream Switch");
    const SwitchRoutes current = PDT_TRY(read_switch_routes(*design.device, *design.axi_switch));
    SwitchUpdate update;
    update.routes = wanted;
    if (!force && current == wanted) {
        update.line = prefix + " routes unchanged";
        return update;
    }
    PDT_CHECK(write_switch_routes(*design.device, *design.axi_switch, wanted));
    // "routes updated" only once the switch reads back what was written.
    const SwitchRoutes readback = PDT_TRY(read_switch_routes(*design.device, *design.axi_switch));
    if (readback != wanted)
        return pdt::make_error("route AXI4-Stream Switch", design.identity.address.to_string(), EIO,
                               "routes of design " + design.design->name + " read back as " +
                                   describe_routes(readback) + ", not " + describe_routes(wanted) +
                                   " (the fabric may have no AXI4-Stream Switch)");
    update.line = prefix + (force ? " routes update forced" : " routes updated");
    return update;
}

streams::CardFunction card_function(const designs::DmaBridge& bridge) {
    switch (bridge.stream_function) {
    case designs::StreamFunction::Loopback: return streams::CardFunction::Loopback;
    case designs::StreamFunction::Crc64: return streams::CardFunction::Crc64;
    case designs::StreamFunction::FixedData: return streams::CardFunction::FixedData;
    }
    return streams::CardFunction::Loopback;
}

streams::CardFunction XdmaStreamDevice::card_function() const {
    return m_design.design->dma_bridge ? adapters::card_function(*m_design.design->dma_bridge)
                                       : streams::CardFunction::Loopback;
}

uint64_t XdmaStreamDevice::packet_granularity() const {
    if (card_function() != streams::CardFunction::Crc64)
        return 4;
    return std::max<uint64_t>(8, m_design.design->dma_bridge->stream_tdata_bytes.value_or(8));
}

SwitchRoutes default_switch_routes(const designs::Design& design, uint8_t revision) {
    for (const designs::Peripheral& p : design.peripherals) {
        if (p.type != designs::PeripheralType::AxiStreamSwitch)
            continue;
        (void)revision;  // the table's routes are also the fixed routing of switch-less revisions
        SwitchRoutes routes(p.master_ports);
        for (const designs::Route& route : p.default_routes)
            if (route.master < routes.size())
                routes[route.master] = route.slave;
        return routes;
    }
    return {};
}

// CRC64 and fixed-data designs have no switch: each H2C stream n meets C2H stream n in the
// fabric (fpga_sio's routing for them is the identity).
SwitchRoutes identity_routes(unsigned num_h2c, unsigned num_c2h) {
    SwitchRoutes routes(num_c2h);
    for (unsigned m = 0; m < num_c2h && m < num_h2c; ++m)
        routes[m] = m;
    return routes;
}

std::vector<streams::LoopRoute> loop_routes(const SwitchRoutes& routes, unsigned num_h2c, unsigned num_c2h) {
    std::vector<streams::LoopRoute> loops;
    for (unsigned m = 0; m < routes.size(); ++m)
        if (routes[m] && *routes[m] < num_h2c && m < num_c2h)
            loops.push_back(streams::LoopRoute{*routes[m], m});
    std::sort(loops.begin(), loops.end());
    return loops;
}

pdt::Result<xdma::ModeRequest> dma_mode_request(const cli::XdmaModeText& modes) {
    xdma::ModeRequest request;
    request.mode = PDT_TRY(pdt::parse_spelling("engine_mode", modes.engine_mode, xdma::kEngineModeSpellings));
    request.completion = PDT_TRY(pdt::parse_spelling("completion", modes.completion, xdma::kCompletionSpellings));
    return request;
}

pdt::Result<EngineModes> describe_engine_modes(const identify::IdentifiedDesign& design, const xdma::ModeRequest& request) {
    const std::string bdf = design.identity.address.to_string();
    if (!design.device || !design.dma_bridge)
        return pdt::make_error("choose XDMA engine modes", bdf, ENODEV, "no open device with a DMA bridge");
    // Probe a channel the design has (C2H-only designs: C2H 0).
    const auto direction = design.dma_bridge->num_h2c() > 0 ? xdma::Direction::H2C : xdma::Direction::C2H;
    const xdma::Modes modes = PDT_TRY(
        xdma::choose_modes(*design.device, design.dma_bridge->bar, 0, direction, 0, ip_options(design), request));
    return EngineModes{"Device " + bdf + " XDMA engines: " +
                           xdma::describe(modes, design.dma_bridge->mode == designs::DmaMode::Stream),
                       {xdma::option_name(modes.mode), xdma::option_name(modes.completion)}};
}

XdmaStreamDevice::XdmaStreamDevice(identify::IdentifiedDesign design, std::vector<streams::LoopRoute> routes,
                                   std::chrono::milliseconds timeout, unsigned dma_mask_bits, xdma::ModeRequest modes,
                                   std::optional<streams::EngineChoice> chosen)
    : m_design(std::move(design)), m_routes(std::move(routes)), m_timeout(timeout), m_dma_mask_bits(dma_mask_bits),
      m_modes(modes), m_chosen(std::move(chosen)) {}

namespace {

vfio::BufferKind buffer_kind(streams::BufferAllocation allocation) {
    switch (allocation) {
    case streams::BufferAllocation::SharedMemory: return vfio::BufferKind::SharedMemory;
    case streams::BufferAllocation::HugePages: return vfio::BufferKind::HugePages;
    case streams::BufferAllocation::Heap: break;
    }
    return vfio::BufferKind::Anonymous;
}

}  // namespace

pdt::Result<std::unique_ptr<streams::StreamChannel>> XdmaStreamDevice::open_channel(streams::Direction direction,
                                                                                    unsigned channel,
                                                                                    const streams::ChannelBuffers& buffers) {
    xdma::StreamChannelOptions options;
    options.direction = direction == streams::Direction::H2C ? xdma::Direction::H2C : xdma::Direction::C2H;
    options.channel = channel;
    options.dma_bar = m_design.dma_bridge->bar;
    options.buffer_count = buffers.count;
    options.buffer_size = buffers.size;
    options.buffer_kind = buffer_kind(buffers.allocation);
    options.timeout = m_timeout;
    xdma::EngineOptions engine{.direction = options.direction, .channel = channel, .stream = true,
                               .dma_bar = options.dma_bar};
    PDT_TRY(xdma::configure_engine(*m_design.device, ip_options(m_design), m_modes, engine));
    options.mode = engine.mode;
    options.completion = engine.completion;
    options.completion_auto = engine.completion_auto;
    options.msi_vector = engine.msi_vector;
    options.dma_mask_bits = m_dma_mask_bits;
    auto opened = PDT_TRY(xdma::XdmaStreamChannel::create(*m_design.device, options));
    return std::unique_ptr<streams::StreamChannel>(std::move(opened));
}

pdt::Result<std::unique_ptr<XdmaStreamDevice>> make_xdma_stream_device(identify::IdentifiedDesign design,
                                                                       const OpenOptions& options) {
    const std::string bdf = design.identity.address.to_string();
    if (!design.device)
        return pdt::make_error("open stream design", bdf, EINVAL, "the identified design holds no open device");
    if (!design.dma_bridge || design.dma_bridge->mode != designs::DmaMode::Stream)
        return pdt::make_error("open stream design", bdf, ENODEV, "not a DMA stream design");
    std::optional<std::vector<tool_support::SwitchRoute>> requested;
    for (const tool_support::DeviceRouting& routing : options.routing)
        if (routing.address == design.identity.address)
            requested = routing.routes;
    const SwitchRoutes defaults = default_switch_routes(*design.design, design.identity.revision);
    SwitchRoutes routes = defaults;
    if (design.axi_switch) {
        if (requested)
            for (const tool_support::SwitchRoute& r : *requested)
                if (r.master >= design.axi_switch->routes.size())
                    return pdt::usage_error("route AXI4-Stream Switch", bdf,
                                            "master port " + std::to_string(r.master) + " out of range");
        const RoutingDecision decision =
            decide_routing(design.axi_switch->routes, defaults, requested, options.force_routing);
        if (decision.write) {
            PDT_CHECK(write_switch_routes(*design.device, *design.axi_switch, decision.routes));
            const SwitchRoutes readback = PDT_TRY(read_switch_routes(*design.device, *design.axi_switch));
            if (options.progress && readback == decision.routes)
                *options.progress << "Device " << bdf << " design " << design.design->text_name() << " routes updated\n";
            else if (options.progress)
                *options.progress << "Warning: Device " << bdf << " design " << design.design->text_name()
                                  << " routes read back as " << describe_routes(readback) << ", not "
                                  << describe_routes(decision.routes)
                                  << " (the fabric may have no AXI4-Stream Switch): testing the design's routes\n";
        }
        routes = decision.routes;
    }
    if (routes.empty() && !design.axi_switch && design.design->dma_bridge &&
        design.design->dma_bridge->stream_function != designs::StreamFunction::Loopback)
        routes = identity_routes(design.dma_bridge->num_h2c(), design.dma_bridge->num_c2h());
    if (PDT_TRY(design.device->enable_bus_master()) && options.progress)
        *options.progress << "Enabled bus master for " << bdf << "\n";
    const EngineModes modes = PDT_TRY(describe_engine_modes(design, options.modes));
    if (options.progress)
        *options.progress << modes.line << "\n";
    std::vector<streams::LoopRoute> loops =
        loop_routes(routes, design.dma_bridge->num_h2c(), design.dma_bridge->num_c2h());
    return std::make_unique<XdmaStreamDevice>(std::move(design), std::move(loops), options.timeout,
                                              options.dma_mask_bits, options.modes, modes.choice);
}

pdt::Result<std::vector<std::unique_ptr<XdmaStreamDevice>>> open_xdma_stream_devices(
    vfio::DeviceBus& bus, const designs::Registry& registry, const OpenOptions& options) {
    identify::IdentifyOptions identify_options;
    identify_options.locations = options.locations;
    identify_options.progress = options.progress;
    auto found = PDT_TRY(identify::identify_designs(bus, registry, identify_options));
    if (!found.failures.empty())
        return found.failures.front();
    return open_xdma_stream_devices(std::move(found.designs), options);
}

pdt::Result<std::vector<std::unique_ptr<XdmaStreamDevice>>> open_xdma_stream_devices(
    std::vector<identify::IdentifiedDesign> designs, const OpenOptions& options) {
    std::vector<std::unique_ptr<XdmaStreamDevice>> devices;
    for (identify::IdentifiedDesign& design : designs) {
        if (!design.dma_bridge || design.dma_bridge->mode != designs::DmaMode::Stream)
            continue;
        if (default_switch_routes(*design.design, design.identity.revision).empty() && !design.axi_switch &&
            design.design->dma_bridge->stream_function == designs::StreamFunction::Loopback)
            continue;  // a loopback design without routes (its streams go to the fabric): nothing to test
        devices.push_back(PDT_TRY(make_xdma_stream_device(std::move(design), options)));
    }
    return devices;
}

}  // namespace adapters
