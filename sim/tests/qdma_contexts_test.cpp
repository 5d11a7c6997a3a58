// The QDMA model's global registers and indirect context interface (PG302 Context Programming),
// driven through its BAR: masks, read back, clear and invalidate, and every refused write with
// the error registers it sets.
#include <gtest/gtest.h>

#include "qdma_rig.hpp"

namespace {

using namespace qdma_test;
using sim::qdma_csr::CtxtOp;
using sim::qdma_csr::CtxtSel;

std::unique_ptr<Rig<>> rig(designs::QdmaSimulation caps = {1, 64, true, true}) { return std::make_unique<Rig<>>(caps); }

}  // namespace

TEST(QdmaRegisters, GlobalCsrsAreProgrammable) {
    auto r = rig();
    r->ring_size(0, 0x12345);
    EXPECT_EQ(r->rd(GLBL_RNG_SZ_1), 0x2345u) << "ring_size [15:0]";
    r->ring_size(15, 1025);
    EXPECT_EQ(r->rd(GLBL_RNG_SZ_1 + 60), 1025u);
    r->wr(C2H_BUF_SZ + 4 * 3, 4096);
    EXPECT_EQ(r->rd(C2H_BUF_SZ + 12), 4096u);
    r->wr(C2H_TIMER_CNT + 4, 0x1FFFF);
    EXPECT_EQ(r->rd(C2H_TIMER_CNT + 4), 0xFFFFu);
    r->wr(C2H_CNT_TH + 8, 64);
    EXPECT_EQ(r->rd(C2H_CNT_TH + 8), 64u);
    r->wr(GLBL_DSC_CFG, 0xFFFFFFFF);
    EXPECT_EQ(r->rd(GLBL_DSC_CFG), 0x33Fu);
    EXPECT_EQ(r->rd(H2C_MM_STATUS), 0u);
    r->wr(H2C_MM_CTL, MM_CTL_RUN);
    r->wr(C2H_MM_CTL, MM_CTL_RUN);
    EXPECT_EQ(r->rd(H2C_MM_STATUS), 1u);
    EXPECT_EQ(r->rd(C2H_MM_STATUS), 1u);
    EXPECT_EQ(r->rd(CONFIG_BLOCK_ID) >> 16, QDMA_IDENTIFIER) << "identification unchanged";
    r->wr(GLBL2_CHANNEL_QDMA_CAP, 0);
    EXPECT_EQ(r->rd(GLBL2_CHANNEL_QDMA_CAP), 64u) << "read-only";
    ASSERT_TRUE(r->device->reset().ok());
    EXPECT_EQ(r->rd(GLBL_RNG_SZ_1 + 60), 0u) << "device reset clears the CSRs";
    EXPECT_EQ(r->rd(H2C_MM_CTL), 0u);
}

TEST(QdmaRegisters, StMmOnlyIpHasNoMmRunBit) {
    auto r = rig({1, 64, true, false});
    r->wr(H2C_MM_CTL, MM_CTL_RUN);
    EXPECT_EQ(r->rd(H2C_MM_CTL), 0u) << "no MM engine";
}

TEST(QdmaContexts, WriteHonoursTheMaskAndReadsBack) {
    auto r = rig();
    r->ring_size(2, 64);
    r->fmap(0, 0, 16);
    EXPECT_EQ(r->read(CtxtSel::FMAP, 0)[0], 0u);
    EXPECT_EQ(r->read(CtxtSel::FMAP, 0)[1], 16u);
    const Words sw = Sw{.pidx = 5, .rng_sz = 2, .base = kIova}.words();
    r->write(CtxtSel::SW_H2C, 3, sw);
    EXPECT_EQ(r->read(CtxtSel::SW_H2C, 3), sw);
    EXPECT_EQ(r->rd(IND_CTXT_CMD) & 1u, 0u) << "busy clear: the command completed";
    // Change only the pidx (W0 [15:0]) under the mask.
    Words mask{};
    mask[0] = 0xFFFF;
    r->command(CtxtSel::SW_H2C, CtxtOp::WR, 3, Words{0xFFFF0009u, 0xFFFFFFFFu}, mask);
    Words expected = sw;
    expected[0] = (sw[0] & ~0xFFFFu) | 9;
    EXPECT_EQ(r->read(CtxtSel::SW_H2C, 3), expected);
    EXPECT_EQ(r->read(CtxtSel::SW_C2H, 3), Words{}) << "the C2H context of the queue is its own";
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), 0u);
}

