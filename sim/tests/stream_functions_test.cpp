// The XDMA model's stream path: the bounded C2H FIFO that stalls H2C (backpressure), and the
// card functions of fpga_sio's stream designs (CRC-64, fixed data), with raw registers and
// hand-built descriptors; and their selection from the design data.
#include <gtest/gtest.h>

#include <cstring>

#include "designs/registry.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"
#include "xdma_register_rig.hpp"

namespace {

using xdma_register_test::kIova;
constexpr uint32_t kStopCompleted = 0x03, kStopCompletedEop = 0x13;

sim::XdmaConfig streaming(sim::XdmaConfig config) {
    config.stream = true;
    return config;
}

// The stream design's model with 256 KiB of host memory.
struct Rig : xdma_register_test::RegisterRig<0x40000> {
    explicit Rig(sim::XdmaConfig config) : RegisterRig(streaming(config)) {}
    // H2C 0: one EOP descriptor of `length` bytes from host offset 0x10000.
    void start_h2c(uint32_t length) {
        descriptor(0, kStopCompletedEop, length, kIova + 0x10000, 0);
        regs.write64(0x4080, kIova);
        regs.write32(0x0004, 1);
    }
    // C2H 0: one descriptor of `length` bytes into host offset 0x20000, writeback at 0x3800.
    void start_c2h(uint32_t length) {
        descriptor(0x800, kStopCompleted, length, kIova + 0x3800, kIova + 0x20000);
        regs.write64(0x5080, kIova + 0x800);
        regs.write32(0x1004, 1);
    }
    uint32_t c2h_writeback(int word) const {
        uint32_t wb[2];
        std::memcpy(wb, &host[0x3800], 8);
        return wb[word];
    }
};

// CRC-64 written out bit by bit: register XOR 64-bit little-endian word, 64 reflected shifts.
uint64_t reference_crc(const uint8_t* data, size_t bytes) {
    uint64_t crc = ~0ull;
    for (size_t at = 0; at < bytes; at += 8) {
        uint64_t word = 0;
        std::memcpy(&word, data + at, std::min<size_t>(8, bytes - at));
        crc ^= word;
        for (int bit = 0; bit < 64; ++bit)
            crc = (crc & 1) ? (crc >> 1) ^ 0xC96C5795D7870F42ull : crc >> 1;
    }
    return crc;
}

}  // namespace

TEST(XdmaStreamPath, H2cStallsWhileTheC2hFifoIsFullThenCompletes) {
    Rig rig({.stream_fifo_bytes = 256});
    for (size_t i = 0; i < 4096; ++i)
        rig.host[0x10000 + i] = static_cast<uint8_t>(i * 7 + 1);
    rig.start_h2c(4096);
    rig.model->run_until_idle();
    EXPECT_TRUE(rig.model->busy(sim::XdmaDirection::H2C, 0)) << "H2C stalls: nothing takes the data";
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 0u);
    EXPECT_EQ(rig.model->c2h_pending_bytes(0), 256u) << "the FIFO holds its depth, no more";

    rig.start_c2h(8192);
    rig.model->run_until_idle();
    EXPECT_FALSE(rig.model->busy(sim::XdmaDirection::H2C, 0));
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 1u);
    EXPECT_EQ(std::memcmp(&rig.host[0x20000], &rig.host[0x10000], 4096), 0);
    EXPECT_EQ(rig.c2h_writeback(0), 0x52B40001u) << "EOP on the packet's end";
    EXPECT_EQ(rig.c2h_writeback(1), 4096u);
    EXPECT_EQ(rig.model->c2h_peak_pending_bytes(), 256u);
    EXPECT_TRUE(rig.model->violations().empty());
}

TEST(XdmaStreamPath, DefaultFifoIs64KiB) {
    Rig rig({});
    EXPECT_EQ(rig.model->config().stream_fifo_bytes, 0x10000u);
    rig.start_h2c(0x18000);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.model->c2h_pending_bytes(0), 0x10000u);
}

