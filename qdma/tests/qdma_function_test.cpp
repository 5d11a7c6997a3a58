// Function and queue set-up against the in-test QDMA: PG302's order of context commands,
// option validation naming registers, refused and stalled commands, a queue left enabled.
#include <gtest/gtest.h>

#include "qdma/qdma_function.hpp"
#include "qdma/qdma_queue.hpp"
#include "qdma_fake.hpp"
#include "test_support/failed_with.hpp"

namespace {

using namespace qdma;
using qdma_test::FakeRig;
using qdma_test::has;
using test_support::failed_with;

QueueOptions qo(uint32_t qid, QueueDirection direction = QueueDirection::H2C, QueueKind kind = QueueKind::MemoryMapped,
               uint32_t ring_entries = 64) {  // 64: one of the in-test QDMA's ring sizes
    QueueOptions o;
    o.qid = qid;
    o.direction = direction;
    o.kind = kind;
    o.ring_entries = o.completion_entries = ring_entries;
    return o;
}

std::unique_ptr<Function> open_function(FakeRig& rig, FunctionOptions options = {}) {
    auto f = Function::open(*rig.device, options);
    EXPECT_TRUE(f.ok()) << f.error().message();
    return f.ok() ? std::move(f).value() : nullptr;
}

TEST(QdmaFunction, ReadsCapabilitiesAndProgramsFmap) {
    FakeRig rig;
    auto f = open_function(rig, FunctionOptions{.bar = 0, .function = 0, .qid_base = 8, .queues = 4});
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->capabilities().multq_max, 64u);
    EXPECT_TRUE(f->capabilities().h2c_st && f->capabilities().c2h_st);
    EXPECT_EQ(f->capabilities().h2c_mm_engines, 1u);
    EXPECT_EQ(f->capabilities().ring_sizes[1], 128u);
    ASSERT_EQ(rig.fake->commands.size(), 1u);
    EXPECT_EQ(rig.fake->commands[0], "WR 12 0");  // FMAP (sel 0xC) of function 0
    const FmapContext fmap = FmapContext::decode(rig.fake->context(CtxtSel::QDMA_CTXT_SELC_FMAP, 0));
    EXPECT_EQ(fmap.qid_base, 8);
    EXPECT_EQ(fmap.qid_max, 4);
    EXPECT_EQ(*f->physical_qid(3), 11u);
    auto past = f->physical_qid(4);
    EXPECT_TRUE(failed_with(past, EINVAL, "queue 4 is past the function's FMAP range of 4 queue(s)"));
}

TEST(QdmaFunction, RefusesQueuesPastMultqMax) {
    FakeRig rig;
    auto f = Function::open(*rig.device, FunctionOptions{.qid_base = 60, .queues = 8});
    ASSERT_TRUE(failed_with(f, EINVAL, "QDMA_GLBL2_CHANNEL_QDMA_CAP.MULTQ_MAX 64"));
}

TEST(QdmaFunction, RefusesANonQdma) {
    FakeRig rig;
    rig.bar = std::make_shared<sim::SimBar>(0x20000, 0);  // reads 0: no CONFIG_BLOCK_ID
    sim::SimDevice device(qdma_test::identity(), {rig.bar});
    auto f = Function::open(device, {});
    ASSERT_TRUE(failed_with(f, ENODEV, "CONFIG_BLOCK_ID reads 0x0"));
}

TEST(QdmaFunction, RingSizesMustBeGlblRngSzValues) {
    FakeRig rig;
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(*f->ring_size_index(256), 2u);
    auto bad = f->ring_size_index(100);
    EXPECT_TRUE(failed_with(bad, EINVAL, "100 entries is none of QDMA_GLBL_RNG_SZ_1..16 (64 128 256"));
    auto buf = f->c2h_buffer_size_index(1000);
    ASSERT_FALSE(buf.ok());
    EXPECT_TRUE(has(buf.error().message(), "none of QDMA_C2H_BUF_SZ_0..15 (4096")) << buf.error().message();
}

TEST(QdmaFunction, ARefusedContextWriteIsAnErrorNamingTheRegister) {
    FakeRig rig;
    rig.fake->refuse_sel = 0xC;
    auto f = Function::open(*rig.device, {});
    ASSERT_TRUE(failed_with(f, EIO, "QDMA_CTXT_WR QDMA_CTXT_SELC_FMAP qid 0"));
    EXPECT_TRUE(has(f.error().message(), "QDMA_GLBL_ERR_STAT 0x200 (IND_CTXT_CMD_ERR 0x1)")) << f.error().message();
}

