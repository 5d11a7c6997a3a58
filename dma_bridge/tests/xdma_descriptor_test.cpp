// The descriptor and writeback layouts pinned byte by byte against PG195.
#include <gtest/gtest.h>

#include <cstring>

#include "dma_bridge/xdma_descriptor.hpp"
#include "dma_bridge/xdma_fifo.hpp"
#include "dma_bridge/xdma_registers.hpp"
#include "dma_bridge/xdma_writeback.hpp"

namespace {

template <typename T>
uint64_t le(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

}  // namespace

TEST(XdmaDescriptor, FieldsSitWherePg195PutsThem) {
    using namespace xdma;
    const Descriptor d = Descriptor::make(descriptor_control::STOP | descriptor_control::COMPLETED | descriptor_control::EOP,
                                          0x0ABCDEF1, 0x1122334455667788ull, 0x99AABBCCDDEEFF00ull,
                                          0x0000000123456780ull, 5);
    uint8_t raw[32];
    std::memcpy(raw, &d, sizeof raw);
    // Dword 0: magic [31:16], reserved [15:14], Nxt_adj [13:8], control [7:0].
    EXPECT_EQ(le<uint32_t>(raw + 0), 0xAD4B0513u);
    EXPECT_EQ(le<uint32_t>(raw + 4), 0x0ABCDEF1u) << "length [27:0]";
    EXPECT_EQ(le<uint64_t>(raw + 8), 0x1122334455667788ull) << "src_adr";
    EXPECT_EQ(le<uint64_t>(raw + 16), 0x99AABBCCDDEEFF00ull) << "dst_adr";
    EXPECT_EQ(le<uint64_t>(raw + 24), 0x0000000123456780ull) << "nxt_adr";
}

TEST(XdmaDescriptor, StoredWordByWordAsTheStructLaysItOut) {
    using namespace xdma;
    const Descriptor d = Descriptor::make(descriptor_control::STOP | descriptor_control::EOP, 0x0ABCDEF1,
                                          0x1122334455667788ull, 0x99AABBCCDDEEFF00ull, 0x0000000123456780ull, 63);
    uint8_t stored[32], copied[32];
    std::memset(stored, 0xA5, sizeof stored);
    store_descriptor(stored, d);
    std::memcpy(copied, &d, sizeof copied);
    EXPECT_EQ(std::memcmp(stored, copied, sizeof stored), 0);
    EXPECT_EQ(le<uint32_t>(stored + 0), 0xAD4B3F11u);
}

TEST(XdmaFifo, KeepsOrderAcrossTheWrapAndWhenItGrows) {
    xdma::Fifo<int> fifo;
    fifo.reserve(4);
    int next_in = 0, next_out = 0;
    for (int round = 0; round < 10; ++round) {  // 3 in, 2 out: wraps, then grows past 4
        for (int i = 0; i < 3; ++i)
            fifo.push_back(next_in++);
        for (int i = 0; i < 2; ++i) {
            ASSERT_FALSE(fifo.empty());
            EXPECT_EQ(fifo.front(), next_out++);
            fifo.pop_front();
        }
        EXPECT_EQ(fifo.size(), static_cast<size_t>(next_in - next_out));
        EXPECT_EQ(fifo.back(), next_in - 1);
    }
    for (size_t i = 0; i < fifo.size(); ++i)
        EXPECT_EQ(fifo[i], next_out + static_cast<int>(i));
    fifo.clear();
    EXPECT_TRUE(fifo.empty());
}

TEST(XdmaDescriptor, LengthAndAdjacentAreMaskedToTheirFields) {
    using namespace xdma;
    const Descriptor d = Descriptor::make(0, 0xFFFFFFFF, 0, 0, 0, 64 + 7);
    uint8_t raw[32];
    std::memcpy(raw, &d, sizeof raw);
    EXPECT_EQ(le<uint32_t>(raw + 4), 0x0FFFFFFFu);
    EXPECT_EQ(le<uint32_t>(raw + 0), 0xAD4B0700u) << "Nxt_adj is 6 bits";
    EXPECT_EQ(MAX_DESCRIPTOR_LENGTH, 0x0FFFFFFFu);
}

TEST(XdmaDescriptor, ControlBits) {
    EXPECT_EQ(xdma::descriptor_control::STOP, 0x01);
    EXPECT_EQ(xdma::descriptor_control::COMPLETED, 0x02);
    EXPECT_EQ(xdma::descriptor_control::EOP, 0x10);
}

TEST(XdmaDescriptor, C2hStreamWritebackLayout) {
    const uint8_t raw[8] = {0x01, 0x00, 0xB4, 0x52, 0x40, 0x00, 0x00, 0x00};
    xdma::C2hStreamWriteback wb;
    std::memcpy(&wb, raw, sizeof wb);
    EXPECT_EQ(wb.wb_magic_status >> 16, xdma::C2H_STREAM_WRITEBACK_MAGIC);
    EXPECT_TRUE(wb.wb_magic_status & xdma::C2H_STREAM_WRITEBACK_EOP);
    EXPECT_EQ(wb.length, 64u);
}

TEST(XdmaDescriptor, AdjacentCountsStopAtListEndFourKiBAndSixBits) {
    using xdma::adjacent_after;
    EXPECT_EQ(adjacent_after(0, 1), 0u);
    EXPECT_EQ(adjacent_after(0, 10), 9u);
    EXPECT_EQ(adjacent_after(0, 128), 63u) << "6-bit field";
    EXPECT_EQ(adjacent_after(100, 200), 27u) << "128 descriptors per 4 KiB: indices 100..127";
    EXPECT_EQ(adjacent_after(127, 200), 0u);
    EXPECT_EQ(adjacent_after(128, 200), 63u);
    EXPECT_EQ(adjacent_after(190, 200), 9u);
}

TEST(XdmaRegisters, StatusDecodesWithPg195Names) {
    using namespace xdma;
    EXPECT_EQ(decode_status(Direction::H2C, 0), "idle");
    EXPECT_EQ(decode_status(Direction::H2C, 0x00080011), "busy magic_stopped desc_error(unsupported request)");
    EXPECT_EQ(decode_status(Direction::H2C, 1u << 9), "read_error(unsupported request)");
    EXPECT_EQ(decode_status(Direction::C2H, 1u << 9), "read_error(decode)");
    EXPECT_EQ(decode_status(Direction::H2C, 1u << 14 | 1u << 6), "idle_stopped write_error(decode)");
    EXPECT_EQ(status::errors, 0x00FFFE38u);
}

TEST(XdmaRegisters, BlockAddressesFollowTargetAndChannel) {
    using namespace xdma;
    EXPECT_EQ(block_offset(target::C2H_CHANNEL, 3), 0x1300u);
    EXPECT_EQ(block_offset(target::H2C_SGDMA, 1), 0x4100u);
    EXPECT_EQ(block_offset(target::SGDMA_COMMON), 0x6000u);
    EXPECT_EQ(sgdma_common_reg::channel_bit(Direction::C2H, 2), 1u << 18);
    EXPECT_EQ(sgdma_common_reg::channel_bit(Direction::H2C, 1), 1u << 1);
}

TEST(XdmaDescriptor, CompletedCountsExtendAcrossTheTwentyFourBitWrap) {
    using xdma::extend_count;
    EXPECT_EQ(extend_count(0, 5, 0xFFFFFF), 5u);
    EXPECT_EQ(extend_count(0xFFFFFE, 0xFFFFFE, 0xFFFFFF), 0xFFFFFEu) << "no progress";
    EXPECT_EQ(extend_count(0xFFFFFE, 0x000003, 0xFFFFFF), 0x1000003u) << "wrapped: 5 more";
    EXPECT_EQ(extend_count(0x5FFFFFF0ull, 0xFFFFF5, 0xFFFFFF), 0x5FFFFFF5ull);
    EXPECT_EQ(extend_count(0x1FFFFFFFEull, 1, 0xFFFFFFFF), 0x200000001ull) << "32-bit register wrap";
}

// The writeback decoding the engine uses (and fuzz_xdma_writeback checks with arbitrary words).
TEST(XdmaWriteback, PollWritebackSplitsErrorBitAndCount) {
    const auto ok = xdma::decode_poll_writeback(0x00FFFFFEu);
    EXPECT_FALSE(ok.error);
    EXPECT_EQ(ok.count, 0xFFFFFEu);
    const auto bad = xdma::decode_poll_writeback(0x85000003u);  // bits 30:24 are not count
    EXPECT_TRUE(bad.error);
    EXPECT_EQ(bad.count, 3u);
}

TEST(XdmaWriteback, StreamRecordNeedsMagicAndALengthWithinItsDescriptor) {
    const auto ok = xdma::decode_stream_writeback({0x52B40001u, 4096}, 4096);
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->length, 4096u);
    EXPECT_TRUE(ok->end_of_packet);
    const auto no_eop = xdma::decode_stream_writeback({0x52B40000u, 0}, 4096);
    ASSERT_TRUE(no_eop.ok());
    EXPECT_FALSE(no_eop->end_of_packet);

    const auto magic = xdma::decode_stream_writeback({0x12340001u, 8}, 4096);
    ASSERT_FALSE(magic.ok());
    EXPECT_EQ(magic.error().code, EPROTO);
    EXPECT_EQ(magic.error().hint, "Incorrect stream wb_magic_status 0x12340001 (expected magic 0x52B4)");
    const auto longer = xdma::decode_stream_writeback({0x52B40001u, 4097}, 4096);
    ASSERT_FALSE(longer.ok());
    EXPECT_EQ(longer.error().code, EPROTO);
    EXPECT_EQ(longer.error().hint, "C2H stream writeback length 4097 exceeds the descriptor length 4096");
}
