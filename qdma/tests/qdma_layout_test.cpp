// The context structures and descriptor formats against PG302's bit positions, field by field.
#include <gtest/gtest.h>

#include "qdma/qdma_registers.hpp"

#include <cstring>

namespace {

using namespace qdma;

TEST(QdmaLayout, BitsStraddleWords) {
    ContextWords w{};
    set_bits(w, 28, 8, 0xA5);
    EXPECT_EQ(w[0], 0x50000000u);
    EXPECT_EQ(w[1], 0x0000000Au);
    EXPECT_EQ(get_bits(w, 28, 8), 0xA5u);
    set_bits(w, 64, 64, 0x123456789ABCD000ull);
    EXPECT_EQ(w[2], 0x9ABCD000u);
    EXPECT_EQ(w[3], 0x12345678u);
}

TEST(QdmaLayout, SoftwareContextFieldsSitWherePg302Says) {
    SoftwareContext c;
    c.pidx = 0x1234;
    c.fnc_id = 3;
    c.qen = true;
    c.wbk_en = true;
    c.rngsz_idx = 0xA;
    c.dsc_sz = DscSz::Bytes32;
    c.is_mm = true;
    c.dsc_base = 0xFEDC000000001000ull;
    c.vec = 0x7FF;
    c.int_aggr = true;
    const ContextWords w = c.encode();
    EXPECT_EQ(w[0], 0x1234u | 3u << 17);                               // pidx [15:0], fnc_id [28:17]
    EXPECT_EQ(w[1], 1u | 0xAu << 12 | 2u << 16 | 1u << 20 | 1u << 31);  // qen [32], rngsz_idx [47:44], dsc_sz [49:48], wbk_en [52], is_mm [63]
    EXPECT_EQ(w[2], 0x00001000u);                                      // dsc_base [127:64]
    EXPECT_EQ(w[3], 0xFEDC0000u);
    EXPECT_EQ(w[4], 0xFFFu);                                           // vec [138:128], int_aggr [139]
    const SoftwareContext back = SoftwareContext::decode(w);
    EXPECT_EQ(back.pidx, 0x1234);
    EXPECT_EQ(back.fnc_id, 3);
    EXPECT_TRUE(back.qen && back.wbk_en && back.is_mm && back.int_aggr);
    EXPECT_FALSE(back.bypass || back.irq_en || back.wbi_chk);
    EXPECT_EQ(back.rngsz_idx, 0xA);
    EXPECT_EQ(back.dsc_sz, DscSz::Bytes32);
    EXPECT_EQ(back.dsc_base, 0xFEDC000000001000ull);
}

TEST(QdmaLayout, HardwareContextDecodes) {
    ContextWords w{};
    w[0] = 0x00050007;  // cidx 7, crd_use 5
    w[1] = 1u << 8 | 1u << 9;  // dsc_pnd [40], idl_stp_b [41]
    const HardwareContext c = HardwareContext::decode(w);
    EXPECT_EQ(c.cidx, 7);
    EXPECT_EQ(c.crd_use, 5);
    EXPECT_TRUE(c.dsc_pnd);
    EXPECT_TRUE(c.idl_stp_b);
    EXPECT_FALSE(c.evt_pnd);
}

TEST(QdmaLayout, CompletionContextFields) {
    CompletionContext c;
    c.en_stat_desc = true;
    c.trig_mode = TriggerMode::Every;
    c.fnc_id = 2;
    c.color = true;
    c.qsize_idx = 5;
    c.baddr = 0x0000123456789040ull;  // 64-byte aligned
    c.valid = true;
    c.dir_c2h = true;
    const ContextWords w = c.encode();
    EXPECT_EQ(w[0], 1u | 1u << 2 | 2u << 5 | 1u << 27 | 5u << 28);
    EXPECT_EQ(get_bits(w, 32, 58), 0x0000123456789040ull >> 6);  // baddr4_high: address [63:6]
    EXPECT_EQ(get_bits(w, 124, 1), 1u);                          // valid
    EXPECT_EQ(get_bits(w, 146, 1), 1u);                          // dir_c2h
    const CompletionContext back = CompletionContext::decode(w);
    EXPECT_EQ(back.baddr, 0x0000123456789040ull);
    EXPECT_EQ(back.qsize_idx, 5);
    EXPECT_EQ(back.trig_mode, TriggerMode::Every);
    EXPECT_TRUE(back.color && back.valid && back.dir_c2h && back.en_stat_desc);
}

TEST(QdmaLayout, PrefetchFmapAndInterruptContexts) {
    PrefetchContext p;
    p.bufsz_idx = 9;
    p.pfch_en = true;
    p.valid = true;
    const ContextWords pw = p.encode();
    EXPECT_EQ(pw[0], 9u << 1 | 1u << 27);
    EXPECT_EQ(pw[1], 1u << 13);  // valid [45]
    EXPECT_EQ(PrefetchContext::decode(pw).bufsz_idx, 9);

    const ContextWords fw = FmapContext{100, 32}.encode();
    EXPECT_EQ(fw[0], 100u);  // qid_base [10:0]
    EXPECT_EQ(fw[1], 32u);   // qid_max [43:32]
    EXPECT_EQ(FmapContext::decode(fw).qid_max, 32);

    InterruptContext i;
    i.valid = true;
    i.vec = 3;
    i.color = true;
    i.baddr_4k = 0xABCDE000ull;
    i.page_size = 1;
    i.func = 2;
    const ContextWords iw = i.encode();
    EXPECT_EQ(iw[0] & 0x7FFF, 1u | 3u << 1 | 1u << 14);
    EXPECT_EQ(get_bits(iw, 15, 52), 0xABCDEull);
    EXPECT_EQ(get_bits(iw, 114, 12), 2u);
    EXPECT_EQ(InterruptContext::decode(iw).baddr_4k, 0xABCDE000ull);
}

TEST(QdmaLayout, IndirectCommandWord) {
    // qid [19:7], op [6:5], sel [4:1]
    EXPECT_EQ(ind_ctxt_cmd(5, CtxtOp::QDMA_CTXT_WR, CtxtSel::QDMA_CTXT_SELC_FMAP), 5u << 7 | 1u << 5 | 0xCu << 1);
    EXPECT_EQ(ind_ctxt_cmd(0x1FFF, CtxtOp::QDMA_CTXT_INV, CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C), 0x1FFFu << 7 | 3u << 5 | 1u << 1);
    EXPECT_STREQ(to_string(CtxtSel::QDMA_CTXT_SELC_WRB), "QDMA_CTXT_SELC_WRB");
}

TEST(QdmaLayout, DescriptorsAndStatus) {
    const MmDescriptor mm = mm_descriptor(0x1000, 0x80000000ull, 0x8000);
    uint64_t raw[4];
    std::memcpy(raw, &mm, sizeof raw);
    EXPECT_EQ(raw[0], 0x1000u);        // src_addr [63:0]
    EXPECT_EQ(raw[1], 0x8000u);        // lengthInByte [79:64]
    EXPECT_EQ(raw[2], 0x80000000ull);  // dst_addr [191:128]
    H2cStreamDescriptor h;
    h.len = 1500;
    h.addr = 0x2000;
    uint64_t hr[2];
    std::memcpy(hr, &h, sizeof hr);
    EXPECT_EQ(hr[0], uint64_t{1500} << 32);  // len [47:32]
    EXPECT_EQ(hr[1], 0x2000u);               // addr [127:64]
    const WritebackStatus s = WritebackStatus::decode(uint64_t{9} << 32 | uint64_t{7} << 16 | 2);
    EXPECT_EQ(s.pidx, 9);
    EXPECT_EQ(s.cidx, 7);
    EXPECT_EQ(s.err, 2);
    const CompletionStatus cs = CompletionStatus::decode(uint64_t{3} << 35 | uint64_t{1} << 32 | uint64_t{4} << 16 | 6);
    EXPECT_EQ(cs.pidx, 6);
    EXPECT_EQ(cs.cidx, 4);
    EXPECT_TRUE(cs.color);
    EXPECT_EQ(cs.error, 3);
    const CompletionEntry e = CompletionEntry::decode(uint64_t{1500} << 4 | 1u << 1);
    EXPECT_TRUE(e.color);
    EXPECT_FALSE(e.error);
    EXPECT_EQ(e.length, 1500);
    // CMPT_CIDX doorbell: wrb_cidx [15:0], trigger_mode [26:24], en_sts_desc_wrb [27], irq_en_wrb [28]
    EXPECT_EQ(cmpt_cidx(17, TriggerMode::Every, true, false), 17u | 1u << 24 | 1u << 27);
}

}  // namespace
