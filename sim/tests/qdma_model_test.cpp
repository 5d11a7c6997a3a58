// The QDMA identification register model (sim/qdma_model.hpp) and its place in simulated
// instances of the QDMA designs.
#include <gtest/gtest.h>

#include "builtin_instance.hpp"
#include "sim/design_sim.hpp"
#include "sim/qdma_model.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace qdma_model_test {

namespace {

using namespace sim::qdma_csr;

using sim_test::instance;
using sim_test::read32;
const designs::Registry& registry() { return sim_test::builtin_registry(); }

}  // namespace

TEST(QdmaModel, RegistersEncodeTheCapabilities) {
    auto block = sim::make_qdma_csr_block(designs::QdmaSimulation{4, 2048, true, true}, 0x4);
    EXPECT_EQ(block->read(CONFIG_BLOCK_ID, 4) >> 16, QDMA_IDENTIFIER);
    EXPECT_EQ(block->read(GLBL2_PF_BARLITE_INT, 4), 0x4u | 0x4u << 6 | 0x4u << 12 | 0x4u << 18);
    EXPECT_EQ(block->read(GLBL2_CHANNEL_MDMA, 4), 0x30101u);
    EXPECT_EQ(block->read(GLBL2_CHANNEL_QDMA_CAP, 4), 2048u);
    // Soft IP, Vivado release 2, EQDMA 5.0, RTL base; FLR present only.
    EXPECT_EQ(block->read(GLBL2_MISC_CAP, 4), 0x02200002u);
    auto st_only = sim::make_qdma_csr_block(designs::QdmaSimulation{1, 512, true, false}, 0);
    EXPECT_EQ(st_only->read(GLBL2_PF_BARLITE_INT, 4), 0u) << "no AXI4-Lite BAR: no PF mapped";
    EXPECT_EQ(st_only->read(GLBL2_CHANNEL_MDMA, 4), 0x30000u);
    EXPECT_EQ(st_only->read(GLBL2_CHANNEL_QDMA_CAP, 4), 512u);
}

TEST(QdmaModel, RegistersAreReadOnly) {
    auto block = sim::make_qdma_csr_block(designs::QdmaSimulation{}, 0x4);
    for (uint64_t offset : {CONFIG_BLOCK_ID, GLBL2_PF_BARLITE_INT, GLBL2_CHANNEL_MDMA, GLBL2_CHANNEL_QDMA_CAP, GLBL2_MISC_CAP}) {
        const uint64_t before = block->read(offset, 4);
        block->write(offset, 4, ~before & 0xffffffffu);
        EXPECT_EQ(block->read(offset, 4), before) << offset;
    }
}

TEST(QdmaModel, PlacedInTheQdmaBarOfEachQdmaDesign) {
    for (const designs::Design& d : registry().designs()) {
        if (!d.qdma)
            continue;
        sim::DesignInstance made = instance(d.name);
        EXPECT_EQ(read32(*made.device, d.qdma->bar, CONFIG_BLOCK_ID) >> 16, QDMA_IDENTIFIER) << d.name;
        EXPECT_GE(made.device->bar(d.qdma->bar).value()->size(), kFrameSize) << d.name;
        EXPECT_FALSE(made.xdma) << d.name << ": a QDMA design has no XDMA model";
        ASSERT_TRUE(made.qdma) << d.name;
        EXPECT_EQ(made.qdma->config().caps, d.simulation.qdma) << d.name;
        EXPECT_EQ(made.qdma->config().card_memory_size, d.qdma->memory_size) << d.name;
        EXPECT_EQ(made.qdma->config().function, d.card ? d.card->physical_function : 0u) << d.name;
    }
    sim::DesignInstance pf1 = instance("XCKU5P_DUAL_QSFP_qdma_ram_PF1");
    EXPECT_EQ(read32(*pf1.device, 0, GLBL2_PF_BARLITE_INT), 0x4u | 0x4u << 6 | 0x4u << 12 | 0x4u << 18)
        << "4 PFs, each mapping BAR2";
    EXPECT_EQ(pf1.device->identity().subsystem_device_id, 0x000d);
    sim::DesignInstance nic = instance("open-nic");
    EXPECT_EQ(nic.device->identity().device_id, 0x903f);
    EXPECT_EQ(read32(*nic.device, 0, GLBL2_CHANNEL_MDMA), 0x30000u) << "streaming only";
    EXPECT_EQ(read32(*nic.device, 0, GLBL2_CHANNEL_QDMA_CAP), 2048u);
}

TEST(QdmaModel, BarTooSmallForTheFrameLeavesItOut) {
    designs::Registry reg;
    ASSERT_TRUE(reg.add_text(R"({"name": "small", "match": {"subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x0100"},
        "qdma": {"bar": 0}, "simulation": {"bar_sizes": {"0": "0x1000"}}})", "small.json").ok());
    const designs::Design& d = *reg.find("small");
    auto made = sim::instantiate_design(d, sim::simulated_identity(d, sim::simulated_address(0), 41), true);
    ASSERT_TRUE(made.ok()) << made.error().message();
    EXPECT_EQ(read32(*made->device, 0, CONFIG_BLOCK_ID), 0xffffffffu) << "undefined AXI space";
}

TEST(QdmaModel, CardMemoryOfTheDesignIsSparse) {
    sim::DesignInstance vd100 = instance("VD100_qdma_ddr4");
    ASSERT_TRUE(vd100.qdma);
    const uint64_t top = 0x800000000ull + 0x100000000ull - 8;  // last 8 bytes of the 4 GiB
    const uint64_t value = 0x0123456789abcdefull;
    ASSERT_TRUE(vd100.qdma->card_write(top, &value, 8));
    uint64_t back = 0;
    ASSERT_TRUE(vd100.qdma->card_read(top, &back, 8));
    EXPECT_EQ(back, value);
    EXPECT_LE(vd100.qdma->card_memory_resident_bytes(), 0x10000u) << "one page, not 4 GiB";
    EXPECT_FALSE(vd100.qdma->card_write(top + 8, &value, 1)) << "past the card memory";
    EXPECT_FALSE(vd100.qdma->card_write(0x7FFFFFFFFull, &value, 1)) << "below it";
    sim::DesignInstance pf3 = instance("XCKU5P_DUAL_QSFP_qdma_ram_PF3");
    ASSERT_TRUE(pf3.qdma);
    EXPECT_EQ(pf3.qdma->config().function, 3u) << "each PF its own device, its doorbells through FMAP[3]";
    sim::DesignInstance nic = instance("open-nic");
    ASSERT_TRUE(nic.qdma);
    EXPECT_TRUE(nic.qdma->config().caps.stream);
    EXPECT_FALSE(nic.qdma->config().caps.memory_mapped);
    ASSERT_TRUE(nic.device->bar(0).value()->write(H2C_MM_CTL, 4, MM_CTL_RUN).ok());
    EXPECT_EQ(read32(*nic.device, 0, H2C_MM_CTL), 0u) << "no MM engines on a streaming-only IP";
}

}  // namespace qdma_model_test
