// Acceptance test of F23 (identify): for every built-in simulated design, the design block that
// display_identified_pcie_fpga_designs prints is fpga_sio's, line for line. The expected lines
// are built here, independently of identify/src/report.cpp, with fpga_sio's printf format
// strings (quoted as they are in its display_identified_pcie_fpga_designs.c and
// identify_pcie_fpga_design.c) applied to the design's data, the device's config space and what
// identification read. Our own lines (the PF's card, the CMS place) are allowed only as whole
// lines of their own, in the same 2-space style, and are checked too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

#include "identify/identify.hpp"
#include "sim/design_sim.hpp"
#include "test_support/text.hpp"

namespace {

const designs::Registry& fpga_sio_format_registry() {
    static const designs::Registry r = designs::Registry::builtin().value();
    return r;
}

using test_support::c_format;

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// fpga_sio's fpga_design_names[] where it differs from our key (the other 42 are the key).
const std::map<std::string, std::string> kFpgaSioNames = {
    {"dma_blkram", "dma_blkram (TEF1001)"},
    {"i2c_probe", "i2c_probe (TEF1001) or TOSING_160T_quad_spi"},
    {"Litefury_Project-0", "Litefury Project-0"},
    {"Nitefury_Project-0", "Nitefury Project-0"},
    {"XCKU5P_DUAL_QSFP_qdma_ram_PF0", "XCKU5P_DUAL_QSFP_qdma_ram (quad SPI)"},
    {"XCKU5P_DUAL_QSFP_qdma_ram_PF1", "XCKU5P_DUAL_QSFP_qdma_ram (SYSMON)"},
    {"XCKU5P_DUAL_QSFP_qdma_ram_PF2", "XCKU5P_DUAL_QSFP_qdma_ram (user access)"},
    {"XCKU5P_DUAL_QSFP_qdma_ram_PF3", "XCKU5P_DUAL_QSFP_qdma_ram (UART)"},
};

std::string fpga_sio_name(const designs::Design& design) {
    const auto it = kFpgaSioNames.find(design.name);
    return it == kFpgaSioNames.end() ? design.name : it->second;
}

void add_qdma_lines(const identify::QdmaInfo& q, std::vector<std::string>& out) {
    if (q.memory_size > 0)
        out.push_back(c_format("  QDMA bar %u memory base offset 0x%zx size 0x%zx", q.bar,
                               static_cast<size_t>(q.memory_base), static_cast<size_t>(q.memory_size)));
    out.push_back(c_format("  rtl_version                      : %s", q.rtl_version.c_str()));
    out.push_back(c_format("  vivado_release                   : %s", q.vivado_release.c_str()));
    out.push_back(c_format("  ip_type                          : %s", q.ip_type.c_str()));
    out.push_back(c_format("  device_type                      : %s", q.device_type.c_str()));
    if (!q.supported)
        return;
    const auto yes_no = [](bool b) { return b ? "yes" : "no"; };
    out.push_back(c_format("  Number of PFs supported          : %u", q.num_pfs));
    out.push_back(c_format("  Total number of queues supported : %u", q.num_queues));
    out.push_back(c_format("  MM channels                      : %u", q.mm_channels));
    out.push_back(c_format("  FLR Present                      : %s", yes_no(q.flr_present)));
    out.push_back(c_format("  ST enabled                       : %s", yes_no(q.st_enabled)));
    out.push_back(c_format("  MM enabled                       : %s", yes_no(q.mm_enabled)));
    out.push_back(c_format("  Mailbox enabled                  : %s", yes_no(q.mailbox_enabled)));
    out.push_back(c_format("  MM completion enabled            : %s", yes_no(q.mm_completion_enabled)));
    out.push_back(c_format("  Debug Mode enabled               : %s", yes_no(q.debug_mode)));
    out.push_back(c_format("  Desc Engine Mode                 : %s", q.desc_engine_mode.c_str()));
}

void add_peripheral_lines(const identify::IdentifiedDesign& d, uint8_t revision, std::vector<std::string>& out) {
    // fpga_sio's order and names: Quad SPI, XADC, SYSMON, IIC, bit-banged I2C GPIO.
    const std::pair<designs::PeripheralType, const char*> order[] = {
        {designs::PeripheralType::QuadSpi, "Quad SPI"}, {designs::PeripheralType::Xadc, "XADC"},
        {designs::PeripheralType::Sysmon, "SYSMON"},    {designs::PeripheralType::Iic, "IIC"},
        {designs::PeripheralType::BitBangedI2cGpio, "bit-banged I2C GPIO"}};
    for (const auto& [type, name] : order)
        for (const designs::Peripheral* p : d.design->peripherals_for_revision(revision))
            if (p->type == type)
                out.push_back(c_format("  %s registers at bar %u offset 0x%lx", name, p->bar,
                                       static_cast<unsigned long>(p->offset)));
}

void add_switch_lines(const identify::SwitchInfo& sw, std::vector<std::string>& out) {
    std::vector<std::string> routes;
    for (unsigned m = 0; m < sw.routes.size(); ++m)
        if (sw.routes[m])
            routes.push_back(c_format("    Master %2u -> Slave %2u", m, *sw.routes[m]));
    if (routes.empty()) {
        out.push_back(c_format("  All %u master ports in AXI4-Stream Switch are disabled",
                               static_cast<unsigned>(sw.routes.size())));
        return;
    }
    out.push_back("  Enabled AXI4-Stream Switch route(s):");
    out.insert(out.end(), routes.begin(), routes.end());
}

// fpga_sio's display_cmac_ports (cmac_register_access.c): each CMAC port's place, core mode and
// version, then the status registers of the sides it was built with, each read twice. The
// registers are read here through the BAR (PG203: CORE_MODE_REG 0x20, CORE_VERSION_REG 0x24,
// STAT_TX_STATUS_REG 0x200, STAT_RX_STATUS_REG 0x204, STAT_RX_BLOCK_LOCK_REG 0x20C,
// STAT_RX_LANE_SYNC_REG 0x210, the lane error registers 0x214..0x220, STAT_RSFEC_STATUS_REG 0x1004).
void add_cmac_lines(const identify::IdentifiedDesign& d, uint8_t revision, std::vector<std::string>& out) {
    const char* const core_mode_names[] = {"CAUI10", "CAUI4", "Runtime Switchable CAUI10", "Runtime Switchable CAUI4"};
    for (const designs::Peripheral* p : d.design->peripherals_for_revision(revision)) {
        if (p->type != designs::PeripheralType::Cmac)
            continue;
        vfio::Bar* bar = d.device->bar(p->bar).value();
        const auto reg = [&](uint64_t offset) { return static_cast<uint32_t>(bar->read(p->offset + offset, 4).value()); };
        const auto status = [&](uint64_t offset, const char* name) {
            const uint32_t initial = reg(offset);
            const uint32_t subsequent = reg(offset);
            out.push_back(initial == subsequent
                              ? c_format("    %s: 0x%08x", name, initial)
                              : c_format("    %s: 0x%08x -> 0x%08x (changed bits 0x%08x)", name, initial, subsequent,
                                         initial ^ subsequent));
        };
        const std::string name = c_format("CMAC port %u", p->cmac_port);
        out.push_back(c_format("  %s registers at bar %u offset 0x%lx", name.c_str(), p->bar,
                               static_cast<unsigned long>(p->offset)));
        out.push_back(c_format("    Core mode: %s", core_mode_names[reg(0x20) & 3]));
        const uint32_t version = reg(0x24);
        out.push_back(c_format("    Core version: %u.%u", (version >> 8) & 0xff, version & 0xff));
        if (p->cmac_operation != designs::CmacOperation::SimplexRx)
            status(0x200, "TX Status");
        if (p->cmac_operation == designs::CmacOperation::SimplexTx)
            continue;
        status(0x204, "RX Status");
        status(0x20C, "RX Block Lock");
        status(0x210, "RX Lane Sync");
        status(0x214, "RX Lane Sync Error");
        status(0x218, "RX Lane Alignment Marker Error");
        status(0x21C, "RX Lane Alignment Marker Length Error");
        status(0x220, "RX Lane Alignment Marker Repeat Error");
        if (p->cmac_rs_fec)
            status(0x1004, "RSFEC Status");
    }
}

// fpga_sio's lines for the identified design `d`, revision from the device's config space.
std::vector<std::string> fpga_sio_lines(const identify::IdentifiedDesign& d, uint8_t revision) {
    std::vector<std::string> out;
    std::string header = c_format("\nDesign %s", fpga_sio_name(*d.design).c_str());
    if (d.design->version_register)  // fpga_sio: the Lite/NiteFury Project-0 designs
        header += c_format(" version 0x%x", d.board_version.value_or(0));
    header += c_format(":\n");
    std::string pci = c_format("  PCI device %s rev %02x IOMMU group %s", d.identity.address.to_string().c_str(),
                               revision, std::to_string(d.identity.iommu_group).c_str());
    if (!d.physical_slot.empty())
        pci += c_format("  physical slot %s\n", d.physical_slot.c_str());
    pci += c_format("\n");
    for (const std::string& text : {header, pci})
        for (const std::string& line : split_lines(text))
            out.push_back(line);
    if (d.dma_bridge) {
        const identify::DmaBridgeInfo& b = *d.dma_bridge;
        out.push_back(b.memory_size > 0 ? c_format("  DMA bridge bar %u memory base offset 0x%zx size 0x%zx", b.bar,
                                                   static_cast<size_t>(b.memory_base), static_cast<size_t>(b.memory_size))
                                        : c_format("  DMA bridge bar %u AXI Stream", b.bar));
        out.push_back(c_format("  Channel ID  addr_alignment  len_granularity  num_address_bits"));
        for (const auto* list : {&b.channels.h2c, &b.channels.c2h})
            for (const xdma::ChannelInfo& c : *list)
                out.push_back(c_format("       %s %u  %14u  %15u  %16u", list == &b.channels.h2c ? "H2C" : "C2H",
                                       c.channel, c.address_alignment, c.length_granularity, c.address_bits));
    }
    if (d.qdma)
        add_qdma_lines(*d.qdma, out);
    if (d.user_access_timestamp) {
        const designs::BuildTimestamp t = designs::BuildTimestamp::decode(*d.user_access_timestamp);
        const std::string when =
            c_format("%02u/%02u/%04u %02u:%02u:%02u", t.day, t.month, t.year, t.hour, t.minute, t.second);
        out.push_back(c_format("  User access build timestamp : %08X - %s", *d.user_access_timestamp, when.c_str()));
    }
    for (const identify::DnaInfo& dna : d.dna)
        out.push_back(c_format("  UltraScale DNA[%u]: %08X%08X%08X", dna.slr, dna.words[0], dna.words[1], dna.words[2]));
    add_peripheral_lines(d, revision, out);
    if (d.axi_switch)
        add_switch_lines(*d.axi_switch, out);
    add_cmac_lines(d, revision, out);
    return out;
}

// Our lines that fpga_sio does not print, each a whole line in the same 2-space style.
std::vector<std::string> our_own_lines(const identify::IdentifiedDesign& d, uint8_t revision) {
    std::vector<std::string> out;
    if (d.design->card)
        out.push_back(c_format("  Card %s physical function %u", d.design->card->name.c_str(),
                               d.design->card->physical_function));
    for (const designs::Peripheral* p : d.design->peripherals_for_revision(revision))
        if (p->type == designs::PeripheralType::Cms)
            out.push_back(c_format("  CMS registers at bar %u offset 0x%lx", p->bar, static_cast<unsigned long>(p->offset)));
    return out;
}

// Compares our block with fpga_sio's, after taking out our own lines (checked separately).
void expect_fpga_sio_block(const identify::IdentifiedDesign& d) {
    ASSERT_TRUE(d.device);
    const uint8_t revision = d.device->config_read8(vfio::cfg::REVISION_ID).value();
    const std::vector<std::string> ours = our_own_lines(d, revision);
    std::vector<std::string> actual, extra;
    for (const std::string& line : split_lines(identify::format_text(d)))
        (std::find(ours.begin(), ours.end(), line) != ours.end() ? extra : actual).push_back(line);
    EXPECT_EQ(extra, ours) << d.design->name;
    const std::vector<std::string> expected = fpga_sio_lines(d, revision);
    for (size_t i = 0; i < std::max(actual.size(), expected.size()); ++i)
        EXPECT_EQ(i < actual.size() ? actual[i] : "<none>", i < expected.size() ? expected[i] : "<none>")
            << d.design->name << " line " << i + 1;
}

// One built-in design on a simulated bus, identified; the bus outlives the devices (declared first).
struct OneDesign {
    std::unique_ptr<sim::DesignBus> bus;
    identify::Identification found;
};

OneDesign identify_one(const std::string& name) {
    OneDesign one;
    auto bus = sim::make_design_bus({name}, fpga_sio_format_registry());
    EXPECT_TRUE(bus.ok()) << name;
    if (!bus.ok())
        return one;
    one.bus = std::move(bus).value();
    auto found = identify::identify_designs(*one.bus, fpga_sio_format_registry(), {});
    EXPECT_TRUE(found.ok()) << name;
    if (found.ok())
        one.found = std::move(found).value();
    for (identify::IdentifiedDesign& d : one.found.designs)  // as display_identified_pcie_fpga_designs does
        EXPECT_TRUE(identify::read_cmac_ports(*d.device, d).empty()) << name;
    return one;
}

}  // namespace