TEST(QdmaContexts, ClearAndInvalidate) {
    auto r = rig();
    r->ring_size(0, 16);
    r->fmap(0, 0, 8);
    r->write(CtxtSel::SW_C2H, 1, Sw{.rng_sz = 0}.words());
    r->command(CtxtSel::SW_C2H, CtxtOp::INV, 1);
    const Words inv = r->read(CtxtSel::SW_C2H, 1);
    EXPECT_EQ(inv[1] & 1u, 0u) << "INV clears qen";
    EXPECT_EQ(inv[1] & ~1u, Sw{.rng_sz = 0}.words()[1] & ~1u) << "the rest stays";
    r->command(CtxtSel::SW_C2H, CtxtOp::CLR, 1);
    EXPECT_EQ(r->read(CtxtSel::SW_C2H, 1), Words{});
    r->write(CtxtSel::CMPT, 1, Cmpt{.qsize_ix = 0, .base = kIova}.words());
    r->command(CtxtSel::CMPT, CtxtOp::INV, 1);
    EXPECT_EQ(r->read(CtxtSel::CMPT, 1)[3] >> 28 & 1u, 0u) << "INV clears the CMPT valid bit";
}

TEST(QdmaContexts, QidPastTheIpsQueuesIsRefused) {
    auto r = rig();
    r->ring_size(0, 16);
    r->write(CtxtSel::SW_H2C, 64, Sw{}.words());
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), ERR_TRQ | IND_CTXT_CMD_ERR);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), TRQ_ERR_QID_RANGE);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_LOG) & 0x1FFFF, IND_CTXT_CMD);
    // Write 1 to clear.
    r->wr(GLBL_TRQ_ERR_STS, TRQ_ERR_QID_RANGE);
    r->wr(GLBL_ERR_STAT, ERR_TRQ | IND_CTXT_CMD_ERR);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), 0u);
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), 0u);
    // An FMAP for a function the IP lacks.
    r->fmap(1, 0, 8);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), TRQ_ERR_QID_RANGE) << "one PF only";
    r->wr(GLBL_TRQ_ERR_STS, ~0u);
    r->write(CtxtSel::FMAP, 0, {0, 0});  // the data registers now hold zeros
    EXPECT_EQ(r->read(CtxtSel::FMAP, 1), Words{}) << "nothing stored for function 1";
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), TRQ_ERR_QID_RANGE) << "the read of it is refused too";
}

TEST(QdmaContexts, QueueOutsideItsFunctionIsRefused) {
    auto r = rig({2, 64, true, true});
    r->ring_size(0, 16);
    // Function 1 has no FMAP yet.
    r->write(CtxtSel::SW_H2C, 0, Sw{.fnc = 1}.words());
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), TRQ_ERR_QID_RANGE);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_LOG) >> 17 & 0x3FF, 1u) << "func [26:17]";
    EXPECT_EQ(r->read(CtxtSel::SW_H2C, 0), Words{}) << "the refused context is not stored";
    r->wr(GLBL_TRQ_ERR_STS, ~0u);
    r->fmap(1, 8, 4);  // queues 8..11
    r->write(CtxtSel::SW_H2C, 12, Sw{.fnc = 1}.words());
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), TRQ_ERR_QID_RANGE) << "qid 12 is past qbase 8 + qmax 4";
    r->wr(GLBL_TRQ_ERR_STS, ~0u);
    r->write(CtxtSel::SW_H2C, 11, Sw{.fnc = 1}.words());
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), 0u);
    EXPECT_EQ(r->read(CtxtSel::SW_H2C, 11), Sw{.fnc = 1}.words());
    // qen clear: a context may be staged outside the range.
    r->write(CtxtSel::SW_H2C, 40, Sw{.fnc = 1, .qen = false}.words());
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), 0u);
}

TEST(QdmaContexts, ZeroRingSizeIsAParameterError) {
    auto r = rig();
    r->fmap(0, 0, 8);
    r->write(CtxtSel::SW_C2H, 5, Sw{.rng_sz = 7}.words());  // GLBL_RNG_SZ_8 still 0
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), ERR_DSC | IND_CTXT_CMD_ERR);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), DSC_ERR_PARAM);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_LOG0), 0x80000000u | 1u << 30 | 5u) << "valid, C2H, qid 5";
    EXPECT_EQ(r->read(CtxtSel::SW_C2H, 5), Words{});
    r->wr(GLBL_DSC_ERR_STS, ~0u);
    r->write(CtxtSel::CMPT, 5, Cmpt{.qsize_ix = 9}.words());
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), DSC_ERR_PARAM) << "CMPT ring size 0";
    r->wr(GLBL_DSC_ERR_STS, ~0u);
    Words pfch{};
    pfch[0] = 2u << 1;  // buf_sz_idx 2: C2H_BUF_SZ 0
    pfch[1] = 1u << 13;
    r->write(CtxtSel::PFTCH, 5, pfch);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), DSC_ERR_PARAM) << "buffer size 0";
}