TEST(QdmaFunction, AnEarlierEngineErrorIsNotTakenForARefusedCommand) {
    FakeRig rig;
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    rig.fake->raise_error(qdma::GLBL_ERR_STAT_ERR_DSC);  // left by a queue's descriptor error
    const std::array<uint32_t, 8> words = FmapContext{0, 16}.encode();
    EXPECT_TRUE(f->context_command(0, 0xC, 1, &words).ok());
    rig.fake->refuse_sel = 0xC;  // this command's own refusal is still seen
    auto refused = f->context_command(0, 0xC, 1, &words);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(has(refused.error().message(), "IND_CTXT_CMD_ERR")) << refused.error().message();
}

TEST(QdmaFunction, ABusyThatNeverClearsTimesOut) {
    FakeRig rig;
    rig.fake->stuck_busy = true;
    auto f = Function::open(*rig.device, FunctionOptions{.context_timeout = std::chrono::milliseconds(20)});
    ASSERT_TRUE(failed_with(f, ETIMEDOUT, "QDMA_IND_CTXT_CMD.busy still set after 20 ms"));
}

TEST(QdmaQueue, SetUpFollowsPg302AndTearDownInvalidates) {
    FakeRig rig;
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    rig.fake->commands.clear();
    {
        auto q = Queue::open(*f, qo(2, QueueDirection::H2C, QueueKind::MemoryMapped, 128));
        ASSERT_TRUE(q.ok()) << q.error().message();
        // Read (qen check), clear SW, HW, credit (H2C selectors 1, 3, 5), write SW.
        EXPECT_EQ(rig.fake->commands, (std::vector<std::string>{"RD 1 2", "CLR 1 2", "CLR 3 2", "CLR 5 2", "WR 1 2"}));
        const SoftwareContext sw = SoftwareContext::decode(rig.fake->context(CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C, 2));
        EXPECT_TRUE(sw.qen && sw.is_mm && sw.wbk_en && sw.wbi_chk);
        EXPECT_EQ(sw.rngsz_idx, 1);
        EXPECT_EQ(sw.dsc_sz, DscSz::Bytes32);
        EXPECT_NE(sw.dsc_base, 0u);
        EXPECT_EQ(sw.dsc_base % 4096, 0u);
        EXPECT_EQ((*q)->capacity(), 126u);  // 128 entries: 127 descriptors, one kept empty
        rig.fake->commands.clear();
    }
    EXPECT_EQ(rig.fake->commands, (std::vector<std::string>{"INV 1 2", "CLR 1 2"}));  // PG302 Queue Teardown
}

TEST(QdmaQueue, C2hStreamSetUpAddsCompletionAndPrefetch) {
    FakeRig rig;
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    rig.fake->commands.clear();
    auto q = Queue::open(*f, qo(1, QueueDirection::C2H, QueueKind::Stream));
    ASSERT_TRUE(q.ok()) << q.error().message();
    EXPECT_EQ(rig.fake->commands, (std::vector<std::string>{"RD 0 1", "CLR 0 1", "CLR 2 1", "CLR 4 1", "WR 0 1",
                                                            "CLR 7 1", "CLR 6 1", "WR 6 1", "WR 7 1"}));
    const CompletionContext cmpt = CompletionContext::decode(rig.fake->context(CtxtSel::QDMA_CTXT_SELC_WRB, 1));
    EXPECT_TRUE(cmpt.valid && cmpt.color && cmpt.en_stat_desc && cmpt.dir_c2h);
    EXPECT_EQ(cmpt.baddr % 64, 0u);
    EXPECT_TRUE(PrefetchContext::decode(rig.fake->context(CtxtSel::QDMA_CTXT_SELC_PFTCH, 1)).valid);
    rig.fake->commands.clear();
    (*q).reset();  // the queue is torn down
    // PG302 Queue Teardown (C2H stream): prefetch, completion, software context, then the timer.
    EXPECT_EQ(rig.fake->commands, (std::vector<std::string>{"CLR 7 1", "CLR 6 1", "INV 0 1", "CLR 0 1", "INV 11 1"}));
}

TEST(QdmaQueue, AQueueLeftEnabledIsReportedAndInvalidated) {
    FakeRig rig;
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    SoftwareContext left;
    left.qen = true;
    left.fnc_id = 0;
    rig.fake->context(CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C, 3) = left.encode();
    rig.fake->commands.clear();
    std::vector<std::string> warnings;
    QueueOptions options = qo(3);
    options.warn = [&](const std::string& line) { warnings.push_back(line); };
    auto q = Queue::open(*f, options);
    ASSERT_TRUE(q.ok()) << q.error().message();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(has(warnings[0], "H2C MM queue 3 (physical qid 3, function 0) was left enabled")) << warnings[0];
    EXPECT_EQ(rig.fake->commands[1], "INV 1 3");
}

