#include <cstdio>
#include <string>

#include "base/format.hpp"
#include "identify/identify.hpp"

namespace identify {
namespace {

using pdt::format;

std::string dma_bridge_lines(const DmaBridgeInfo& dma) {
    std::string text = dma.mode == designs::DmaMode::Stream
                           ? format("  DMA bridge bar %u AXI Stream\n", dma.bar)
                           : format("  DMA bridge bar %u memory base offset 0x%llx size 0x%llx\n", dma.bar,
                                    static_cast<unsigned long long>(dma.memory_base),
                                    static_cast<unsigned long long>(dma.memory_size));
    // Each number right-aligned under the last letter of its heading; all H2C rows, then C2H.
    text += "  Channel ID  addr_alignment  len_granularity  num_address_bits\n";
    for (const auto* list : {&dma.channels.h2c, &dma.channels.c2h})
        for (const xdma::ChannelInfo& c : *list)
            text += format("       %s %u  %14u  %15u  %16u\n", streams::to_string(c.direction), c.channel,
                           c.address_alignment, c.length_granularity, c.address_bits);
    return text;
}

// fpga_sio's QDMA lines: the memory (when described), the version, then the capabilities of a
// supported IP.
std::string qdma_lines(const QdmaInfo& q) {
    std::string text;
    if (q.memory_size > 0)
        text += format("  QDMA bar %u memory base offset 0x%llx size 0x%llx\n", q.bar,
                       static_cast<unsigned long long>(q.memory_base), static_cast<unsigned long long>(q.memory_size));
    const auto line = [&](const char* label, const std::string& value) { text += format("  %-33s: %s\n", label, value.c_str()); };
    const auto yes_no = [](bool value) { return std::string(value ? "yes" : "no"); };
    line("rtl_version", q.rtl_version);
    line("vivado_release", q.vivado_release);
    line("ip_type", q.ip_type);
    line("device_type", q.device_type);
    if (!q.supported)
        return text;
    line("Number of PFs supported", std::to_string(q.num_pfs));
    line("Total number of queues supported", std::to_string(q.num_queues));
    line("MM channels", std::to_string(q.mm_channels));
    line("FLR Present", yes_no(q.flr_present));
    line("ST enabled", yes_no(q.st_enabled));
    line("MM enabled", yes_no(q.mm_enabled));
    line("Mailbox enabled", yes_no(q.mailbox_enabled));
    line("MM completion enabled", yes_no(q.mm_completion_enabled));
    line("Debug Mode enabled", yes_no(q.debug_mode));
    line("Desc Engine Mode", q.desc_engine_mode);
    return text;
}

std::string switch_lines(const SwitchInfo& sw) {
    std::string routes;
    for (size_t m = 0; m < sw.routes.size(); ++m)
        if (sw.routes[m])
            routes += format("    Master %2u -> Slave %2u\n", static_cast<unsigned>(m), *sw.routes[m]);
    if (routes.empty())
        return format("  All %zu master ports in AXI4-Stream Switch are disabled\n", sw.routes.size());
    return "  Enabled AXI4-Stream Switch route(s):\n" + routes;
}

// fpga_sio's CMAC port lines: where it is, its core mode and version, then each status register
// of the sides the port was built with, once when both reads agree, else both and what changed.
std::string cmac_status_line(const char* name, const ethernet::StatusRegister& reg) {
    if (reg.latched == reg.present)
        return format("    %s: 0x%08x\n", name, reg.present);
    return format("    %s: 0x%08x -> 0x%08x (changed bits 0x%08x)\n", name, reg.latched, reg.present,
                  reg.latched ^ reg.present);
}

std::string cmac_lines(const CmacPortInfo& c) {
    static const char* const kCoreModes[] = {"CAUI10", "CAUI4", "Runtime Switchable CAUI10", "Runtime Switchable CAUI4"};
    const ethernet::CmacStatus& s = c.status;
    std::string text = format("  CMAC port %u registers at bar %u offset 0x%llx\n", c.build.port, c.bar,
                              static_cast<unsigned long long>(c.offset));
    text += format("    Core mode: %s\n", kCoreModes[s.core_mode & 3]);
    text += format("    Core version: %u.%u\n", s.version_major, s.version_minor);
    if (c.build.tx)
        text += cmac_status_line("TX Status", s.stat_tx_status);
    if (!c.build.rx)
        return text;
    text += cmac_status_line("RX Status", s.stat_rx_status);
    text += cmac_status_line("RX Block Lock", s.stat_rx_block_lock);
    text += cmac_status_line("RX Lane Sync", s.stat_rx_lane_sync);
    text += cmac_status_line("RX Lane Sync Error", s.stat_rx_lane_sync_err);
    text += cmac_status_line("RX Lane Alignment Marker Error", s.stat_rx_lane_am_err);
    text += cmac_status_line("RX Lane Alignment Marker Length Error", s.stat_rx_lane_am_len_err);
    text += cmac_status_line("RX Lane Alignment Marker Repeat Error", s.stat_rx_lane_am_repeat_err);
    if (c.build.rs_fec)
        text += cmac_status_line("RSFEC Status", s.stat_rsfec_status);
    return text;
}

std::string peripheral_lines(const IdentifiedDesign& d, designs::PeripheralType type) {
    std::string text;
    for (const PeripheralInfo& p : d.peripherals)
        if (p.type == type)
            text += format("  %s registers at bar %u offset 0x%llx\n", designs::display_name(p.type), p.bar,
                           static_cast<unsigned long long>(p.offset));
    return text;
}

}  // namespace

std::string format_text(const IdentifiedDesign& d) {
    // fpga_sio's block: an empty line, the header, every line under it indented by 2. With a
    // physical slot the PCI device line is followed by an empty line (fpga_sio ends it twice).
    std::string text = "\nDesign " + d.design->text_name() +
                       (d.board_version ? format(" version 0x%x", *d.board_version) : "") + ":\n";
    text += format("  PCI device %s rev %02x IOMMU group %d", d.identity.address.to_string().c_str(),
                   static_cast<unsigned>(d.identity.revision), d.identity.iommu_group);
    if (!d.physical_slot.empty())
        text += format("  physical slot %s\n", d.physical_slot.c_str());
    text += "\n";
    if (d.design->card)  // ours only: one physical function of a multi-function card
        text += format("  Card %s physical function %u\n", d.design->card->name.c_str(), d.design->card->physical_function);
    if (d.dma_bridge)
        text += dma_bridge_lines(*d.dma_bridge);
    if (d.qdma)
        text += qdma_lines(*d.qdma);
    if (d.user_access_timestamp)
        text += format("  User access build timestamp : %08X - %s\n", *d.user_access_timestamp,
                       designs::BuildTimestamp::decode(*d.user_access_timestamp).to_string().c_str());
    for (const DnaInfo& dna : d.dna)
        text += format("  UltraScale DNA[%u]: %08X%08X%08X\n", dna.slr, dna.words[0], dna.words[1], dna.words[2]);
    // Peripherals in fpga_sio's fixed order: Quad SPI, XADC, SYSMON, IIC, bit-banged I2C GPIO;
    // then the switch routes; then the CMAC ports; then the CMS (fpga_sio prints it last).
    for (designs::PeripheralType type : designs::kPeripheralTypes)
        if (type != designs::PeripheralType::Cms)
            text += peripheral_lines(d, type);
    if (d.axi_switch)
        text += switch_lines(*d.axi_switch);
    for (const CmacPortInfo& port : d.cmac_ports)
        text += cmac_lines(port);
    // Identification is read-only: the CMS is shown by place only, since its firmware (and so its
    // configuration lines in fpga_sio) needs MB_RESETN_REG released, a write (PG348 Resets).
    text += peripheral_lines(d, designs::PeripheralType::Cms);
    return text;
}

}  // namespace identify
