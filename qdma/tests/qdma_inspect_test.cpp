// Inspection (qdma_inspect.hpp) against sim's QDMA model: a started queue's contexts read back
// field by field against what its set-up wrote (the acceptance of F26 item 6), the model's lying
// context reads caught by field name, the FMAP read without writing, the global CSRs by name and
// the error status registers after errors the model raised.
#include <gtest/gtest.h>

#include <algorithm>

#include "qdma/qdma_inspect.hpp"
#include "qdma/qdma_queue.hpp"
#include "qdma_model_rig.hpp"
#include "test_support/failed_with.hpp"

namespace {

using namespace std::chrono_literals;
using test_support::failed_with;

std::unique_ptr<qdma::Function> writer(sim::DesignInstance& instance, const std::string& design, uint16_t base = 0) {
    qdma::FunctionOptions o;
    o.bar = qdma_model_test::design(design).qdma->bar;
    o.qid_base = base;
    o.queues = 8;
    auto f = qdma::Function::open(*instance.device, o);
    EXPECT_TRUE(f.ok()) << f.error().message();
    return f.ok() ? std::move(f).value() : nullptr;
}

pdt::Result<std::unique_ptr<qdma::Function>> reader(sim::DesignInstance& instance, const std::string& design) {
    qdma::FunctionOptions o;
    o.bar = qdma_model_test::design(design).qdma->bar;
    o.read_fmap = true;
    return qdma::Function::open(*instance.device, o);
}

std::unique_ptr<qdma::Queue> started(qdma::Function& f, uint32_t qid, qdma::QueueDirection d, qdma::QueueKind k) {
    qdma::QueueOptions o;
    o.qid = qid;
    o.direction = d;
    o.kind = k;
    o.completion_entries = 17;
    auto q = qdma::Queue::open(f, o);
    EXPECT_TRUE(q.ok()) << q.error().message();
    return q.ok() ? std::move(q).value() : nullptr;
}

uint64_t field(const qdma::QueueContext& c, const std::string& name) {
    for (const qdma::ContextField& f : c.fields)
        if (name == f.name)
            return f.value;
    ADD_FAILURE() << c.selector << " has no field " << name;
    return ~0ull;
}

struct Case {
    const char* design;
    qdma::QueueDirection direction;
    qdma::QueueKind kind;
    size_t contexts;  // the set-up writes
};

class StartedQueue : public ::testing::TestWithParam<Case> {};

TEST_P(StartedQueue, ContextsReadBackAsSetUpWroteThemFieldByField) {
    const Case c = GetParam();
    auto instance = qdma_model_test::instance(c.design);
    auto f = writer(instance, c.design, 4);
    ASSERT_NE(f, nullptr);
    auto q = started(*f, 3, c.direction, c.kind);
    ASSERT_NE(q, nullptr);
    auto check = qdma::check_set_up(*f, *q);
    ASSERT_TRUE(check.ok()) << check.error().message();
    ASSERT_EQ(check->written.size(), c.contexts);
    EXPECT_TRUE(check->differences.empty()) << check->differences.front();
    size_t fields = 0;
    for (size_t i = 0; i < check->written.size(); ++i) {
        const qdma::QueueContext& w = check->written[i];
        const qdma::QueueContext& r = check->read[i];
        ASSERT_EQ(r.fields.size(), w.fields.size()) << r.selector;
        for (size_t n = 0; n < w.fields.size(); ++n, ++fields)
            EXPECT_EQ(r.fields[n].value, w.fields[n].value) << r.selector << " " << w.fields[n].name;
    }
    EXPECT_EQ(check->fields_compared, fields);
    EXPECT_GT(fields, 20u);
    // What the driver wrote is what the queue is: its ring, its size, its function.
    const qdma::QueueContext& sw = check->read.front();
    EXPECT_EQ(field(sw, "dsc_base"), q->descriptor_ring().iova);
    EXPECT_EQ(field(sw, "rngsz_idx"), f->ring_size_index(q->options().ring_entries).value());
    EXPECT_EQ(field(sw, "qen"), 1u);
    EXPECT_EQ(q->hw_qid(), 7u);
}

INSTANTIATE_TEST_SUITE_P(
    Queues, StartedQueue,
    ::testing::Values(Case{"VD100_qdma_ddr4", qdma::QueueDirection::H2C, qdma::QueueKind::MemoryMapped, 1},
                      Case{"VD100_qdma_ddr4", qdma::QueueDirection::C2H, qdma::QueueKind::MemoryMapped, 1},
                      Case{"open-nic", qdma::QueueDirection::H2C, qdma::QueueKind::Stream, 1},
                      Case{"open-nic", qdma::QueueDirection::C2H, qdma::QueueKind::Stream, 3}));

// A queue started on `design`, then the model's context reads lie, then the set-up checked.
qdma::SetUpCheck checked_under_lie(const char* design, qdma::QueueDirection d, qdma::QueueKind k,
                                   sim::QdmaContextReadLie lie) {
    auto instance = qdma_model_test::instance(design);
    auto f = writer(instance, design);
    auto q = f ? started(*f, 1, d, k) : nullptr;
    if (!q)
        return {};
    instance.qdma->set_context_read_lie(lie);
    auto check = qdma::check_set_up(*f, *q);
    EXPECT_TRUE(check.ok()) << check.error().message();
    return check.ok() ? std::move(check).value() : qdma::SetUpCheck{};
}

TEST(QdmaInspect, AStaleContextReadDiffersInEveryFieldWritten) {
    const qdma::SetUpCheck check = checked_under_lie("open-nic", qdma::QueueDirection::C2H, qdma::QueueKind::Stream,
                                                     sim::QdmaContextReadLie::Stale);
    ASSERT_GT(check.fields_compared, 0u);
    EXPECT_EQ(check.differences.size(), check.fields_compared);
    EXPECT_EQ(check.differences.front().rfind("QDMA_CTXT_SELC_DEC_SW_C2H pidx [15:0]: set-up wrote 0x0, read 0xffff", 0),
              0u)
        << check.differences.front();
}

TEST(QdmaInspect, AContextReadWithAFlippedBitNamesTheField) {
    const qdma::SetUpCheck check = checked_under_lie("VD100_qdma_ddr4", qdma::QueueDirection::H2C,
                                                     qdma::QueueKind::MemoryMapped, sim::QdmaContextReadLie::FlipsBit44);
    ASSERT_EQ(check.differences.size(), 1u);
    EXPECT_NE(check.differences[0].find("QDMA_CTXT_SELC_DEC_SW_H2C rngsz_idx [47:44]: set-up wrote "), std::string::npos)
        << check.differences[0];
}

TEST(QdmaInspect, TheContextReadLiesAreNamedInPdtSimFault) {
    EXPECT_EQ(sim::parse_fault_plan("qdma_stale_context_read")->qdma_context_read_lie, sim::QdmaContextReadLie::Stale);
    EXPECT_EQ(sim::parse_fault_plan("qdma_context_read_flips")->qdma_context_read_lie,
              sim::QdmaContextReadLie::FlipsBit44);
    EXPECT_EQ(sim::parse_fault_plan("ignores_stop")->qdma_context_read_lie, sim::QdmaContextReadLie::None);
}

TEST(QdmaInspect, AReaderTakesTheFmapAWriterGaveAndListsEnabledQueues) {
    auto instance = qdma_model_test::instance("VD100_qdma_ddr4");
    auto f = writer(instance, "VD100_qdma_ddr4", 16);
    ASSERT_NE(f, nullptr);
    auto q = started(*f, 5, qdma::QueueDirection::C2H, qdma::QueueKind::MemoryMapped);
    ASSERT_NE(q, nullptr);
    auto r = reader(instance, "VD100_qdma_ddr4");
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ((*r)->options().qid_base, 16u);
    EXPECT_EQ((*r)->options().queues, 8u);
    auto listed = qdma::list_enabled_queues(**r);
    ASSERT_TRUE(listed.ok()) << listed.error().message();
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ((*listed)[0].qid, 5u);
    EXPECT_EQ((*listed)[0].hw_qid, 21u);
    EXPECT_EQ((*listed)[0].direction, qdma::QueueDirection::C2H);
    EXPECT_TRUE((*listed)[0].is_mm);
    EXPECT_EQ((*listed)[0].dsc_base, q->descriptor_ring().iova);
    // A queue past the function's FMAP range does not exist: refused before any context read.
    EXPECT_TRUE(failed_with(qdma::read_queue_contexts(**r, 8, qdma::QueueDirection::H2C, false), EINVAL,
                            "queue 8 is past the function's FMAP range of 8 queue(s)"));
}

TEST(QdmaInspect, AReaderOfAFunctionWithoutQueuesRefusesEveryQueueAndProgramsNothing) {
    auto instance = qdma_model_test::instance("VD100_qdma_ddr4");
    auto r = reader(instance, "VD100_qdma_ddr4");
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ((*r)->options().queues, 0u);
    EXPECT_TRUE(failed_with(qdma::read_queue_contexts(**r, 0, qdma::QueueDirection::H2C, false), EINVAL,
                            "queue 0 does not exist: the function has no queues (its FMAP context reads qid_max 0"));
    auto listed = qdma::list_enabled_queues(**r);
    ASSERT_TRUE(listed.ok());
    EXPECT_TRUE(listed->empty());
    // Reset leaves every QDMA_GLBL_RNG_SZ at 0; a reader does not program them (a writer does).
    for (uint32_t size : (*r)->capabilities().ring_sizes)
        EXPECT_EQ(size, 0u);
    auto f = writer(instance, "VD100_qdma_ddr4");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->capabilities().ring_sizes[0], 0u);
}

