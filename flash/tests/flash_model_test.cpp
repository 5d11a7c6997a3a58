// The driver on the PG153 model with its simulated flash: open, identify, verified reads,
// planned programming with the count of sectors written, and each fault as the driver names it.
#include <gtest/gtest.h>

#include "base/little_endian.hpp"
#include "flash/programmer.hpp"
#include "sim/quad_spi_model.hpp"
#include "test_support/failed_with.hpp"
#include "vfio_access/mmio.hpp"

namespace {

using test_support::failed_with;

constexpr uint64_t kOffset = 0x1000;

sim::FlashFaultPlan faults(const std::string& text) { return sim::parse_flash_faults(text).value(); }

struct Rig {
    std::shared_ptr<sim::SpiNorModel> model;
    std::shared_ptr<sim::SimBar> backend = std::make_shared<sim::SimBar>(0x10000);
    vfio::Bar bar{0, backend};
    Rig(const sim::FlashShape& shape, unsigned depth = 256, sim::FlashFaultPlan faults = {}) {
        model = std::make_shared<sim::SpiNorModel>(shape, faults);
        backend->add_block(kOffset, 0x80, std::make_shared<sim::QuadSpiModel>(model, depth));
    }
    Rig(const std::string& shape, unsigned depth = 256, sim::FlashFaultPlan faults = {})
        : Rig(*sim::flash_shape(shape), depth, faults) {}
    pdt::Result<flash::SpiNor> open(flash::SpiMode mode = flash::SpiMode::Standard) {
        auto spi = flash::AxiQuadSpi::open(bar.window(kOffset, 0x80).value(), mode, "test");
        if (!spi)
            return spi.error();
        return flash::SpiNor::open(std::move(*spi), {std::chrono::milliseconds(50), std::chrono::milliseconds(50), {}});
    }
};

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<uint8_t>(i * 7 + seed + (i >> 8));
    return v;
}

TEST(FlashModel, OpenFindsFifoDepth) {
    for (unsigned depth : {16u, 256u}) {
        Rig rig("mt25qu01g", depth);
        auto nor = rig.open();
        ASSERT_TRUE(nor) << nor.error().message();
        EXPECT_EQ(nor->controller().fifo_depth(), depth);
    }
}

TEST(FlashModel, NoCoreIsAnError) {
    auto backend = std::make_shared<sim::SimBar>(0x10000);
    vfio::Bar bar{0, backend};
    auto spi = flash::AxiQuadSpi::open(bar.window(kOffset, 0x80).value(), flash::SpiMode::Standard, "test");
    ASSERT_FALSE(spi);
    EXPECT_NE(spi.error().message().find("no AXI Quad SPI core"), std::string::npos) << spi.error().message();
}

TEST(FlashModel, NoFlashAnswering) {
    auto shape = *sim::flash_shape("mt25qu01g");
    shape.jedec_id[0] = 0xff;  // MISO pulled up: no flash on slave select 0
    Rig rig(shape, 16);
    auto nor = rig.open();
    ASSERT_FALSE(nor);
    EXPECT_NE(nor.error().message().find("no flash answers"), std::string::npos) << nor.error().message();
}

// A quad-mode core whose command table lacks READ SFDP (0x5A): PG153 sets SPISR Command Error
// (bit 10) and shifts nothing. Wraps the model, holding the Tx FIFO while the error stands.
class CommandErrorCore : public sim::RegisterBlock {
public:
    explicit CommandErrorCore(std::shared_ptr<sim::QuadSpiModel> core) : m_core(std::move(core)) {}
    uint64_t read(uint64_t offset, unsigned width) override {
        if (offset == 0x64 && m_error)
            return (m_core->read(offset, width) & ~uint64_t{0x4}) | 0x400;  // Tx not empty, Command Error
        return m_core->read(offset, width);
    }
    void write(uint64_t offset, unsigned width, uint64_t value) override {
        if (offset == 0x68 && m_first && value == 0x5A)
            m_error = true;
        if (offset == 0x68)
            m_first = false;
        if (offset == 0x60 && (value & 0x20))
            m_first = true, m_error = false;  // Tx FIFO reset: a new transaction
        if (!(m_error && offset == 0x60))
            m_core->write(offset, width, value);
    }

private:
    std::shared_ptr<sim::QuadSpiModel> m_core;
    bool m_first = true, m_error = false;
};

