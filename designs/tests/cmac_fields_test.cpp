// The cmac peripheral of a design file (PG203 CMAC ports) and the built-in designs that have
// them, with fpga_sio's offsets (identify_pcie_fpga_design.c) and open-nic-shell's address map.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "design_text.hpp"
#include "designs/registry.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace cmac_fields_test {

namespace {

using design_text::builtins;
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

// A cmac peripheral's error names its field or problem: `part` is in the error of the design with
// `peripherals`.
TEST(CmacFields, ErrorsNameTheField) {
    struct PeripheralError {
        const char* peripherals;
        const char* part;
        const char* why;
    };
    const PeripheralError errors[] = {
        {R"({"type": "cmac", "bar": 0, "offset": 0})", "peripherals[0].port", ""},
        {R"({"type": "cmac", "bar": 0, "offset": 0, "port": 0, "operation": "half"})", "peripherals[0].operation", ""},
        {R"({"type": "cmac", "bar": 0, "offset": 0, "port": 0, "drp_min_revision": 2})",
         "a DRP revision needs a drp_offset", ""},
        {R"({"type": "cmac", "bar": 0, "offset": 0, "port": 0, "slaves": 2})", "unknown field", ""},
        {R"({"type": "quad_spi", "bar": 0, "offset": "0xA800"},
            {"type": "cmac", "bar": 0, "offset": 0, "port": 0, "drp_offset": "0xA000"})",
         "overlaps", "the DRP window is register space of its own"},
    };
    for (const PeripheralError& e : errors)
        EXPECT_NE(error_of(design_with(e.peripherals)).find(e.part), std::string::npos)
            << e.peripherals << ": " << e.why;
}

// How many cmac ports a built-in design has at a revision.
TEST(CmacFields, BuiltInDesignsHaveTheirPorts) {
    struct PortCount {
        const char* design;
        uint8_t revision;
        size_t ports;
        const char* why;
    };
    const PortCount counts[] = {
        {"U200_100G_ether_duplex", 2, 2, ""},
        {"U200_100G_ether_simplex_tx", 1, 1, "revisions before 2 have one port"},
        {"U200_100G_ether_simplex_tx", 2, 2, ""},
        {"open-nic", 0, 2, ""},
        {"U200_ibert_100G_ether", 255, 0, "its transceivers run IBERT, no CMAC"},
    };
    const designs::Registry registry = builtins();
    for (const PortCount& c : counts) {
        const designs::Design* d = registry.find(c.design);
        ASSERT_NE(d, nullptr) << c.design;
        EXPECT_EQ(cmac_ports(*d, c.revision).size(), c.ports)
            << c.design << " revision " << +c.revision << ": " << c.why;
    }
}

// Each port of the built-in designs where fpga_sio (and open-nic-shell's address map) place it.
TEST(CmacFields, BuiltInDesignsPlaceTheirPorts) {
    struct PlacedPort {
        const char* design;
        uint8_t revision;
        size_t index;  // among the design's cmac ports at that revision
        unsigned bar;
        uint64_t offset;
        unsigned port;
        designs::CmacOperation operation;
        std::optional<uint64_t> drp_offset;
        uint8_t drp_min_revision;
        bool rs_fec;
    };
    using designs::CmacOperation;
    const PlacedPort placed[] = {
        {"U200_100G_ether_duplex", 2, 0, 0, 0x00000, 0, CmacOperation::Duplex, 0x0A000, 2, true},
        {"U200_100G_ether_duplex", 2, 1, 0, 0x10000, 1, CmacOperation::Duplex, 0x0B000, 2, true},
        {"U200_100G_ether_simplex_tx", 2, 0, 0, 0x00000, 0, CmacOperation::SimplexTx, std::nullopt, 0, true},
        {"U200_100G_ether_simplex_tx", 2, 1, 0, 0x10000, 1, CmacOperation::SimplexTx, std::nullopt, 0, true},
        {"open-nic", 0, 0, 2, 0x8000, 0, CmacOperation::Duplex, std::nullopt, 0, true},
        {"open-nic", 0, 1, 2, 0xC000, 1, CmacOperation::Duplex, std::nullopt, 0, true},
    };
    const designs::Registry registry = builtins();
    for (const PlacedPort& e : placed) {
        const designs::Design* d = registry.find(e.design);
        ASSERT_NE(d, nullptr) << e.design;
        const auto ports = cmac_ports(*d, e.revision);
        ASSERT_LT(e.index, ports.size()) << e.design;
        const designs::Peripheral& p = *ports[e.index];
        SCOPED_TRACE(std::string(e.design) + " cmac port " + std::to_string(e.index));
        EXPECT_EQ(p.bar, e.bar);
        EXPECT_EQ(p.offset, e.offset);
        EXPECT_EQ(p.cmac_port, e.port);
        EXPECT_EQ(p.cmac_operation, e.operation);
        EXPECT_EQ(p.cmac_drp_offset, e.drp_offset);
        EXPECT_EQ(p.cmac_drp_min_revision, e.drp_min_revision);
        EXPECT_EQ(p.cmac_rs_fec, e.rs_fec);
    }
}

}  // namespace cmac_fields_test