TEST(QdmaContexts, DescriptorSizeAndEngineMustFitTheQueue) {
    auto r = rig({1, 64, true, false});  // stream engines only
    r->ring_size(0, 16);
    r->fmap(0, 0, 8);
    r->write(CtxtSel::SW_H2C, 0, Sw{.is_mm = true, .dsc_sz = 2}.words());
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), DSC_ERR_PARAM) << "no MM engine";
    r->wr(GLBL_DSC_ERR_STS, ~0u);
    r->write(CtxtSel::SW_H2C, 0, Sw{.is_mm = false, .dsc_sz = 0}.words());
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), DSC_ERR_PARAM) << "H2C ST descriptors are 16 bytes";
    r->wr(GLBL_DSC_ERR_STS, ~0u);
    r->write(CtxtSel::SW_H2C, 0, Sw{.is_mm = false, .dsc_sz = 1}.words());
    r->write(CtxtSel::SW_C2H, 0, Sw{.is_mm = false, .dsc_sz = 0}.words());
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), 0u);
    auto mm = rig({1, 64, false, true});
    mm->ring_size(0, 16);
    mm->fmap(0, 0, 8);
    mm->write(CtxtSel::SW_C2H, 0, Sw{.is_mm = false, .dsc_sz = 0}.words());
    EXPECT_EQ(mm->rd(GLBL_DSC_ERR_STS), DSC_ERR_PARAM) << "no stream engine";
    mm->wr(GLBL_DSC_ERR_STS, ~0u);
    mm->write(CtxtSel::SW_C2H, 0, Sw{.is_mm = true, .mm_chn = true}.words());
    EXPECT_EQ(mm->rd(GLBL_DSC_ERR_STS), DSC_ERR_PARAM) << "MM channel 1 absent";
    mm->wr(GLBL_DSC_ERR_STS, ~0u);
    mm->write(CtxtSel::SW_C2H, 0, Sw{.is_mm = true, .dsc_sz = 1}.words());
    EXPECT_EQ(mm->rd(GLBL_DSC_ERR_STS), DSC_ERR_PARAM) << "MM descriptors are 32 bytes";
}

TEST(QdmaContexts, ReservedSelectorIsRefused) {
    auto r = rig();
    r->wr(IND_CTXT_CMD, 0xDu << 1 | 1u << 5);
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), IND_CTXT_CMD_ERR);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), 0u);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), 0u);
}

TEST(QdmaDoorbells, QueueOutsideTheFunctionRangeIsCanceled) {
    auto r = rig();
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 1);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), TRQ_ERR_QID_RANGE) << "no FMAP: every queue is outside";
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), ERR_TRQ);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_LOG) & 0x1FFFF, QUEUE_PF + H2C_DSC_PIDX);
    r->wr(GLBL_TRQ_ERR_STS, ~0u);
    r->wr(GLBL_ERR_STAT, ~0u);
    r->fmap(0, 4, 2);
    r->wr(r->doorbell(2, C2H_DSC_PIDX), 3);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), TRQ_ERR_QID_RANGE) << "logical queue 2 of qmax 2";
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_LOG) & 0x1FFFF, QUEUE_PF + 2 * kQueueStride + C2H_DSC_PIDX);
    EXPECT_EQ(r->rd(r->doorbell(2, C2H_DSC_PIDX)), 0u) << "canceled";
    r->wr(GLBL_TRQ_ERR_STS, ~0u);
    r->wr(r->doorbell(1, C2H_DSC_PIDX), 3);
    EXPECT_EQ(r->rd(GLBL_TRQ_ERR_STS), 0u);
    EXPECT_EQ(r->read(CtxtSel::SW_C2H, 5)[0] & 0xFFFF, 3u) << "logical 1 is physical qbase 4 + 1";
}

TEST(QdmaContexts, EverySelectorStoresItsContext) {
    auto r = rig();
    const Words data{0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u, 0x55555555u, 0x66666666u, 0x77777777u, 0x88888888u};
    for (CtxtSel sel : {CtxtSel::HW_C2H, CtxtSel::HW_H2C, CtxtSel::CR_C2H, CtxtSel::CR_H2C, CtxtSel::INT_COAL,
                        CtxtSel::PASID_RAM_LOW, CtxtSel::PASID_RAM_HIGH, CtxtSel::TIMER}) {
        r->write(sel, 7, data);
        Words back = r->read(sel, 7);
        if (sel == CtxtSel::HW_C2H || sel == CtxtSel::HW_H2C)
            back[1] = (back[1] & ~(1u << 8)) | (data[1] & (1u << 8));  // dsc_pnd is the engine's
        EXPECT_EQ(back, data) << static_cast<unsigned>(sel);
        r->command(sel, CtxtOp::CLR, 7);
        EXPECT_EQ(r->read(sel, 7)[0], 0u) << static_cast<unsigned>(sel);
    }
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), 0u);
}

TEST(QdmaDoorbells, IntCidxIsStored) {
    auto r = rig();
    r->fmap(0, 0, 4);
    r->wr(r->doorbell(3, INT_CIDX), 0x00050009);
    EXPECT_EQ(r->rd(r->doorbell(3, INT_CIDX)), 0x00050009u) << "ring_idx 5, sw_cidx 9";
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), 0u);
}