TEST(FlashModel, QuadModeCommandErrorIsNamed) {
    auto model = std::make_shared<sim::SpiNorModel>(*sim::flash_shape("mt25qu01g"), sim::FlashFaultPlan{});
    auto backend = std::make_shared<sim::SimBar>(0x10000);
    backend->add_block(kOffset, 0x80,
                       std::make_shared<CommandErrorCore>(std::make_shared<sim::QuadSpiModel>(model, 256)));
    vfio::Bar bar{0, backend};
    auto spi = flash::AxiQuadSpi::open(bar.window(kOffset, 0x80).value(), flash::SpiMode::Quad, "t");
    ASSERT_TRUE(spi) << spi.error().message();
    auto nor = flash::SpiNor::open(std::move(*spi));
    EXPECT_TRUE(failed_with(nor, ENOTSUP, "Command Error: command 0x5a is not in the quad-mode core's command table"));
}

TEST(FlashModel, IdentifiesBothShapes) {
    Rig micron("mt25qu01g");
    auto m = micron.open();
    ASSERT_TRUE(m) << m.error().message();
    EXPECT_EQ(m->jedec_id().manufacturer, 0x20);
    EXPECT_EQ(m->jedec_id().memory_type, 0xBB);
    EXPECT_EQ(m->size(), 128u << 20);
    EXPECT_EQ(m->addressing(), "4-byte opcodes");
    Rig macronix("mx25l51245g");
    auto x = macronix.open(flash::SpiMode::Quad);
    ASSERT_TRUE(x) << x.error().message();
    EXPECT_EQ(x->jedec_id().manufacturer, 0xC2);
    EXPECT_EQ(x->size(), 64u << 20);
    EXPECT_EQ(x->addressing(), "4-byte mode (0xB7)");
    EXPECT_EQ(x->read_command(), "0x03 (1-1-1)") << "QE needed: never written, read 1-1-1";
}

TEST(FlashModel, QuadModeReadsWhatStandardReads) {
    Rig rig("mt25qu01g");
    const auto data = pattern(5000, 3);
    rig.model->store(0x2000000, data);
    auto quad = rig.open(flash::SpiMode::Quad);
    ASSERT_TRUE(quad);
    EXPECT_EQ(quad->read_command(), "0x6c (1-1-4, 1 dummy bytes)");
    EXPECT_EQ(*flash::read_verified(*quad, 0x2000000, data.size()), data);
}

TEST(FlashModel, NoSfdpIsAClearError) {
    auto shape = *sim::flash_shape("mt25qu01g");
    shape.sfdp.clear();
    Rig rig(shape, 16);
    auto nor = rig.open();
    ASSERT_TRUE(failed_with(nor, ENODEV, "no SFDP"));
}

