// The QDMA model's stream queues through its BAR: an H2C ST packet comes back on the C2H ST queue
// of the same number (the simulated card's loopback), in C2H_BUF_SZ buffers, with a completion
// entry (color, length, error) and the status descriptors; the color toggles at the wrap; a full
// completion ring is an error.
#include <gtest/gtest.h>
#include <unistd.h>

#include "qdma_rig.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace qdma_stream_test {

namespace {

using namespace qdma_test;
using sim::qdma_csr::CtxtOp;
using sim::qdma_csr::CtxtSel;

constexpr size_t kH2cRing = 0x0;     // 16 B entries
constexpr size_t kC2hRing = 0x1000;  // 8 B entries
constexpr size_t kCmptRing = 0x2000; // 8 B entries
constexpr size_t kSource = 0x8000;
constexpr size_t kBuffers = 0x20000;  // C2H buffers, kBufferSize apart
constexpr uint32_t kBufferSize = 4096;
constexpr uint32_t kEntries = 8;      // GLBL_RNG_SZ_1 for every ring

// Stream queue `qid` of an ST design: H2C, C2H with kEntries - 2 buffers posted (the most a ring
// of kEntries holds: pidx == cidx means empty), CMPT, prefetch.
std::unique_ptr<Rig<>> stream_queue(unsigned qid, unsigned cmpt_entries = kEntries) {
    auto r = std::make_unique<Rig<>>(designs::QdmaSimulation{1, 64, true, false});
    r->ring_size(0, kEntries);
    r->ring_size(1, cmpt_entries);
    r->wr(C2H_BUF_SZ, kBufferSize);
    r->fmap(0, 0, 16);
    for (CtxtSel sel : {CtxtSel::HW_H2C, CtxtSel::HW_C2H, CtxtSel::CR_H2C, CtxtSel::CR_C2H, CtxtSel::CMPT, CtxtSel::PFTCH})
        r->command(sel, CtxtOp::CLR, qid);
    r->write(CtxtSel::SW_H2C, qid, Sw{.is_mm = false, .dsc_sz = 1, .base = kIova + kH2cRing}.words());
    r->write(CtxtSel::SW_C2H, qid, Sw{.wbk_en = false, .is_mm = false, .dsc_sz = 0, .base = kIova + kC2hRing}.words());
    Words pfch{};
    pfch[1] = 1u << 13;  // valid, buf_sz_idx 0
    r->write(CtxtSel::PFTCH, qid, pfch);
    r->write(CtxtSel::CMPT, qid, Cmpt{.qsize_ix = 1, .base = kIova + kCmptRing}.words());
    for (unsigned i = 0; i < kEntries - 1; ++i)
        r->put64(kC2hRing + 8 * i, kIova + kBuffers + uint64_t(i) * kBufferSize);
    std::memset(r->host + kBuffers, 0xA5, (kEntries - 1) * kBufferSize);
    r->wr(r->doorbell(qid, C2H_DSC_PIDX), kEntries - 2);
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), 0u);
    return r;
}

void send(Rig<>& r, unsigned qid, unsigned slot, uint16_t length, uint8_t seed) {
    for (unsigned i = 0; i < length; ++i)
        r.host[kSource + i] = static_cast<uint8_t>(seed + i * 3);
    r.h2c_st_descriptor(kH2cRing + 16 * slot, kIova + kSource, length);
    r.wr(r.doorbell(qid, H2C_DSC_PIDX), (slot + 1) % (kEntries - 1));
    r.model->run_until_idle();
}

// Completion entry (example design): [1] color, [2] error, [3] desc_used, [19:4] length.
struct Entry {
    bool color, error, desc_used;
    unsigned length;
};
Entry entry(const Rig<>& r, unsigned index, unsigned entry_bytes = 8) {
    const uint64_t e = r.get64(kCmptRing + entry_bytes * index);
    return {bool(e >> 1 & 1), bool(e >> 2 & 1), bool(e >> 3 & 1), unsigned(e >> 4 & 0xFFFF)};
}

}  // namespace

