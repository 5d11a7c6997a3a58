#include <gtest/gtest.h>

#include "sim/peripheral_blocks.hpp"
#include "sim/quad_spi_model.hpp"

TEST(RegisterFileBlock, ResetValuesWritableMaskAndNarrowAccess) {
    sim::RegisterFileBlock block({{0x0, {0x12345678, 0x0000ffff}}, {0x4, {0x0, 0xffffffff}}});
    EXPECT_EQ(block.read(0x0, 4), 0x12345678u);
    EXPECT_EQ(block.read(0x8, 4), 0u) << "unlisted offsets read 0";
    block.write(0x0, 4, 0xaaaaaaaa);
    EXPECT_EQ(block.read(0x0, 4), 0x1234aaaau) << "read-only bits keep their value";
    EXPECT_EQ(block.read(0x1, 1), 0xaau);
    EXPECT_EQ(block.read(0x2, 2), 0x1234u);
    block.write(0x5, 1, 0x5a);
    EXPECT_EQ(block.read(0x4, 4), 0x5a00u);
    EXPECT_EQ(block.read(0x0, 8), 0x00005a001234aaaaull);
    block.reset();
    EXPECT_EQ(block.read(0x0, 4), 0x12345678u);
    EXPECT_EQ(block.read(0x4, 4), 0u);
}

TEST(PeripheralBlocks, ReadAsOnHardwareAfterReset) {
    auto quad_spi = sim::make_quad_spi_model("", 16, "reset-test").value();
    EXPECT_EQ(quad_spi->read(0x60, 4), 0x180u) << "SPICR";
    EXPECT_EQ(quad_spi->read(0x64, 4), 0x25u) << "SPISR: FIFOs empty, not selected as a slave";
    EXPECT_EQ(quad_spi->read(0x70, 4), 0x1u) << "SPISSR: slave 0 deselected";
    EXPECT_EQ(sim::make_iic_block()->read(0x104, 4), 0xc0u) << "SR: FIFOs empty";
    EXPECT_EQ(sim::make_bit_banged_i2c_gpio_block()->read(0x0, 4), 0x3u) << "SCL and SDA pulled high";
    EXPECT_EQ(sim::make_constant_block({0xC1310413})->read(0, 4), 0xC1310413u);
}

TEST(AxiStreamSwitchBlock, MiMuxTakesEffectOnlyAtCommit) {
    sim::AxiStreamSwitchBlock sw(2, 2);
    std::vector<std::vector<std::optional<unsigned>>> hooked;
    sw.set_routing_hook([&](const auto& routes) { hooked.push_back(routes); });
    EXPECT_EQ(sw.read(0x40, 4), 0x80000000u) << "every master disabled after reset";
    EXPECT_EQ(sw.read(0x44, 4), 0x80000000u);
    sw.write(0x40, 4, 1);  // master 0 <- slave 1
    sw.write(0x44, 4, 0);  // master 1 <- slave 0
    EXPECT_EQ(sw.read(0x40, 4), 1u);
    EXPECT_EQ(sw.committed_routes(), (std::vector<std::optional<unsigned>>{std::nullopt, std::nullopt}));
    EXPECT_TRUE(hooked.empty());
    sw.write(0x0, 4, 0x2);
    EXPECT_EQ(sw.commits(), 1u);
    EXPECT_EQ(sw.committed_routes(), (std::vector<std::optional<unsigned>>{1u, 0u}));
    ASSERT_EQ(hooked.size(), 1u);
    EXPECT_EQ(hooked[0], (std::vector<std::optional<unsigned>>{1u, 0u}));
    sw.write(0x44, 4, 0x80000000u);
    sw.write(0x0, 4, 0x2);
    EXPECT_EQ(hooked.back(), (std::vector<std::optional<unsigned>>{1u, std::nullopt}));
    sw.write(0x0, 4, 0x1);
    EXPECT_EQ(sw.commits(), 2u) << "only REG_UPDATE commits";
    sw.reset();
    EXPECT_EQ(sw.read(0x40, 4), 0x80000000u);
    EXPECT_EQ(hooked.back(), (std::vector<std::optional<unsigned>>{std::nullopt, std::nullopt}));
}

TEST(AxiStreamSwitchBlock, SlaveBeyondThePortsRoutesNothing) {
    sim::AxiStreamSwitchBlock sw(2, 2);
    sw.write(0x40, 4, 5);
    sw.write(0x0, 4, 0x2);
    EXPECT_EQ(sw.committed_routes()[0], std::nullopt);
}