TEST(QdmaQueue, RefusesWhatTheIpHasNot) {
    FakeRig rig;
    rig.fake->mdma = 0x00000001;  // one H2C MM engine only
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    auto c2h = Queue::open(*f, qo(0, QueueDirection::C2H));
    EXPECT_TRUE(failed_with(c2h, ENODEV, "QDMA_GLBL2_CHANNEL_MDMA reports no C2H_ENG"));
    auto st = Queue::open(*f, qo(0, QueueDirection::H2C, QueueKind::Stream));
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(has(st.error().message(), "no H2C_ST")) << st.error().message();
    auto ring = Queue::open(*f, qo(0, QueueDirection::H2C, QueueKind::MemoryMapped, 100));
    ASSERT_FALSE(ring.ok());
    EXPECT_TRUE(has(ring.error().message(), "QDMA_GLBL_RNG_SZ")) << ring.error().message();
}

TEST(QdmaQueue, RingArithmeticWrapsAndRefusesAFullRing) {
    FakeRig rig;
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    ASSERT_TRUE(f->start_mm_channel(QueueDirection::H2C).ok());
    rig.fake->never_completes = true;
    auto q = std::move(Queue::open(*f, qo(0, QueueDirection::H2C, QueueKind::MemoryMapped, 8))).value();  // 7 descriptors, 6 outstanding
    vfio::DmaRegion host = std::move(vfio::DmaRegion::allocate(*rig.device, 4096, vfio::DmaAccess::DeviceReadWrite)).value();
    for (int i = 0; i < 6; ++i)
        ASSERT_TRUE(q->post_mm(host.iova(), 0x80000000ull, 64).ok());
    auto full = q->post_mm(host.iova(), 0x80000000ull, 64);
    ASSERT_FALSE(full.ok());
    EXPECT_EQ(full.error().code, EBUSY);
    EXPECT_EQ(*q->reap(), 0u);
    rig.fake->never_completes = false;
    q->commit();
    EXPECT_EQ(*q->reap(), 6u);
    for (int round = 0; round < 3; ++round) {  // wraps past descriptor 6 back to 0
        for (int i = 0; i < 5; ++i)
            ASSERT_TRUE(q->post_mm(host.iova(), 0x80000000ull, 64).ok());
        q->commit();
        EXPECT_EQ(*q->reap(), 5u);
    }
    auto zero = q->post_mm(host.iova(), 0x80000000ull, 0);
    ASSERT_FALSE(zero.ok());
    EXPECT_TRUE(has(zero.error().message(), "lengthInByte holds 1..64K-1"));
    EXPECT_FALSE(q->post_mm(host.iova(), 0x80000000ull, 0x10000).ok());
}

TEST(QdmaQueue, StatusErrorsAndBadCidxLatch) {
    FakeRig rig;
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    ASSERT_TRUE(f->start_mm_channel(QueueDirection::H2C).ok());
    vfio::DmaRegion host = std::move(vfio::DmaRegion::allocate(*rig.device, 4096, vfio::DmaAccess::DeviceReadWrite)).value();
    auto q = std::move(Queue::open(*f, qo(0, QueueDirection::H2C, QueueKind::MemoryMapped, 16))).value();
    rig.fake->status_err = true;
    ASSERT_TRUE(q->post_mm(host.iova(), 0x80000000ull, 64).ok());
    q->commit();
    auto e = q->reap();
    EXPECT_TRUE(failed_with(e, EIO, "status descriptor reports err 1 (DMA error)"));
    EXPECT_FALSE(q->post_mm(host.iova(), 0x80000000ull, 64).ok());  // latched
    rig.fake->status_err = false;
    ASSERT_TRUE(q->restart().ok());
    rig.fake->cidx_overrun = true;
    ASSERT_TRUE(q->post_mm(host.iova(), 0x80000000ull, 64).ok());
    q->commit();
    auto over = q->reap();
    ASSERT_FALSE(over.ok());
    EXPECT_TRUE(has(over.error().message(), "but only 1 were outstanding")) << over.error().message();
}

TEST(QdmaFunction, MmRunThatDoesNotStickIsAnError) {
    FakeRig rig;
    rig.fake->mm_run_sticks = false;
    auto f = open_function(rig);
    ASSERT_NE(f, nullptr);
    auto started = f->start_mm_channel(QueueDirection::C2H);
    ASSERT_FALSE(started.ok());
    EXPECT_TRUE(has(started.error().message(), "QDMA_C2H_MM_CTL reads 0x0 after run was set")) << started.error().message();
}

}  // namespace