TEST(QdmaInspect, GlobalRegistersByName) {
    auto instance = qdma_model_test::instance("VD100_qdma_ddr4");
    auto f = writer(instance, "VD100_qdma_ddr4");
    ASSERT_NE(f, nullptr);
    const auto regs = qdma::read_global_registers(*f);
    const auto value = [&](const std::string& name) {
        auto it = std::find_if(regs.begin(), regs.end(), [&](const qdma::RegisterValue& r) { return r.name == name; });
        EXPECT_NE(it, regs.end()) << name;
        return it == regs.end() ? ~0u : it->value;
    };
    EXPECT_EQ(value("CONFIG_BLOCK_ID"), f->capabilities().config_block_id);
    EXPECT_EQ(value("QDMA_GLBL2_CHANNEL_QDMA_CAP") & 0xFFF, f->capabilities().multq_max);
    EXPECT_EQ(value("QDMA_GLBL_RNG_SZ_1") & 0xFFFF, f->capabilities().ring_sizes[0]);
    EXPECT_EQ(value("QDMA_GLBL_RNG_SZ_16") & 0xFFFF, f->capabilities().ring_sizes[15]);
    EXPECT_EQ(value("QDMA_C2H_BUF_SZ_15"), f->capabilities().c2h_buf_sizes[15]);
}

