// Lite/NiteFury Project-0: one PCI identity (10ee:7011 subsystem 0000:0000) for two boards,
// told apart by GPIO 0's input at BAR0+0x0 (byte-reversed ASCII "LITE" / "NITE"), which also
// decides the DDR3 size; the board version at +0x8 goes in the header.
#include <gtest/gtest.h>

#include <sstream>

#include "identify/identify.hpp"
#include "sim/design_sim.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace project0_test {

namespace {

const designs::Registry& registry() {
    static const designs::Registry r = designs::Registry::builtin().value();
    return r;
}

identify::Identification identify_names(const std::vector<std::string>& names, std::string& progress) {
    auto bus = sim::make_design_bus(names, registry()).value();
    std::ostringstream out;
    identify::IdentifyOptions options;
    options.progress = &out;
    auto found = identify::identify_designs(*bus, registry(), options);
    EXPECT_TRUE(found.ok());
    progress = out.str();
    return found.ok() ? std::move(found).value() : identify::Identification{};
}

}  // namespace

TEST(Project0, LiteAndNiteAreToldApartByTheirGpioAndSized) {
    std::string progress;
    const auto found = identify_names({"Nitefury_Project-0", "Litefury_Project-0"}, progress);
    ASSERT_EQ(found.designs.size(), 2u) << progress;
    EXPECT_EQ(found.designs[0].design->name, "Nitefury_Project-0");
    EXPECT_EQ(found.designs[0].dma_bridge->memory_size, 0x40000000u);  // 1 GiB
    EXPECT_EQ(found.designs[1].design->name, "Litefury_Project-0");
    EXPECT_EQ(found.designs[1].dma_bridge->memory_size, 0x20000000u);  // 512 MiB
    EXPECT_EQ(found.designs[0].identity.device_id, 0x7011);
    EXPECT_EQ(found.designs[0].identity.subsystem_vendor_id, 0);
    EXPECT_EQ(identify::format_text(found.designs[1]),
              "\nDesign Litefury Project-0 version 0x3:\n"  // fpga_sio's display name
              "  PCI device 0000:2d:00.0 rev 00 IOMMU group 85\n"
              "  DMA bridge bar 2 memory base offset 0x0 size 0x20000000\n"
              "  Channel ID  addr_alignment  len_granularity  num_address_bits\n"
              "       H2C 0               1                1                64\n"
              "       C2H 0               1                1                64\n"
              "  Quad SPI registers at bar 0 offset 0x10000\n"
              "  XADC registers at bar 0 offset 0x3000\n");
    EXPECT_TRUE(found.designs[1].warnings.empty());
}

TEST(Project0, UnknownBoardIdIsSkippedWithAMessage) {
    designs::Registry reg = designs::Registry::builtin().value();
    designs::Design other = *reg.find("Litefury_Project-0");
    other.simulation.registers[0].value = 0x4d495445;  // "MITE": neither board
    sim::DesignBus bus;
    const vfio::DeviceIdentity identity = sim::simulated_identity(other, sim::simulated_address(0), 41);
    bus.add(identity, [other, identity]() -> pdt::Result<std::unique_ptr<vfio::Device>> {
        sim::DesignInstance instance = PDT_TRY(sim::instantiate_design(other, identity));
        return std::unique_ptr<vfio::Device>(std::move(instance.device));
    });
    std::ostringstream out;
    identify::IdentifyOptions options;
    options.progress = &out;
    auto found = identify::identify_designs(bus, reg, options);
    ASSERT_TRUE(found.ok());
    EXPECT_TRUE(found->designs.empty());
    EXPECT_TRUE(found->failures.empty());
    EXPECT_NE(out.str().find("Skipping device 0000:15:00.0 (10ee:7011): its registers match none of "
                             "Litefury Project-0 or Nitefury Project-0\n"),
              std::string::npos)
        << out.str();
}

TEST(Project0, JsonCarriesTheBoardVersion) {
    std::string progress;
    const auto found = identify_names({"Nitefury_Project-0"}, progress);
    ASSERT_EQ(found.designs.size(), 1u);
    EXPECT_NE(identify::format_json(found.designs).find("\"board_version\": 3"), std::string::npos);
}

}  // namespace project0_test
