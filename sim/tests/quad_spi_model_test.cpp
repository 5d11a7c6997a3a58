// The AXI Quad SPI model (PG153) and its simulated flash, register by register as PG153 and the
// flash datasheets describe them, without the driver.
#include <gtest/gtest.h>

#include "sim/quad_spi_model.hpp"

namespace {

constexpr uint64_t SRR = 0x40, SPICR = 0x60, SPISR = 0x64, DTR = 0x68, DRR = 0x6C, SPISSR = 0x70, TX_OCY = 0x74;

struct Core {
    std::shared_ptr<sim::SpiNorModel> flash =
        std::make_shared<sim::SpiNorModel>(*sim::flash_shape("mx25l51245g"), sim::FlashFaultPlan{});
    sim::QuadSpiModel core{flash, 16};
    // One transaction: slave 0 selected, the bytes shifted, the replies read.
    std::vector<uint8_t> transaction(const std::vector<uint8_t>& out) {
        core.write(SPICR, 4, 0x1E6);  // inhibited, FIFOs reset, master, SPE, manual slave select
        core.write(SPISSR, 4, 0xFFFFFFFE);
        for (uint8_t b : out)
            core.write(DTR, 4, b);
        core.write(SPICR, 4, 0x86);  // inhibit cleared: the FIFO shifts out
        std::vector<uint8_t> in;
        while (!(core.read(SPISR, 4) & 1))
            in.push_back(static_cast<uint8_t>(core.read(DRR, 4)));
        core.write(SPISSR, 4, 0xFFFFFFFF);
        core.write(SPICR, 4, 0x186);
        return in;
    }
    void wait_ready() {
        for (int polls = 0; polls < 10 && (transaction({0x05, 0})[1] & 0x1); ++polls) {
        }
    }
};

TEST(QuadSpiModel, InhibitHoldsTheFifoAndOccupancyIsOneLess) {
    Core c;
    c.core.write(SPICR, 4, 0x186);
    c.core.write(SPISSR, 4, 0xFFFFFFFE);
    for (int i = 0; i < 5; ++i)
        c.core.write(DTR, 4, 0);
    EXPECT_EQ(c.core.read(TX_OCY, 4), 4u) << "PG153: occupancy minus one";
    EXPECT_EQ(c.core.read(SPISR, 4) & 0x4, 0u) << "Tx not empty while inhibited";
    for (int i = 0; i < 11; ++i)
        c.core.write(DTR, 4, 0);
    EXPECT_NE(c.core.read(SPISR, 4) & 0x8, 0u) << "Tx_Full at the depth";
    c.core.write(SRR, 4, 0x5);
    EXPECT_EQ(c.core.read(TX_OCY, 4), 15u) << "SRR ignores any value but 0xA";
    c.core.write(SRR, 4, 0xA);
    EXPECT_EQ(c.core.read(SPICR, 4), 0x180u);
    EXPECT_EQ(c.core.read(SPISR, 4), 0x25u);
}

TEST(QuadSpiModel, FlashCommands) {
    Core c;
    EXPECT_EQ(c.transaction({0x9F, 0, 0, 0}), (std::vector<uint8_t>{0xff, 0xC2, 0x20, 0x1A}));
    auto sfdp = c.transaction({0x5A, 0, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_EQ(std::vector<uint8_t>(sfdp.begin() + 5, sfdp.end()), (std::vector<uint8_t>{'S', 'F', 'D', 'P'}));
    // Page program without write enable: ignored.
    c.transaction({0x02, 0x00, 0x10, 0x00, 0x12});
    EXPECT_EQ(c.flash->contents(0x1000, 1)[0], 0xff);
    EXPECT_EQ(c.flash->program_commands(), 0u);
    c.transaction({0x06});
    EXPECT_EQ(c.transaction({0x05, 0})[1] & 0x2, 0x2) << "WEL";
    c.transaction({0x02, 0x00, 0x10, 0x00, 0xF0, 0x0F});
    EXPECT_EQ(c.transaction({0x05, 0})[1] & 0x1, 0x1) << "WIP while programming";
    EXPECT_EQ(c.flash->contents(0x1000, 2), (std::vector<uint8_t>{0xF0, 0x0F}));
    c.transaction({0x06});
    EXPECT_EQ(c.transaction({0x05, 0})[1] & 0x2, 0) << "write enable ignored while busy";
    c.wait_ready();
    c.transaction({0x06});
    c.transaction({0x02, 0x00, 0x10, 0x00, 0x3C, 0xFF});
    EXPECT_EQ(c.flash->contents(0x1000, 2), (std::vector<uint8_t>{0x30, 0x0F})) << "a program only clears bits";
    c.wait_ready();
    c.transaction({0x06});
    c.transaction({0x20, 0x00, 0x10, 0x40});
    EXPECT_EQ(c.flash->contents(0x1000, 2), (std::vector<uint8_t>{0xff, 0xff})) << "4 KiB erase of its sector";
    c.wait_ready();
    // 4-byte mode: 0xB7, then a read at 0x1000000 takes 4 address bytes.
    c.flash->store(0x1000000, {0xAB});
    c.transaction({0xB7});
    EXPECT_EQ(c.transaction({0x03, 0x01, 0x00, 0x00, 0x00, 0})[5], 0xAB);
}

TEST(QuadSpiModel, ProtectedBlockIgnoresErase) {
    auto faults = sim::parse_flash_faults("protected").value();
    auto flash = std::make_shared<sim::SpiNorModel>(*sim::flash_shape("mt25qu01g"), faults);
    const uint64_t top = (128u << 20) - 0x1000;
    flash->store(top, {0x00});
    sim::QuadSpiModel core(flash, 256);
    auto command = [&](const std::vector<uint8_t>& out) {
        core.write(SPISSR, 4, 0xFFFFFFFE);
        core.write(SPICR, 4, 0x86);
        for (uint8_t b : out)
            core.write(DTR, 4, b);
        core.write(SPISSR, 4, 0xFFFFFFFF);
    };
    command({0x06});
    command({0x21, 0x07, 0xFF, 0xF0, 0x00});
    EXPECT_EQ(flash->erase_commands(), 1u);
    EXPECT_EQ(flash->contents(top, 1)[0], 0x00) << "BP=1 protects the top 64 KiB";
}

}  // namespace
