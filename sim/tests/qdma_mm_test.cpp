// The QDMA model's memory-mapped queues, driven through its BAR from PG302's sequence: FMAP,
// ring sizes, SW and HW contexts, MM run, PIDX doorbell; then the status descriptor, card memory
// and host memory, and a descriptor outside card memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include "qdma_rig.hpp"

namespace {

using namespace qdma_test;
using sim::qdma_csr::CtxtOp;
using sim::qdma_csr::CtxtSel;

constexpr size_t kRing = 0x0;         // descriptor ring at host offset 0 (32 B entries)
constexpr size_t kData = 0x10000;     // source / destination buffers
constexpr uint32_t kEntries = 8;      // GLBL_RNG_SZ_1: 7 descriptors and the status descriptor

// One MM queue on physical queue `qid` (function 0, FMAP 0..15), H2C or C2H.
std::unique_ptr<Rig<>> mm_queue(bool c2h, unsigned qid, Sw sw = {}) {
    auto r = std::make_unique<Rig<>>();
    r->ring_size(0, kEntries);
    r->fmap(0, 0, 16);
    sw.base = kIova + kRing;
    r->command(c2h ? CtxtSel::HW_C2H : CtxtSel::HW_H2C, CtxtOp::CLR, qid);
    r->write(c2h ? CtxtSel::SW_C2H : CtxtSel::SW_H2C, qid, sw.words());
    r->wr(c2h ? C2H_MM_CTL : H2C_MM_CTL, MM_CTL_RUN);
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), 0u);
    return r;
}

uint64_t status_of(const Rig<>& r) { return r.get64(kRing + (kEntries - 1) * 32); }

}  // namespace

TEST(QdmaMm, H2cMovesHostMemoryToCardMemory) {
    auto r = mm_queue(false, 2);
    for (size_t i = 0; i < 3000; ++i)
        r->host[kData + i] = static_cast<uint8_t>(i * 7 + 1);
    std::vector<uint8_t> poison(3000, 0xA5);
    ASSERT_TRUE(r->model->card_write(kCardBase + 0x1000, poison.data(), poison.size()));
    r->mm_descriptor(kRing, kIova + kData, 1000, kCardBase + 0x1000);
    r->mm_descriptor(kRing + 32, kIova + kData + 1000, 2000, kCardBase + 0x1000 + 1000);
    const uint64_t activity = *r->device->dma_activity();
    r->wr(r->doorbell(2, H2C_DSC_PIDX), 2);
    EXPECT_EQ(r->model->run_until_idle(), 2u);
    std::vector<uint8_t> card(3000);
    ASSERT_TRUE(r->model->card_read(kCardBase + 0x1000, card.data(), card.size()));
    EXPECT_EQ(std::memcmp(card.data(), r->host + kData, 3000), 0) << "all 3000 bytes";
    const uint64_t status = status_of(*r);
    EXPECT_EQ(Rig<>::status_cidx(status), 2u);
    EXPECT_EQ(Rig<>::status_pidx(status), 2u);
    EXPECT_EQ(Rig<>::status_err(status), 0u);
    EXPECT_EQ(r->rd(H2C_MM_CMPL_DESC_CNT), 2u);
    EXPECT_EQ(r->read(CtxtSel::HW_H2C, 2)[0] & 0xFFFF, 2u) << "HW context cidx";
    EXPECT_EQ(r->read(CtxtSel::HW_H2C, 2)[1] >> 8 & 1u, 0u) << "no descriptor pending";
    EXPECT_GE(*r->device->dma_activity() - activity, 3000u + 64) << "data and descriptors counted";
    EXPECT_EQ(r->model->processed(sim::QdmaQueueKind::H2C, 2), 2u);
}

TEST(QdmaMm, C2hMovesCardMemoryToHostMemory) {
    auto r = mm_queue(true, 0);
    std::vector<uint8_t> card(4096);
    for (size_t i = 0; i < card.size(); ++i)
        card[i] = static_cast<uint8_t>(i ^ 0x5A);
    ASSERT_TRUE(r->model->card_write(kCardBase + kCardSize - 4096, card.data(), card.size()));
    std::memset(r->host + kData, 0xA5, 4096);
    r->mm_descriptor(kRing, kCardBase + kCardSize - 4096, 4096, kIova + kData);
    r->wr(r->doorbell(0, C2H_DSC_PIDX), 1);
    r->model->run_until_idle();
    EXPECT_EQ(std::memcmp(r->host + kData, card.data(), 4096), 0) << "all 4096 bytes, to the last card byte";
    EXPECT_EQ(Rig<>::status_cidx(status_of(*r)), 1u);
    EXPECT_EQ(r->rd(C2H_MM_CMPL_DESC_CNT), 1u);
}

