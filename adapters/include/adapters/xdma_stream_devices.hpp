// streams::StreamDevice for identified XDMA stream designs (kernel VFIO or simulated bus): AXI4-Stream
// Switch routing with fpga_sio's policy, loopback routes, and xdma::XdmaStreamChannel channels.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "cli/transfer_timeout.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "identify/identify.hpp"
#include "cli/device_options.hpp"
#include "tool_support/switch_routes.hpp"
#include "streams/stream_device.hpp"

namespace adapters {

// AXI4-Stream Switch (PG085) registers, relative to the switch's base.
namespace axis_switch {
inline constexpr uint64_t CONTROL = 0x00;
inline constexpr uint32_t CONTROL_REG_UPDATE = 0x2;  // commit the MI_MUX registers
inline constexpr uint64_t MI_MUX = 0x40;             // + 4 x master port
inline constexpr uint32_t MI_MUX_DISABLE = 0x80000000u;
}  // namespace axis_switch

// What the design data states about the design's XDMA IP, for xdma::choose_modes.
inline xdma::IpOptions ip_options(const identify::IdentifiedDesign& design) {
    if (!design.design || !design.design->dma_bridge)
        return {};
    const designs::XdmaIpOptions& ip = design.design->dma_bridge->xdma_ip;
    return xdma::IpOptions{ip.descriptor_credits, ip.poll_mode_writeback, ip.interrupts};
}

// "Device 0000:15:00.0 XDMA engines: memory-mapped, engine mode stop_list, completion
// completed_count (descriptor credits no (stated), poll-mode writeback yes (probed))": the modes
// the design's engines will use (xdma::choose_modes on its first H2C channel, else its first C2H
// channel), which every DMA tool prints, and the choice itself (for --json). Fails as choose_modes
// does, e.g. for an explicit choice the IP cannot do.
struct EngineModes {
    std::string line;
    streams::EngineChoice choice;
};
// --engine_mode and --completion parsed; errors are usage errors naming the option.
pdt::Result<xdma::ModeRequest> dma_mode_request(const cli::XdmaModeText& modes);

pdt::Result<EngineModes> describe_engine_modes(const identify::IdentifiedDesign& design, const xdma::ModeRequest& request);

// Routing of one design: routes[m] is the slave port feeding master port m (nullopt: off).
using SwitchRoutes = std::vector<std::optional<unsigned>>;

struct RoutingDecision {
    SwitchRoutes routes;
    bool write = false;  // the switch must be written (and committed)
};

// fpga_sio's policy: command-line routing is applied when it differs from the switch (or
// always when forced); otherwise the design's default routes when every master port is
// disabled (as after a VFIO reset); otherwise the current routing is kept.
RoutingDecision decide_routing(const SwitchRoutes& current, const SwitchRoutes& defaults,
                               const std::optional<std::vector<tool_support::SwitchRoute>>& requested, bool force);
// Writes MI_MUX for every master port, then commits.
pdt::Result<void> write_switch_routes(vfio::Device& device, const identify::SwitchInfo& info,
                                      const SwitchRoutes& routes);
// Reads MI_MUX of every master port (bit 31: disabled; [3:0] the slave port).
pdt::Result<SwitchRoutes> read_switch_routes(vfio::Device& device, const identify::SwitchInfo& info);
// "0->1 1->0" style text of a routing, "all disabled" when no port is enabled.
std::string describe_routes(const SwitchRoutes& routes);

// xilinx_axi_stream_switch_set_routing for one identified design: applies `wanted` when it
// differs from the switch (or always when forced) and reads it back. Returns fpga_sio's line,
// "Device <bdf> design <name> routes updated|unchanged|update forced"; an EIO error when the
// read-back differs from what was written (as on bitstreams whose table names a switch the
// fabric lacks), so that "routes updated" is printed only where routes really changed.
struct SwitchUpdate {
    std::string line;
    SwitchRoutes routes;
};
pdt::Result<SwitchUpdate> update_switch_routes(identify::IdentifiedDesign& design, const SwitchRoutes& wanted,
                                               bool force);

// What the design's card does with its streams (dma_bridge.stream_function).
streams::CardFunction card_function(const designs::DmaBridge& bridge);

// The design table's default routes as SwitchRoutes of `ports` master ports.
SwitchRoutes default_switch_routes(const designs::Design& design, uint8_t revision);
// H2C n -> C2H n for every channel both directions have (designs without a switch whose
// card function is not a loopback: CRC64, fixed data).
SwitchRoutes identity_routes(unsigned num_h2c, unsigned num_c2h);
// Loopback pairs of a routing, ordered by H2C channel.
std::vector<streams::LoopRoute> loop_routes(const SwitchRoutes& routes, unsigned num_h2c, unsigned num_c2h);

class XdmaStreamDevice : public streams::StreamDevice {
public:
    XdmaStreamDevice(identify::IdentifiedDesign design, std::vector<streams::LoopRoute> routes,
                     std::chrono::milliseconds timeout, unsigned dma_mask_bits = 64, xdma::ModeRequest modes = {},
                     std::optional<streams::EngineChoice> chosen = std::nullopt);
    std::string design_name() const override { return m_design.design->name; }
    std::string display_name() const override { return m_design.design->text_name(); }
    vfio::PciAddress address() const override { return m_design.identity.address; }
    int iommu_group() const override { return m_design.identity.iommu_group; }
    unsigned h2c_channels() const override { return m_design.dma_bridge->num_h2c(); }
    unsigned c2h_channels() const override { return m_design.dma_bridge->num_c2h(); }
    std::vector<streams::LoopRoute> routes() const override { return m_routes; }
    streams::CardFunction card_function() const override;
    uint64_t packet_granularity() const override;
    std::optional<streams::EngineChoice> engines() const override { return m_chosen; }
    pdt::Result<std::unique_ptr<streams::StreamChannel>> open_channel(streams::Direction direction, unsigned channel,
                                                                      const streams::ChannelBuffers& buffers) override;
    vfio::Device& device() { return *m_design.device; }
    const identify::IdentifiedDesign& identified() const { return m_design; }

private:
    identify::IdentifiedDesign m_design;
    std::vector<streams::LoopRoute> m_routes;
    std::chrono::milliseconds m_timeout;
    unsigned m_dma_mask_bits;
    xdma::ModeRequest m_modes;
    std::optional<streams::EngineChoice> m_chosen;
};

struct OpenOptions {
    std::vector<vfio::PciAddress> locations;  // empty: all
    std::vector<tool_support::DeviceRouting> routing;  // --device_routing
    bool force_routing = false;
    std::chrono::milliseconds timeout{cli::kDefaultTransferTimeout};
    unsigned dma_mask_bits = 64;  // --a32: 32 (IOVAs of the channels' buffers below 4 GiB)
    std::ostream* progress = nullptr;  // "Opening device", "Enabled bus master", "routes updated"
    xdma::ModeRequest modes;           // run mode and completion of every engine opened
};

// Identifies the designs on the bus and returns the stream designs with a DMA bridge and at
// least one loopback route, with their switch routed and bus mastering enabled.
pdt::Result<std::vector<std::unique_ptr<XdmaStreamDevice>>> open_xdma_stream_devices(
    vfio::DeviceBus& bus, const designs::Registry& registry, const OpenOptions& options);
// As above for designs already identified (tool_support::open_designs); takes their devices.
pdt::Result<std::vector<std::unique_ptr<XdmaStreamDevice>>> open_xdma_stream_devices(
    std::vector<identify::IdentifiedDesign> designs, const OpenOptions& options);

// As above for one identified design whose device it takes over (tests, simulated instances).
pdt::Result<std::unique_ptr<XdmaStreamDevice>> make_xdma_stream_device(identify::IdentifiedDesign design,
                                                                       const OpenOptions& options);

}  // namespace adapters