TEST(QdmaStream, H2cPacketLoopsBackIntoC2hBuffersWithACompletion) {
    auto r = stream_queue(4);
    send(*r, 4, 0, 5000, 11);  // two buffers
    EXPECT_EQ(std::memcmp(r->host + kBuffers, r->host + kSource, 5000), 0) << "all 5000 bytes";
    EXPECT_EQ(r->host[kBuffers + 5000], 0xA5) << "nothing past the packet";
    const Entry e = entry(*r, 0);
    EXPECT_TRUE(e.color) << "the context's color";
    EXPECT_FALSE(e.error);
    EXPECT_TRUE(e.desc_used);
    EXPECT_EQ(e.length, 5000u);
    // CMPT status: pidx [15:0], cidx [31:16], color [32], error [36:35].
    const uint64_t cmpt_status = r->get64(kCmptRing + 8 * (kEntries - 1));
    EXPECT_EQ(cmpt_status & 0xFFFF, 1u);
    EXPECT_EQ(cmpt_status >> 16 & 0xFFFF, 0u);
    EXPECT_EQ(cmpt_status >> 35 & 3, 0u);
    const uint64_t h2c_status = r->get64(kH2cRing + 16 * (kEntries - 1));
    EXPECT_EQ(Rig<>::status_cidx(h2c_status), 1u);
    EXPECT_EQ(r->read(CtxtSel::HW_C2H, 4)[0] & 0xFFFF, 2u) << "two C2H descriptors used";
    EXPECT_EQ(r->model->processed(sim::QdmaQueueKind::C2H, 4), 1u);
    // The driver reads the entry and returns the CMPT CIDX; the next packet goes on.
    r->wr(r->doorbell(4, CMPT_CIDX), 1 | 1u << 24 | 1u << 27);
    send(*r, 4, 1, 100, 99);
    EXPECT_EQ(std::memcmp(r->host + kBuffers + 2 * kBufferSize, r->host + kSource, 100), 0);
    EXPECT_EQ(entry(*r, 1).length, 100u);
    EXPECT_EQ(r->read(CtxtSel::CMPT, 4)[3] >> 12 & 0xFFFF, 1u) << "CMPT context cidx from the doorbell";
}

TEST(QdmaStream, PacketWaitsForBuffers) {
    auto r = stream_queue(0);
    r->command(CtxtSel::HW_C2H, CtxtOp::CLR, 0);
    r->write(CtxtSel::SW_C2H, 0, Sw{.wbk_en = false, .is_mm = false, .dsc_sz = 0, .base = kIova + kC2hRing}.words());
    send(*r, 0, 0, 3 * kBufferSize, 1);  // needs three buffers, none posted now (pidx 0)
    EXPECT_EQ(r->model->loopback_pending_bytes(0), 3u * kBufferSize);
    r->wr(r->doorbell(0, C2H_DSC_PIDX), 2);
    EXPECT_EQ(r->model->run_until_idle(), 0u) << "two buffers are not enough";
    r->wr(r->doorbell(0, C2H_DSC_PIDX), 3);
    r->model->run_until_idle();
    EXPECT_EQ(r->model->loopback_pending_bytes(0), 0u);
    EXPECT_EQ(std::memcmp(r->host + kBuffers, r->host + kSource, 3 * kBufferSize), 0);
}

TEST(QdmaStream, ColorTogglesAtTheWrap) {
    auto r = stream_queue(1);
    // 7 CMPT slots: entries 0..6 carry color 1, the wrap makes the next color 0.
    const unsigned slots = kEntries - 1;
    for (unsigned i = 0; i < 9; ++i) {
        send(*r, 1, i % slots, 16, static_cast<uint8_t>(i));
        // The driver takes the entry and gives the buffer back: 6 stay posted.
        r->wr(r->doorbell(1, CMPT_CIDX), ((i + 1) % slots) | 1u << 24 | 1u << 27);
        r->put64(kC2hRing + 8 * ((i + 6) % slots), kIova + kBuffers);
        r->wr(r->doorbell(1, C2H_DSC_PIDX), (i + 7) % slots);
    }
    for (unsigned i = 0; i < 7; ++i)
        EXPECT_EQ(entry(*r, i).color, i >= 2) << "slots 0 and 1 were rewritten after the wrap with color 0: " << i;
    const uint64_t status = r->get64(kCmptRing + 8 * (kEntries - 1));
    EXPECT_EQ(status & 0xFFFF, 2u);
    EXPECT_EQ(status >> 32 & 1, 0u) << "the status carries the current color";
}

