// QDMA model faults and lies (PDT_SIM_FAULT): each makes a driver that checks what the hardware
// reports see the failure, and each lie makes unmoved, stale or late data visible to a driver
// that verifies the bytes.
#include <gtest/gtest.h>

#include <cstdlib>

#include "builtin_instance.hpp"
#include "qdma_rig.hpp"
#include "sim/design_sim.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace qdma_faults_test {

namespace {

using namespace qdma_test;
using sim::QdmaFault;
using sim::QdmaQueueKind;
using sim::qdma_csr::CtxtOp;
using sim::qdma_csr::CtxtSel;

constexpr size_t kRing = 0x0;
constexpr size_t kData = 0x10000;
constexpr uint32_t kEntries = 8;

std::unique_ptr<Rig<>> h2c_mm_queue(unsigned qid) {
    auto r = std::make_unique<Rig<>>();
    r->ring_size(0, kEntries);
    r->fmap(0, 0, 16);
    r->write(CtxtSel::SW_H2C, qid, Sw{.base = kIova + kRing}.words());
    r->wr(H2C_MM_CTL, MM_CTL_RUN);
    return r;
}

// Queues `count` H2C MM descriptors of `length` bytes each, card destinations back to back.
void post(Rig<>& r, unsigned qid, unsigned count, uint32_t length) {
    for (unsigned i = 0; i < count; ++i) {
        for (uint32_t b = 0; b < length; ++b)
            r.host[kData + i * length + b] = static_cast<uint8_t>(i * 31 + b + 1);
        r.mm_descriptor(kRing + 32 * i, kIova + kData + i * length, length, kCardBase + i * length);
    }
    r.wr(r.doorbell(qid, H2C_DSC_PIDX), count);
    r.model->run_until_idle();
}

bool card_matches(const Rig<>& r, unsigned index, uint32_t length) {
    std::vector<uint8_t> card(length);
    EXPECT_TRUE(r.model->card_read(kCardBase + index * length, card.data(), length));
    return std::memcmp(card.data(), r.host + kData + index * length, length) == 0;
}

uint64_t status_of(const Rig<>& r) { return r.get64(kRing + (kEntries - 1) * 32); }

// A stream queue pair `qid` (H2C ring at kIova, C2H ring at kIova + 0x1000 with one 4 KiB buffer
// at kData, completion ring at kIova + 0x2000), `fault` injected into its C2H queue, then one
// 32-byte packet sent from host offset 0x8000 and the model run until idle.
std::unique_ptr<Rig<>> one_packet_with_c2h_fault(unsigned qid, QdmaFault fault) {
    auto r = std::make_unique<Rig<>>(designs::QdmaSimulation{1, 64, true, false});
    r->ring_size(0, kEntries);
    r->wr(C2H_BUF_SZ, 4096);
    r->fmap(0, 0, 8);
    r->write(CtxtSel::SW_H2C, qid, Sw{.is_mm = false, .dsc_sz = 1, .base = kIova}.words());
    r->write(CtxtSel::SW_C2H, qid, Sw{.is_mm = false, .dsc_sz = 0, .base = kIova + 0x1000}.words());
    r->write(CtxtSel::PFTCH, qid, {0, 1u << 13});
    r->write(CtxtSel::CMPT, qid, Cmpt{.base = kIova + 0x2000}.words());
    r->put64(0x1000, kIova + kData);
    r->wr(r->doorbell(qid, C2H_DSC_PIDX), 1);
    r->model->inject(QdmaQueueKind::C2H, qid, fault);
    r->h2c_st_descriptor(0, kIova + 0x8000, 32);
    r->wr(r->doorbell(qid, H2C_DSC_PIDX), 1);
    r->model->run_until_idle();
    return r;
}

}  // namespace

TEST(QdmaFaults, DescriptorErrorStopsTheQueue) {
    auto r = h2c_mm_queue(1);
    r->model->inject(QdmaQueueKind::H2C, 1, QdmaFault::DescriptorError);
    EXPECT_EQ(r->model->faults_pending(QdmaQueueKind::H2C, 1), 1u);
    post(*r, 1, 2, 64);
    EXPECT_EQ(r->model->faults_pending(QdmaQueueKind::H2C, 1), 0u);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), DSC_ERR_UR_CA);
    EXPECT_EQ(r->rd(GLBL_ERR_STAT), ERR_DSC);
    EXPECT_EQ(Rig<>::status_err(status_of(*r)), 2u) << "descriptor fetch error";
    EXPECT_EQ(r->read(CtxtSel::SW_H2C, 1)[1] >> 26 & 3u, 2u);
    EXPECT_FALSE(card_matches(*r, 0, 64));
    EXPECT_EQ(r->model->processed(QdmaQueueKind::H2C, 1), 0u);
}