TEST(FlashModel, ProgramImageThenPartialUpdate) {
    for (const char* shape : {"mt25qu01g", "mx25l51245g"}) {
        Rig rig(shape, 16);
        auto nor = rig.open();
        ASSERT_TRUE(nor);
        const uint64_t at = 0x1000000 + 0x30000;  // above 16 MiB: 4-byte addresses
        auto image = pattern(10 * 4096 + 100, 1);
        ASSERT_TRUE(flash::check_write_range(*nor, at, image.size(), {0x1000000, false}));
        auto plan = flash::plan_write(*nor, at, image);
        ASSERT_TRUE(plan);
        EXPECT_EQ(plan->to_write.size(), 11u);
        EXPECT_EQ(rig.model->program_commands() + rig.model->erase_commands(), 0u) << "planning writes nothing";
        const auto padded = flash::padded_image(image, plan->sector_size);
        auto done = flash::execute_plan(*nor, *plan, padded);
        ASSERT_TRUE(done) << done.error().message();
        EXPECT_EQ(done->written, 11u);
        EXPECT_EQ(rig.model->contents(at, image.size()), image);
        EXPECT_EQ(rig.model->contents(at + image.size(), 10), std::vector<uint8_t>(10, 0xff));
        image[3 * 4096 + 5] ^= 0xff;
        image[7 * 4096] ^= 0x0f;
        auto again = flash::plan_write(*nor, at, image);
        ASSERT_TRUE(again);
        EXPECT_EQ(again->to_write, (std::vector<uint64_t>{at + 3 * 4096, at + 7 * 4096}));
        const uint64_t erases = rig.model->erase_commands();
        auto partial = flash::execute_plan(*nor, *again, flash::padded_image(image, again->sector_size));
        ASSERT_TRUE(partial);
        EXPECT_EQ(partial->written, 2u);
        EXPECT_EQ(partial->skipped, 9u);
        EXPECT_EQ(rig.model->erase_commands() - erases, 2u);
        EXPECT_EQ(rig.model->contents(at, image.size()), image);
    }
}

// A 16 MiB flash: 3-byte addresses (BFPT DWORD 1 address bytes 00b, DWORD 2 2^27 bits).
TEST(FlashModel, ThreeByteFlash) {
    auto shape = *sim::flash_shape("mt25qu01g");
    shape.density = 16u << 20;
    auto dword = [&](size_t at) { return std::span(shape.sfdp).subspan(at, 4); };
    const size_t bfpt = 0x30;  // the shapes' BFPT pointer
    const auto dword1 = static_cast<uint32_t>(pdt::load_le(dword(bfpt)));
    pdt::store_le(dword(bfpt), dword1 & ~(3u << 17));
    pdt::store_le(dword(bfpt + 4), (128u << 20) - 1);
    auto model = std::make_shared<sim::SpiNorModel>(shape, sim::FlashFaultPlan{});
    auto backend = std::make_shared<sim::SimBar>(0x10000);
    backend->add_block(kOffset, 0x80, std::make_shared<sim::QuadSpiModel>(model, 16));
    vfio::Bar bar{0, backend};
    auto nor = flash::SpiNor::open(*flash::AxiQuadSpi::open(bar.window(kOffset, 0x80).value(), flash::SpiMode::Standard, "t"));
    ASSERT_TRUE(nor) << nor.error().message();
    EXPECT_EQ(nor->size(), 16u << 20);
    EXPECT_EQ(nor->address_bytes(), 3u);
    EXPECT_EQ(nor->addressing(), "3-byte");
    const auto image = pattern(4096 + 300, 5);
    const uint64_t at = (16u << 20) - 2 * 4096;
    auto plan = flash::plan_write(*nor, at, image);
    ASSERT_TRUE(plan);
    ASSERT_TRUE(flash::execute_plan(*nor, *plan, flash::padded_image(image, 4096)));
    EXPECT_EQ(model->contents(at, image.size()), image);
    EXPECT_EQ(*flash::read_verified(*nor, at, image.size()), image);
    EXPECT_EQ(flash::check_write_range(*nor, at, 3 * 4096, {}).error().code, EFBIG);
}