TEST(QdmaStream, FullCompletionRingIsAnError) {
    auto r = stream_queue(2, 4);  // CMPT ring of 4 entries: at most 2 completions outstanding
    send(*r, 2, 0, 8, 1);
    send(*r, 2, 1, 8, 2);
    EXPECT_EQ(r->rd(C2H_ERR_STAT), 0u);
    send(*r, 2, 2, 8, 3);
    EXPECT_EQ(r->rd(C2H_ERR_STAT), C2H_ERR_WRB_QFULL);
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), ERR_C2H_ST);
    const Words cmpt = r->read(CtxtSel::CMPT, 2);
    EXPECT_EQ(cmpt[3] >> 28 & 1u, 0u) << "invalidated";
    EXPECT_EQ(cmpt[3] >> 29 & 3u, 3u) << "err: ring overflow";
    EXPECT_EQ(r->get64(kCmptRing + 8 * 3) >> 35 & 3, 3u) << "status descriptor error 3";
}

TEST(QdmaStream, WiderCompletionEntries) {
    auto r = stream_queue(3);
    Cmpt wide{.qsize_ix = 1, .desc_size = 1, .base = kIova + kCmptRing};  // 16-byte entries
    r->write(CtxtSel::CMPT, 3, wide.words());
    send(*r, 3, 0, 64, 5);
    send(*r, 3, 1, 65, 6);
    EXPECT_EQ(entry(*r, 1, 16).length, 65u);
    EXPECT_EQ(r->get64(kCmptRing + 16 * (kEntries - 1)) & 0xFFFF, 2u) << "status in the last 16-byte slot";
}

TEST(QdmaStream, CompletionInterruptWaitsForTheCidxUpdate) {
    auto r = stream_queue(5);
    Words cmpt = Cmpt{.qsize_ix = 1, .base = kIova + kCmptRing}.words();
    cmpt[0] |= 1u << 1;  // en_int
    cmpt[4] = 2u << 4;   // vec 2, direct
    r->write(CtxtSel::CMPT, 5, cmpt);
    ASSERT_TRUE(r->device->irq_enable(vfio::IrqIndex::Msi, 4).ok());
    const int fd = r->device->irq_eventfd(2).value();
    uint64_t count = 0;
    send(*r, 5, 0, 10, 1);
    send(*r, 5, 1, 10, 2);
    ASSERT_EQ(::read(fd, &count, sizeof count), 8);
    EXPECT_EQ(count, 1u) << "one interrupt until the driver updates the CMPT CIDX";
    EXPECT_EQ(r->read(CtxtSel::CMPT, 5)[0] >> 25 & 3u, 1u) << "int_st TRIG";
    r->wr(r->doorbell(5, CMPT_CIDX), 2 | 1u << 24 | 1u << 27 | 1u << 28);
    send(*r, 5, 2, 10, 3);
    ASSERT_EQ(::read(fd, &count, sizeof count), 8);
    EXPECT_EQ(count, 1u);
}

TEST(QdmaStream, BadCmptCidxUpdateIsAnError) {
    auto r = stream_queue(6);
    send(*r, 6, 0, 8, 1);
    r->wr(r->doorbell(6, CMPT_CIDX), 2 | 1u << 24 | 1u << 27);  // one entry written, two returned
    EXPECT_EQ(r->rd(C2H_ERR_STAT), C2H_ERR_WRB_CIDX);
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), ERR_C2H_ST);
    EXPECT_EQ(r->read(CtxtSel::CMPT, 6)[3] >> 28 & 1u, 0u) << "invalidated";
    EXPECT_EQ(r->read(CtxtSel::CMPT, 6)[3] >> 29 & 3u, 1u) << "err: bad CIDX update";
    EXPECT_EQ(r->get64(kCmptRing + 8 * (kEntries - 1)) >> 35 & 3, 1u) << "status error 1";
    send(*r, 6, 1, 8, 2);
    EXPECT_EQ(r->model->processed(sim::QdmaQueueKind::C2H, 6), 1u) << "an invalid CMPT context takes no packet";
}

TEST(QdmaStream, MovesNothingCompletesThePacketWithoutItsBytes) {
    auto r = stream_queue(7);
    r->model->set_lie(streams::Lie{streams::Lie::Kind::MovesNothing});
    send(*r, 7, 0, 300, 4);
    EXPECT_EQ(entry(*r, 0).length, 300u) << "the completion reports the packet";
    EXPECT_EQ(r->host[kBuffers], 0xA5) << "its buffer kept the poison";
    EXPECT_NE(std::memcmp(r->host + kBuffers, r->host + kSource, 300), 0);
}

}  // namespace qdma_stream_test