TEST(QdmaFaults, CompletionWithTheErrorBit) {
    auto r = one_packet_with_c2h_fault(0, QdmaFault::CompletionError);
    EXPECT_EQ(r->get64(0x2000) >> 2 & 1, 1u) << "the entry's error bit";
    EXPECT_EQ(r->get64(0x2000) >> 4 & 0xFFFF, 32u);
}

TEST(QdmaFaults, StalledQueueNeverAdvancesItsCidx) {
    auto r = h2c_mm_queue(0);
    r->model->inject(QdmaQueueKind::H2C, 0, QdmaFault::QueueStall);
    post(*r, 0, 3, 16);
    EXPECT_EQ(r->read(CtxtSel::HW_H2C, 0)[0] & 0xFFFF, 0u);
    EXPECT_EQ(r->read(CtxtSel::HW_H2C, 0)[1] >> 8 & 1u, 1u) << "descriptors pending";
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 3);
    EXPECT_EQ(r->model->run_until_idle(), 0u) << "a doorbell does not wake it";
    EXPECT_FALSE(card_matches(*r, 0, 16));
    // Clearing the queue's context (the driver's recovery) releases it.
    r->command(CtxtSel::SW_H2C, CtxtOp::CLR, 0);
    r->write(CtxtSel::SW_H2C, 0, Sw{.pidx = 3, .base = kIova + kRing}.words());
    r->model->run_until_idle();
    EXPECT_TRUE(card_matches(*r, 2, 16));
}

TEST(QdmaLies, MovesNothingCompletesWithoutData) {
    auto r = h2c_mm_queue(0);
    r->model->set_lie(streams::Lie{streams::Lie::Kind::MovesNothing});
    post(*r, 0, 2, 128);
    EXPECT_EQ(Rig<>::status_cidx(status_of(*r)), 2u) << "reported complete";
    EXPECT_FALSE(card_matches(*r, 0, 128));
    EXPECT_FALSE(card_matches(*r, 1, 128));
}

TEST(QdmaLies, StaleAfterMovesOnlyTheFirstTransfers) {
    auto r = h2c_mm_queue(0);
    r->model->set_lie(streams::Lie{streams::Lie::Kind::StaleAfter, 2});
    post(*r, 0, 3, 128);
    EXPECT_TRUE(card_matches(*r, 0, 128));
    EXPECT_TRUE(card_matches(*r, 1, 128));
    EXPECT_FALSE(card_matches(*r, 2, 128)) << "the third is stale";
    EXPECT_EQ(Rig<>::status_cidx(status_of(*r)), 3u);
}

TEST(QdmaLies, CompletesEarlyLandsTheTailLate) {
    auto r = h2c_mm_queue(0);
    streams::Lie lie{streams::Lie::Kind::CompletesEarly};
    lie.late_by = std::chrono::milliseconds(20);
    r->model->set_lie(lie);
    post(*r, 0, 1, 256);
    EXPECT_EQ(Rig<>::status_cidx(status_of(*r)), 1u) << "reported complete";
    std::vector<uint8_t> card(256);
    ASSERT_TRUE(r->model->card_read(kCardBase, card.data(), 256));
    EXPECT_EQ(std::memcmp(card.data(), r->host + kData, 256 - streams::kLateTailBytes), 0) << "the head landed";
    EXPECT_NE(std::memcmp(card.data() + 192, r->host + kData + 192, streams::kLateTailBytes), 0) << "the tail did not";
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    r->mm_descriptor(kRing + 32, kIova + kData, 1, kCardBase + 0x1000);
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 2);
    r->model->run_until_idle();
    EXPECT_TRUE(card_matches(*r, 0, 256)) << "the tail lands with a later transfer";
}

TEST(QdmaFaults, FaultPlanNamesQdmaFaults) {
    auto plan = sim::parse_fault_plan("qdma_queue_stall@C2H5,qdma_descriptor_error,qdma_completion_error,stale_after=1");
    ASSERT_TRUE(plan.ok()) << plan.error().message();
    ASSERT_EQ(plan->qdma_injections.size(), 3u);
    EXPECT_EQ(plan->qdma_injections[0].fault, QdmaFault::QueueStall);
    EXPECT_EQ(plan->qdma_injections[0].direction, sim::XdmaDirection::C2H);
    EXPECT_EQ(plan->qdma_injections[0].qid, 5u);
    EXPECT_EQ(plan->qdma_injections[1].direction, sim::XdmaDirection::H2C);
    EXPECT_EQ(plan->qdma_injections[2].direction, sim::XdmaDirection::C2H) << "completion errors are C2H";
    EXPECT_TRUE(plan->injections.empty());
    EXPECT_EQ(plan->lie.kind, streams::Lie::Kind::StaleAfter);
    for (const char* bad : {"qdma_queue_stall@C2H", "qdma_queue_stall@C2H4096", "qdma_queue_stall@X2C1", "qdma_stall"}) {
        auto r = sim::parse_fault_plan(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, EINVAL);
        EXPECT_NE(r.error().message().find("qdma_queue_stall"), std::string::npos) << r.error().message();
    }
    EXPECT_NE(sim::parse_fault_plan("qdma_queue_stall@C2H4096").error().message().find("bad queue"), std::string::npos);
}