const qdma::ErrorRegister* named(const std::vector<qdma::ErrorRegister>& regs, const std::string& name) {
    for (const qdma::ErrorRegister& r : regs)
        if (r.name == name)
            return &r;
    ADD_FAILURE() << "no " << name;
    return nullptr;
}

TEST(QdmaInspect, ErrorStatusNamesEachSetBitAndItsMeaning) {
    auto instance = qdma_model_test::instance("VD100_qdma_ddr4");
    auto f = writer(instance, "VD100_qdma_ddr4");
    ASSERT_NE(f, nullptr);
    for (const qdma::ErrorRegister& r : qdma::read_error_status(*f)) {
        if (!r.log) {
            EXPECT_EQ(r.value, 0u) << r.name << " before any error";
        }
    }
    // A descriptor fetch that fails (Unsupported Request) on physical queue 2.
    auto q = started(*f, 2, qdma::QueueDirection::H2C, qdma::QueueKind::MemoryMapped);
    ASSERT_NE(q, nullptr);
    ASSERT_TRUE(f->start_mm_channel(qdma::QueueDirection::H2C).ok());
    instance.qdma->inject(sim::QdmaQueueKind::H2C, 2, sim::QdmaFault::DescriptorError);
    ASSERT_TRUE(q->post_mm(q->descriptor_ring().iova, 0, 64).ok());
    q->commit();
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (q->reap().ok() && std::chrono::steady_clock::now() < deadline) {
    }
    // An inspecting function's own commands (its FMAP read) leave the errors for the user to read.
    auto r = reader(instance, "VD100_qdma_ddr4");
    ASSERT_TRUE(r.ok()) << r.error().message();
    const auto regs = qdma::read_error_status(**r);
    const qdma::ErrorRegister* glbl = named(regs, "QDMA_GLBL_ERR_STAT");
    const qdma::ErrorRegister* dsc = named(regs, "QDMA_GLBL_DSC_ERR_STS");
    const qdma::ErrorRegister* log0 = named(regs, "QDMA_GLBL_DSC_ERR_LOG0");
    ASSERT_TRUE(glbl && dsc && log0);
    ASSERT_EQ(glbl->fields.size(), 1u);
    EXPECT_STREQ(glbl->fields[0].name, "ERR_DSC");
    EXPECT_NE(std::string(glbl->fields[0].meaning).find("QDMA_GLBL_DSC_ERR_STS"), std::string::npos);
    ASSERT_EQ(dsc->fields.size(), 1u);
    EXPECT_STREQ(dsc->fields[0].name, "UR_CA");
    ASSERT_EQ(log0->fields.size(), 3u);  // a log lists every field
    EXPECT_EQ(log0->fields[0].value, 1u);  // valid
    EXPECT_EQ(log0->fields[2].value, 2u);  // qid
    EXPECT_EQ(glbl->unnamed_bits, 0u);
}

}  // namespace