TEST(FlashModel, RangeChecks) {
    Rig rig("mt25qu01g", 256, faults("protected"));
    auto nor = rig.open();
    ASSERT_TRUE(nor);
    auto big = flash::check_write_range(*nor, 0, (128u << 20) + 1, {});
    EXPECT_EQ(big.error().code, EFBIG);
    EXPECT_NE(big.error().message().find("larger than the flash"), std::string::npos);
    EXPECT_EQ(flash::check_write_range(*nor, 0x100, 10, {}).error().code, EINVAL);
    EXPECT_TRUE(flash::check_write_range(*nor, 0x100, 10, {}).error().usage);
    auto golden = flash::check_write_range(*nor, 0x10000, 10, {0x800000, false});
    EXPECT_NE(golden.error().message().find("golden image"), std::string::npos);
    EXPECT_EQ(golden.error().message().find("--"), std::string::npos) << "the library names no option";
    EXPECT_TRUE(flash::check_write_range(*nor, 0x10000, 10, {0x800000, true}));
    auto protected_sector = flash::check_write_range(*nor, (128u << 20) - 0x1000, 10, {});
    EXPECT_EQ(protected_sector.error().code, EACCES);
    EXPECT_NE(protected_sector.error().message().find("protected sector"), std::string::npos);
    EXPECT_EQ(rig.model->program_commands() + rig.model->erase_commands(), 0u);
}

TEST(FlashModel, StuckBusyTimesOut) {
    Rig rig("mt25qu01g", 256, faults("stuck_busy"));
    auto nor = rig.open();
    ASSERT_TRUE(nor);
    auto erased = nor->erase(0x10000, nor->sector_erase());
    EXPECT_TRUE(failed_with(erased, ETIMEDOUT, "stuck busy"));
    EXPECT_EQ(rig.model->erase_commands(), 0u);
}

TEST(FlashModel, ReadBitErrorIsCaughtByThreeReads) {
    Rig rig("mx25l51245g", 256, faults("read_bit_error"));
    auto nor = rig.open();
    ASSERT_TRUE(nor);
    auto data = flash::read_verified(*nor, 0x4000, 100);
    ASSERT_FALSE(data);
    EXPECT_NE(data.error().message().find("differs from read 1 first at 0x4000"), std::string::npos)
        << data.error().message();
}

TEST(FlashModel, SilentProgramFailureFailsVerify) {
    Rig rig("mt25qu01g", 256, faults("program_fails"));
    auto nor = rig.open();
    ASSERT_TRUE(nor);
    const auto image = pattern(4096, 9);
    auto plan = flash::plan_write(*nor, 0x20000, image);
    auto done = flash::execute_plan(*nor, *plan, flash::padded_image(image, 4096));
    ASSERT_FALSE(done);
    EXPECT_NE(done.error().message().find("verify sector 0x20000"), std::string::npos) << done.error().message();
    EXPECT_NE(done.error().message().find("the program failed"), std::string::npos);
}

TEST(FlashModel, StopEndsTheWriteBetweenSectors) {
    Rig rig("mt25qu01g");
    auto nor = rig.open();
    ASSERT_TRUE(nor);
    const auto image = pattern(4 * 4096, 2);
    auto plan = flash::plan_write(*nor, 0x40000, image);
    int asked = 0;
    auto done = flash::execute_plan(*nor, *plan, flash::padded_image(image, 4096), [&] { return ++asked > 2; });
    EXPECT_TRUE(failed_with(done, ECANCELED, "2 of 4 sectors written"));
    EXPECT_EQ(rig.model->contents(0x40000, 2 * 4096), std::vector<uint8_t>(image.begin(), image.begin() + 2 * 4096));
    EXPECT_EQ(rig.model->contents(0x42000, 4096), std::vector<uint8_t>(4096, 0xff));
}

TEST(FlashModel, FaultSpecParses) {
    auto plan = sim::parse_flash_faults("stuck_busy,program_fails=3");
    ASSERT_TRUE(plan);
    EXPECT_TRUE(plan->stuck_busy);
    EXPECT_EQ(plan->program_fails_after, 3u);
    EXPECT_NE(sim::parse_flash_faults("melt").error().message().find("unknown flash fault"), std::string::npos);
}

}  // namespace