// A tool's simulated bus takes PDT_SIM_FAULT: the stall holds H2C queue 3, the lie makes a C2H
// transfer complete without moving a byte (the threaded model, driven through the BAR).
TEST(QdmaFaults, DesignBusInjectsIntoTheQdmaModel) {
    setenv(sim::kFaultEnvironmentVariable, "qdma_queue_stall@H2C3,moves_nothing", 1);
    auto bus = sim::make_design_bus({"U200_qdma_ram"}, sim_test::builtin_registry());
    unsetenv(sim::kFaultEnvironmentVariable);
    ASSERT_TRUE(bus.ok()) << bus.error().message();
    auto device = (*bus)->open((*bus)->scan()->front());
    ASSERT_TRUE(device.ok()) << device.error().message();
    vfio::Device& dev = **device;
    ASSERT_TRUE(dev.enable_bus_master().ok());
    const vfio::RegisterWindow regs = *dev.bar(0).value()->window(0, kFrameSize, vfio::Access64::SplitLowHigh);
    auto host = std::make_unique<std::array<uint8_t, 0x20000>>();
    host->fill(0);
    ASSERT_TRUE(dev.dma_map(kIova, host->data(), host->size(), vfio::DmaAccess::DeviceReadWrite).ok());
    const auto command = [&](CtxtSel sel, uint32_t qid, const Words& data) {
        for (unsigned i = 0; i < 8; ++i) {
            regs.write32(IND_CTXT_DATA + 4 * i, data[i]);
            regs.write32(IND_CTXT_MASK + 4 * i, ~0u);
        }
        regs.write32(IND_CTXT_CMD, ind_ctxt_cmd(sel, CtxtOp::WR, qid));
    };
    const auto put = [&](size_t at, uint64_t v) { std::memcpy(host->data() + at, &v, 8); };
    regs.write32(GLBL_RNG_SZ_1, kEntries);
    command(CtxtSel::FMAP, 0, {0, 8});
    command(CtxtSel::SW_H2C, 3, Sw{.base = kIova}.words());
    command(CtxtSel::SW_C2H, 0, Sw{.base = kIova + 0x1000}.words());
    regs.write32(H2C_MM_CTL, MM_CTL_RUN);
    regs.write32(C2H_MM_CTL, MM_CTL_RUN);
    put(0, kIova + 0x8000), put(8, 64), put(16, 0);              // H2C queue 3: 64 bytes to card 0
    put(0x1000, 0), put(0x1008, 64), put(0x1010, kIova + 0x9000);  // C2H queue 0: card 0 to host
    std::memset(host->data() + 0x9000, 0xA5, 64);
    regs.write32(QUEUE_PF + 3 * kQueueStride + H2C_DSC_PIDX, 1);
    regs.write32(QUEUE_PF + C2H_DSC_PIDX, 1);
    const auto status = [&](size_t ring) {
        uint64_t s;
        std::memcpy(&s, host->data() + ring + (kEntries - 1) * 32, 8);
        return s;
    };
    for (int i = 0; i < 200 && Rig<>::status_cidx(status(0x1000)) != 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(Rig<>::status_cidx(status(0x1000)), 1u) << "the C2H transfer completed";
    EXPECT_EQ(host->at(0x9000), 0xA5) << "moves_nothing: the destination kept its poison";
    EXPECT_EQ(status(0), 0u) << "the stalled H2C queue 3 wrote no status: its cidx never moved";
    ASSERT_TRUE(dev.dma_unmap(kIova, host->size()).ok());
}

TEST(QdmaFaults, C2hStreamDescriptorErrorPostsAnErroredCompletion) {
    auto r = one_packet_with_c2h_fault(1, QdmaFault::DescriptorError);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_STS), DSC_ERR_UR_CA);
    EXPECT_EQ(r->rd(GLBL_DSC_ERR_LOG0), 0x80000000u | 1u << 30 | 1u) << "valid, C2H, qid 1";
    EXPECT_EQ(r->get64(0x2000) >> 2 & 1, 1u) << "the completion carries the error";
    EXPECT_EQ(r->read(CtxtSel::CMPT, 1)[3] >> 29 & 3u, 2u) << "CMPT context err: descriptor error";
    EXPECT_EQ(r->get64(0x2000 + 8 * (kEntries - 1)) >> 35 & 3, 2u) << "CMPT status error 2";
    EXPECT_EQ(r->read(CtxtSel::SW_C2H, 1)[1] >> 26 & 3u, 2u);
    EXPECT_EQ(r->model->loopback_pending_bytes(1), 0u) << "the packet is lost";
}

}  // namespace qdma_faults_test