TEST(FpgaSioFormat, EveryBuiltInDesignBlockIsFpgaSiosLineForLine) {
    size_t checked = 0;
    for (const designs::Design& design : fpga_sio_format_registry().designs()) {
        const OneDesign one = identify_one(design.name);
        ASSERT_EQ(one.found.designs.size(), 1u) << design.name;
        expect_fpga_sio_block(one.found.designs[0]);
        ++checked;
    }
    EXPECT_EQ(checked, 50u);  // fpga_sio's 50 designs, each built in
}

// The display names are fpga_sio's; the key stays ours.
TEST(FpgaSioFormat, DisplayNamesAreFpgaSiosAndKeysStay) {
    for (const auto& [key, shown] : kFpgaSioNames) {
        const designs::Design* design = fpga_sio_format_registry().find(key);
        ASSERT_NE(design, nullptr) << key;
        EXPECT_EQ(design->text_name(), shown);
        EXPECT_EQ(fpga_sio_format_registry().find(shown), nullptr) << shown;
    }
}

// With a physical slot fpga_sio ends the PCI device line twice: an empty line follows it.
TEST(FpgaSioFormat, PhysicalSlotLineAndTheEmptyLineAfterIt) {
    for (const char* name : {"TEF1001_dma_stream_loopback", "XCKU5P_DUAL_QSFP_qdma_ram_PF0", "U200_slr_ids"}) {
        OneDesign one = identify_one(name);
        identify::Identification& found = one.found;
        ASSERT_EQ(found.designs.size(), 1u) << name;
        found.designs[0].physical_slot = "3";
        expect_fpga_sio_block(found.designs[0]);
        const std::vector<std::string> lines = split_lines(identify::format_text(found.designs[0]));
        ASSERT_GE(lines.size(), 4u);
        EXPECT_EQ(lines[2], "  PCI device 0000:15:00.0 rev " +
                                c_format("%02x", found.designs[0].device->config_read8(vfio::cfg::REVISION_ID).value()) +
                                " IOMMU group 41  physical slot 3");
        EXPECT_EQ(lines[3], "");
    }
}

