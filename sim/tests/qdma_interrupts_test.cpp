// QDMA model interrupts through the BAR: an aggregated queue interrupt goes through its
// interrupt aggregation ring (PG302 Interrupt Context), with one MSI until the INT_CIDX update.
#include <gtest/gtest.h>
#include <unistd.h>

#include "qdma_rig.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace qdma_interrupts_test {

namespace {

using namespace qdma_test;
using sim::qdma_csr::CtxtSel;

constexpr size_t kRing = 0x0;
constexpr size_t kData = 0x10000;
constexpr size_t kIntRing = 0x30000;  // 4 KiB aligned: 512 entries of 8 bytes
constexpr uint32_t kEntries = 8;

// Interrupt Context: valid [0], vec [11:1], color [14], baddr_4k [66:15], page_size [69:67].
Words interrupt_context(unsigned vec, uint64_t base) {
    const uint64_t page = base >> 12;
    Words w{};
    w[0] = 1u | (vec & 0x7FF) << 1 | 1u << 14 | static_cast<uint32_t>(page & 0x1FFFF) << 15;
    w[1] = static_cast<uint32_t>(page >> 17);
    w[2] = static_cast<uint32_t>(page >> 49) & 7;
    return w;
}

uint64_t msi_count(int fd) {
    uint64_t count = 0;
    return ::read(fd, &count, sizeof count) == 8 ? count : 0;
}

}  // namespace

TEST(QdmaInterrupts, AggregatedInterruptsGoThroughTheRing) {
    auto r = std::make_unique<Rig<>>();
    r->ring_size(0, kEntries);
    r->fmap(0, 0, 16);
    r->write(CtxtSel::INT_COAL, 2, interrupt_context(1, kIova + kIntRing));
    Words sw = Sw{.base = kIova + kRing}.words();
    sw[1] |= 1u << 21;     // irq_en
    sw[4] = 2u | 1u << 11;  // ring 2, int_aggr
    r->write(CtxtSel::SW_H2C, 9, sw);
    r->wr(H2C_MM_CTL, MM_CTL_RUN);
    ASSERT_TRUE(r->device->irq_enable(vfio::IrqIndex::Msi, 4).ok());
    const int fd = r->device->irq_eventfd(1).value();
    for (unsigned i = 0; i < 3; ++i)
        r->mm_descriptor(kRing + 32 * i, kIova + kData, 8, kCardBase);
    r->wr(r->doorbell(9, H2C_DSC_PIDX), 1 | 1u << 16);
    r->model->run_until_idle();
    EXPECT_EQ(msi_count(fd), 1u) << "the ring's vector";
    const uint64_t e0 = r->get64(kIntRing);
    EXPECT_EQ(e0 >> 63, 1u) << "coal_color: the context's color";
    EXPECT_EQ(e0 >> 39 & 0xFFFFFF, 9u) << "qid";
    EXPECT_EQ(e0 >> 38 & 1, 0u) << "int_type H2C";
    EXPECT_EQ(e0 & 0xFFFF, 1u) << "stat_desc pidx";
    EXPECT_EQ(e0 >> 16 & 0xFFFF, 1u) << "stat_desc cidx";
    EXPECT_EQ(r->read(CtxtSel::INT_COAL, 2)[2] >> 6 & 0xFFF, 1u) << "ring pidx";
    r->wr(r->doorbell(9, H2C_DSC_PIDX), 2 | 1u << 16);
    r->model->run_until_idle();
    EXPECT_NE(r->get64(kIntRing + 8), 0u) << "a second entry";
    EXPECT_EQ(msi_count(fd), 0u) << "ISR running: no second MSI";
    r->wr(r->doorbell(0, INT_CIDX), 2u << 16 | 2);  // read up to entry 2
    EXPECT_EQ(msi_count(fd), 0u);
    r->wr(r->doorbell(9, H2C_DSC_PIDX), 3 | 1u << 16);
    r->model->run_until_idle();
    EXPECT_EQ(msi_count(fd), 1u) << "re-armed by INT_CIDX";
    r->wr(r->doorbell(0, INT_CIDX), 2u << 16 | 2);  // entry 2 still unread
    EXPECT_EQ(msi_count(fd), 1u) << "fires again at once";
}

TEST(QdmaInterrupts, NoValidRingNoInterrupt) {
    auto r = std::make_unique<Rig<>>();
    r->ring_size(0, kEntries);
    r->fmap(0, 0, 16);
    Words sw = Sw{.base = kIova + kRing}.words();
    sw[1] |= 1u << 21;
    sw[4] = 3u | 1u << 11;  // ring 3, never programmed
    r->write(CtxtSel::SW_H2C, 0, sw);
    r->wr(H2C_MM_CTL, MM_CTL_RUN);
    ASSERT_TRUE(r->device->irq_enable(vfio::IrqIndex::Msi, 4).ok());
    r->mm_descriptor(kRing, kIova + kData, 8, kCardBase);
    r->wr(r->doorbell(0, H2C_DSC_PIDX), 1 | 1u << 16);
    r->model->run_until_idle();
    for (unsigned v = 0; v < 4; ++v)
        EXPECT_EQ(msi_count(r->device->irq_eventfd(v).value()), 0u) << v;
    EXPECT_EQ(r->model->processed(sim::QdmaQueueKind::H2C, 0), 1u) << "the data still moved";
}

}  // namespace qdma_interrupts_test