TEST(QdmaMm, NothingMovesWithoutTheRunBit) {
    auto r = mm_queue(false, 1);
    r->wr(H2C_MM_CTL, 0);
    r->mm_descriptor(kRing, kIova + kData, 64, kCardBase);
    r->wr(r->doorbell(1, H2C_DSC_PIDX), 1);
    EXPECT_EQ(r->model->run_until_idle(), 0u);
    EXPECT_EQ(r->read(CtxtSel::HW_H2C, 1)[1] >> 8 & 1u, 1u) << "dsc_pnd";
    r->wr(H2C_MM_CTL, MM_CTL_RUN);
    EXPECT_EQ(r->model->run_until_idle(), 1u);
}

TEST(QdmaMm, RingWrapsAtItsSizeLessTheStatusEntry) {
    auto r = mm_queue(false, 0);
    for (unsigned i = 0; i < 10; ++i) {
        const unsigned slot = i % (kEntries - 1);
        r->host[kData + i] = static_cast<uint8_t>(0x30 + i);
        r->mm_descriptor(kRing + 32 * slot, kIova + kData + i, 1, kCardBase + i);
        r->wr(r->doorbell(0, H2C_DSC_PIDX), (i + 1) % (kEntries - 1));
        r->model->run_until_idle();
    }
    uint8_t card[10];
    ASSERT_TRUE(r->model->card_read(kCardBase, card, 10));
    EXPECT_EQ(std::memcmp(card, r->host + kData, 10), 0);
    EXPECT_EQ(Rig<>::status_cidx(status_of(*r)), 10u % (kEntries - 1));
}

TEST(QdmaMm, WbiChkWritesTheStatusOnlyWhenCaughtUp) {
    auto r = mm_queue(false, 0, Sw{.wbi_chk = true});
    r->mm_descriptor(kRing, kIova + kData, 8, kCardBase);
    r->mm_descriptor(kRing + 32, kIova + kData, 8, kCardBase + 8);
    r->put64(kRing + (kEntries - 1) * 32, ~0ull);
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 2);
    EXPECT_EQ(r->model->step(), 1u);
    EXPECT_EQ(status_of(*r), ~0ull) << "one of two done: no writeback yet";
    EXPECT_EQ(r->model->step(), 1u);
    EXPECT_EQ(Rig<>::status_cidx(status_of(*r)), 2u);
    auto off = mm_queue(false, 0, Sw{.wbk_en = false});
    off->mm_descriptor(kRing, kIova + kData, 8, kCardBase);
    off->put64(kRing + (kEntries - 1) * 32, ~0ull);
    off->wr(off->doorbell(0, H2C_DSC_PIDX), 1);
    off->model->run_until_idle();
    EXPECT_EQ(status_of(*off), ~0ull) << "wbk_en clear: no status descriptor";
    EXPECT_EQ(off->read(CtxtSel::HW_H2C, 0)[0] & 0xFFFF, 1u);
}

TEST(QdmaMm, DescriptorOutsideCardMemoryStopsTheQueue) {
    auto r = mm_queue(false, 3);
    r->mm_descriptor(kRing, kIova + kData, 0x100, kCardBase + kCardSize - 0x80);  // runs past the end
    r->mm_descriptor(kRing + 32, kIova + kData, 0x10, kCardBase);
    r->wr(r->doorbell(3, H2C_DSC_PIDX), 2);
    r->model->run_until_idle();
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), ERR_DSC);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), DSC_ERR_DMA);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_LOG0), 0x80000000u | 3u) << "valid, H2C, qid 3";
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_LOG1), 20u) << "cidx 0, err_type 20 (the DMA bit)";
    EXPECT_EQ(Rig<>::status_err(status_of(*r)), 1u) << "DMA error";
    EXPECT_EQ(Rig<>::status_cidx(status_of(*r)), 0u);
    EXPECT_EQ(r->read(CtxtSel::SW_H2C, 3)[1] >> 26 & 3u, 1u) << "SW context err";
    EXPECT_EQ(r->model->processed(sim::QdmaQueueKind::H2C, 3), 0u) << "the queue stopped: the second did not run";
    EXPECT_EQ(r->model->card_memory_resident_bytes(), 0u) << "nothing written";
    // The driver clears the error by rewriting the context (a fresh ring).
    r->command(CtxtSel::HW_H2C, CtxtOp::CLR, 3);
    r->write(CtxtSel::SW_H2C, 3, Sw{.pidx = 0, .base = kIova + kRing + 32}.words());
    r->wr(r->doorbell(3, H2C_DSC_PIDX), 1);
    EXPECT_EQ(r->model->run_until_idle(), 1u);
}