// The channel table of fpga_sio's example, values 1, 1, 64: every number under the end of its
// heading, and a design block starting with an empty line.
TEST(FpgaSioFormat, ChannelTableColumnsAndLeadingEmptyLine) {
    const OneDesign one = identify_one("TEF1001_dma_stream_loopback");
    ASSERT_EQ(one.found.designs.size(), 1u);
    const std::string text = identify::format_text(one.found.designs[0]);
    EXPECT_EQ(text.rfind("\nDesign TEF1001_dma_stream_loopback:\n  PCI device 0000:15:00.0 rev ", 0), 0u) << text;
    EXPECT_NE(text.find("  Channel ID  addr_alignment  len_granularity  num_address_bits\n"
                        "       H2C 0               1                1                64\n"
                        "       H2C 1               1                1                64\n"
                        "       C2H 0               1                1                64\n"),
              std::string::npos)
        << text;
}

// Enabled routes (the built-in designs' switches read all disabled at reset): each route line is
// "    Master %2u -> Slave %2u", two-digit ports included.
TEST(FpgaSioFormat, SwitchRouteLines) {
    OneDesign one = identify_one("XCKU5P_DUAL_QSFP_dma_stream_loopback");
    ASSERT_EQ(one.found.designs.size(), 1u);
    identify::IdentifiedDesign& d = one.found.designs[0];
    ASSERT_TRUE(d.axi_switch);
    d.axi_switch->routes = {1u, std::nullopt, 0u, 3u};
    expect_fpga_sio_block(d);
    d.axi_switch->routes.assign(16, std::nullopt);
    d.axi_switch->routes[12] = 10u;
    expect_fpga_sio_block(d);
    const std::string text = identify::format_text(d);
    EXPECT_NE(text.find("\n  Enabled AXI4-Stream Switch route(s):\n    Master 12 -> Slave 10\n"), std::string::npos)
        << text;
    d.axi_switch->routes = {3u};
    EXPECT_NE(identify::format_text(d).find("\n    Master  0 -> Slave  3\n"), std::string::npos);
}