TEST(XdmaStreamPath, Crc64ReturnsOneEightBytePacketPerH2cPacket) {
    Rig rig({.stream_function = sim::XdmaStreamFunction::Crc64, .stream_tdata_bytes = 16});
    uint64_t x = 0;
    for (size_t i = 0; i < 64; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        std::memcpy(&rig.host[0x10000 + 8 * i], &x, 8);
    }
    std::memset(&rig.host[0x20000], 0xEE, 64);
    rig.start_c2h(4096);
    rig.start_h2c(512);
    rig.model->run_until_idle();
    uint64_t result;
    std::memcpy(&result, &rig.host[0x20000], 8);
    EXPECT_EQ(result, reference_crc(&rig.host[0x10000], 512));
    EXPECT_EQ(rig.c2h_writeback(0), 0x52B40001u);
    EXPECT_EQ(rig.c2h_writeback(1), 8u) << "8 bytes, whatever the H2C packet length";
    EXPECT_EQ(rig.host[0x20008], 0xEE) << "nothing beyond the result";
    EXPECT_TRUE(rig.model->violations().empty());
}

TEST(XdmaStreamPath, Crc64PacketNotAWholeTdataBeatIsAViolation) {
    Rig rig({.stream_function = sim::XdmaStreamFunction::Crc64, .stream_tdata_bytes = 16});
    rig.start_c2h(4096);
    rig.start_h2c(24);
    rig.model->run_until_idle();
    ASSERT_EQ(rig.model->violations().size(), 1u);
    EXPECT_NE(rig.model->violations()[0].what.find("not a multiple of the 16-byte tdata width"), std::string::npos)
        << rig.model->violations()[0].what;
    EXPECT_EQ(rig.c2h_writeback(1), 8u);
}

TEST(XdmaStreamPath, FixedDataSinksH2cAndSendsZerosWithoutEop) {
    Rig rig({.stream_function = sim::XdmaStreamFunction::FixedData});
    rig.start_h2c(0x30000);  // more than the FIFO: the sink takes it all
    rig.model->run_until_idle();
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 1u);
    EXPECT_EQ(rig.model->c2h_pending_bytes(0), 0u);
    std::memset(&rig.host[0x20000], 0xFF, 4096);
    rig.start_c2h(4096);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.c2h_writeback(0), 0x52B40000u) << "no end of packet";
    EXPECT_EQ(rig.c2h_writeback(1), 4096u);
    EXPECT_EQ(std::vector<uint8_t>(&rig.host[0x20000], &rig.host[0x21000]), std::vector<uint8_t>(4096, 0));
}

TEST(XdmaStreamPath, DesignDataSelectsTheFunctionTdataAndFifoDepth) {
    auto registry = designs::Registry::load({});
    ASSERT_TRUE(registry.ok());
    auto instance = [&](const char* name, designs::Design* edit = nullptr) {
        designs::Design design = *registry->find(name);
        if (edit)
            design = *edit;
        vfio::DeviceIdentity id = sim::simulated_identity(design, sim::simulated_address(0), 1);
        auto made = sim::instantiate_design(design, id, true);
        EXPECT_TRUE(made.ok());
        return std::move(made->xdma);
    };
    auto crc = instance("NiteFury_dma_stream_crc64");
    EXPECT_EQ(crc->config().stream_function, sim::XdmaStreamFunction::Crc64);
    EXPECT_EQ(crc->config().stream_tdata_bytes, 16u);
    EXPECT_EQ(instance("U200_dma_stream_crc64")->config().stream_tdata_bytes, 64u);
    EXPECT_EQ(instance("TEF1001_dma_stream_fixed_data")->config().stream_function,
              sim::XdmaStreamFunction::FixedData);
    EXPECT_EQ(instance("TEF1001_dma_stream_loopback")->config().stream_function, sim::XdmaStreamFunction::Loopback);
    designs::Design deep = *registry->find("TEF1001_dma_stream_loopback");
    deep.simulation.stream_fifo_bytes = 0x400;
    EXPECT_EQ(instance("TEF1001_dma_stream_loopback", &deep)->config().stream_fifo_bytes, 0x400u);
}