TEST(QdmaMm, DoorbellsTranslateThroughTheFunctionsFmap) {
    // PF 2 of a 4-PF card: its doorbells use FMAP[2].
    auto r = std::make_unique<Rig<>>(designs::QdmaSimulation{4, 64, false, true}, 2);
    r->ring_size(0, kEntries);
    r->fmap(2, 32, 8);
    r->write(CtxtSel::SW_H2C, 33, Sw{.fnc = 2, .base = kIova + kRing}.words());
    r->wr(H2C_MM_CTL, MM_CTL_RUN);
    r->host[kData] = 0x77;
    r->mm_descriptor(kRing, kIova + kData, 1, kCardBase + 5);
    r->wr(r->doorbell(1, H2C_DSC_PIDX), 1);
    r->model->run_until_idle();
    uint8_t byte = 0;
    ASSERT_TRUE(r->model->card_read(kCardBase + 5, &byte, 1));
    EXPECT_EQ(byte, 0x77);
    EXPECT_EQ(r->model->processed(sim::QdmaQueueKind::H2C, 33), 1u);
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), 0u);
}

TEST(QdmaMm, ArmedQueueRaisesItsVectorOnce) {
    auto r = mm_queue(false, 0);
    Words sw = Sw{.base = kIova + kRing}.words();
    sw[1] |= 1u << 21;  // irq_en
    sw[4] = 3;          // vec 3, direct (int_aggr 0)
    r->write(CtxtSel::SW_H2C, 0, sw);
    ASSERT_TRUE(r->device->irq_enable(vfio::IrqIndex::Msi, 4).ok());
    const int fd = r->device->irq_eventfd(3).value();
    uint64_t count = 0;
    r->mm_descriptor(kRing, kIova + kData, 8, kCardBase);
    r->mm_descriptor(kRing + 32, kIova + kData, 8, kCardBase);
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 1);  // irq_en [16] clear: not armed
    r->model->run_until_idle();
    EXPECT_LT(::read(fd, &count, sizeof count), 0) << "not armed: no interrupt";
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 2 | 1u << 16);  // armed
    r->model->run_until_idle();
    ASSERT_EQ(::read(fd, &count, sizeof count), 8);
    EXPECT_EQ(count, 1u);
    EXPECT_EQ(r->read(CtxtSel::SW_H2C, 0)[0] >> 16 & 1u, 0u) << "disarmed after it fired";
}

TEST(QdmaMm, PidxPastTheRingMovesNothing) {
    auto r = mm_queue(false, 0);
    r->mm_descriptor(kRing, kIova + kData, 8, kCardBase);
    r->wr(r->doorbell(0, H2C_DSC_PIDX), kEntries - 1);  // entry N - 1 is the status descriptor
    EXPECT_EQ(r->model->run_until_idle(), 0u);
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 1);
    EXPECT_EQ(r->model->run_until_idle(), 1u);
}

TEST(QdmaMm, BypassQueueMovesNothing) {
    Words sw = Sw{.base = kIova + kRing}.words();
    sw[1] |= 1u << 18;  // bypass: descriptors to the (absent) user logic
    auto r = mm_queue(false, 0);
    r->write(CtxtSel::SW_H2C, 0, sw);
    r->mm_descriptor(kRing, kIova + kData, 8, kCardBase);
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 1);
    EXPECT_EQ(r->model->run_until_idle(), 0u);
    EXPECT_EQ(r->model->processed(sim::QdmaQueueKind::H2C, 0), 0u);
}
