// The cmac peripheral of a design file (PG203 CMAC ports) and the built-in designs that have
// them, with fpga_sio's offsets (identify_pcie_fpga_design.c) and open-nic-shell's address map.
#include <gtest/gtest.h>

#include "design_text.hpp"
#include "designs/registry.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace cmac_fields_test {

namespace {

using design_text::error_of;
using design_text::parse;

std::string design_with(const std::string& peripherals) {
    return design_text::design(R"(, "peripherals": [)" + peripherals + "]");
}

std::vector<const designs::Peripheral*> cmac_ports(const designs::Design& d, uint8_t revision) {
    std::vector<const designs::Peripheral*> ports;
    for (const designs::Peripheral* p : d.peripherals_for_revision(revision))
        if (p->type == designs::PeripheralType::Cmac)
            ports.push_back(p);
    return ports;
}

}  // namespace

TEST(CmacFields, EveryFieldParses) {
    auto d = parse(design_with(R"({"type": "cmac", "bar": 0, "offset": "0x10000", "port": 1, "operation": "simplex_tx",
                                  "rs_fec": true, "gt_loopback": false, "drp_offset": "0xB000", "drp_min_revision": 2})"));
    ASSERT_TRUE(d.ok()) << d.error().message();
    const designs::Peripheral& p = d->peripherals.at(0);
    EXPECT_EQ(p.type, designs::PeripheralType::Cmac);
    EXPECT_EQ(p.frame_size(), 0x2000u) << "PG203 Register Space";
    EXPECT_EQ(p.cmac_port, 1u);
    EXPECT_EQ(p.cmac_operation, designs::CmacOperation::SimplexTx);
    EXPECT_TRUE(p.cmac_rs_fec);
    EXPECT_FALSE(p.cmac_gt_loopback);
    EXPECT_EQ(p.cmac_drp_offset, 0xB000u);
    EXPECT_EQ(p.cmac_drp_min_revision, 2);
}

TEST(CmacFields, Defaults) {
    auto d = parse(design_with(R"({"type": "cmac", "bar": 2, "offset": "0x8000", "port": 0})"));
    ASSERT_TRUE(d.ok()) << d.error().message();
    const designs::Peripheral& p = d->peripherals.at(0);
    EXPECT_EQ(p.cmac_operation, designs::CmacOperation::Duplex);
    EXPECT_FALSE(p.cmac_rs_fec);
    EXPECT_TRUE(p.cmac_gt_loopback);
    EXPECT_FALSE(p.cmac_drp_offset.has_value());
    EXPECT_STREQ(designs::to_string(designs::CmacOperation::SimplexRx), "simplex_rx");
}

TEST(CmacFields, ErrorsNameTheField) {
    EXPECT_NE(error_of(design_with(R"({"type": "cmac", "bar": 0, "offset": 0})")).find("peripherals[0].port"),
              std::string::npos);
    EXPECT_NE(error_of(design_with(R"({"type": "cmac", "bar": 0, "offset": 0, "port": 0, "operation": "half"})"))
                  .find("peripherals[0].operation"),
              std::string::npos);
    EXPECT_NE(error_of(design_with(R"({"type": "cmac", "bar": 0, "offset": 0, "port": 0, "drp_min_revision": 2})"))
                  .find("a DRP revision needs a drp_offset"),
              std::string::npos);
    EXPECT_NE(error_of(design_with(R"({"type": "cmac", "bar": 0, "offset": 0, "port": 0, "slaves": 2})"))
                  .find("unknown field"),
              std::string::npos);
    EXPECT_NE(error_of(design_with(R"({"type": "quad_spi", "bar": 0, "offset": "0xA800"},
                                      {"type": "cmac", "bar": 0, "offset": 0, "port": 0, "drp_offset": "0xA000"})"))
                  .find("overlaps"),
              std::string::npos)
        << "the DRP window is register space of its own";
}

TEST(CmacFields, BuiltInDesignsPlaceTheirPorts) {
    auto registry = designs::Registry::builtin();
    ASSERT_TRUE(registry.ok()) << registry.error().message();
    const designs::Design* duplex = registry->find("U200_100G_ether_duplex");
    ASSERT_NE(duplex, nullptr);
    const auto ports = cmac_ports(*duplex, 2);
    ASSERT_EQ(ports.size(), 2u);
    EXPECT_EQ(ports[0]->offset, 0x00000u);
    EXPECT_EQ(ports[1]->offset, 0x10000u);
    EXPECT_EQ(ports[1]->cmac_port, 1u);
    EXPECT_EQ(ports[0]->cmac_drp_offset, 0x0A000u);
    EXPECT_EQ(ports[1]->cmac_drp_offset, 0x0B000u);
    EXPECT_EQ(ports[0]->cmac_drp_min_revision, 2);
    EXPECT_TRUE(ports[0]->cmac_rs_fec);

    const designs::Design* simplex = registry->find("U200_100G_ether_simplex_tx");
    ASSERT_NE(simplex, nullptr);
    EXPECT_EQ(cmac_ports(*simplex, 1).size(), 1u) << "revisions before 2 have one port";
    ASSERT_EQ(cmac_ports(*simplex, 2).size(), 2u);
    EXPECT_EQ(cmac_ports(*simplex, 2)[0]->cmac_operation, designs::CmacOperation::SimplexTx);
    EXPECT_FALSE(cmac_ports(*simplex, 2)[0]->cmac_drp_offset.has_value());

    const designs::Design* nic = registry->find("open-nic");
    ASSERT_NE(nic, nullptr);
    const auto nic_ports = cmac_ports(*nic, 0);
    ASSERT_EQ(nic_ports.size(), 2u);
    EXPECT_EQ(nic_ports[0]->bar, 2u);
    EXPECT_EQ(nic_ports[0]->offset, 0x8000u);
    EXPECT_EQ(nic_ports[1]->offset, 0xC000u);

    const designs::Design* ibert = registry->find("U200_ibert_100G_ether");
    ASSERT_NE(ibert, nullptr);
    EXPECT_TRUE(cmac_ports(*ibert, 255).empty()) << "its transceivers run IBERT, no CMAC";
}

}  // namespace cmac_fields_test
