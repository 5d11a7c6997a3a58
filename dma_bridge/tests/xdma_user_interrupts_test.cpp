// User interrupts (xdma_user_interrupts.hpp) on the XDMA model: each request the user logic makes
// is counted exactly once, a masked one stays pending with no message until enabled, and vectors,
// IRQs and IPs the request cannot have are refused naming why.
#include "dma_bridge/xdma_user_interrupts.hpp"

#include "dma_bridge/xdma_registers.hpp"
#include "xdma_rig.hpp"

using namespace xdma_test;

namespace {

constexpr std::chrono::milliseconds kNoMore{20};   // how long "no further interrupt" is watched
constexpr std::chrono::milliseconds kArrives{2000};  // the most a raised interrupt may take

std::unique_ptr<xdma::UserInterrupts> enable_irqs(Rig& rig, std::vector<xdma::UserInterruptRoute> routes) {
    auto irqs = xdma::UserInterrupts::enable(*rig.device, 0, 0, std::move(routes));
    EXPECT_TRUE(irqs.ok()) << irqs.error().message();
    return irqs.ok() ? std::move(irqs).value() : nullptr;
}

pdt::Error refusal(Rig& rig, std::vector<xdma::UserInterruptRoute> routes) {
    auto irqs = xdma::UserInterrupts::enable(*rig.device, 0, 0, std::move(routes));
    EXPECT_FALSE(irqs.ok());
    return irqs.ok() ? pdt::Error{} : irqs.error();
}

void request(Rig& rig, unsigned irq) {
    auto requested = rig.device->request_user_interrupt(irq);
    ASSERT_TRUE(requested.ok()) << requested.error().message();
}

}  // namespace

TEST(XdmaUserInterrupts, EachRequestIsCountedExactlyOnceAndNoneAfter) {
    Rig rig(memory_design());
    auto irqs = enable_irqs(rig, {{.irq = 2, .vector = 5}, {.irq = 9, .vector = 1}});
    ASSERT_TRUE(irqs);
    EXPECT_EQ(irqs->enable_mask(), (1u << 2) | (1u << 9));
    for (int i = 0; i < 7; ++i) {
        request(rig, 2);
        auto counts = irqs->wait(kArrives);
        ASSERT_TRUE(counts.ok()) << counts.error().message();
        EXPECT_EQ(*counts, (std::vector<uint64_t>{1, 0})) << "request " << i;
    }
    for (int i = 0; i < 3; ++i)
        request(rig, 9);
    auto burst = irqs->wait(kArrives);
    ASSERT_TRUE(burst.ok());
    EXPECT_EQ(*burst, (std::vector<uint64_t>{0, 3})) << "three requests, each acknowledged, three messages";
    auto after = irqs->wait(kNoMore);
    ASSERT_FALSE(after.ok());
    EXPECT_EQ(after.error().code, ETIMEDOUT);
    EXPECT_EQ(irqs->pending(), 0u) << "every request was acknowledged";
}

TEST(XdmaUserInterrupts, AMaskedRequestIsPendingWithoutAMessageUntilEnabled) {
    Rig rig(memory_design());
    {
        auto irqs = enable_irqs(rig, {{.irq = 3, .vector = 2}});
        ASSERT_TRUE(irqs);
        irqs->disable();
        EXPECT_EQ(irqs->enable_mask(), 0u);
        request(rig, 3);
        auto none = irqs->wait(kNoMore);
        ASSERT_FALSE(none.ok());
        EXPECT_EQ(none.error().code, ETIMEDOUT);
        EXPECT_EQ(irqs->pending(), 1u << 3) << "held by the user logic, not acknowledged";
    }
    auto irqs = enable_irqs(rig, {{.irq = 3, .vector = 2}});  // PG195: a mask set on a held source interrupts
    ASSERT_TRUE(irqs);
    auto counts = irqs->wait(kArrives);
    ASSERT_TRUE(counts.ok()) << counts.error().message();
    EXPECT_EQ(*counts, std::vector<uint64_t>{1});
    EXPECT_EQ(irqs->pending(), 0u);
}

TEST(XdmaUserInterrupts, GoingOutOfScopeClearsTheEnableBitsItSet) {
    Rig rig(memory_design());
    auto regs = xdma::dma_registers(*rig.device, 0);
    ASSERT_TRUE(regs.ok());
    const uint64_t mask = xdma::block_offset(xdma::target::IRQ_BLOCK) + xdma::irq_reg::USER_INTERRUPT_ENABLE_MASK;
    regs->write32(mask, 1u << 7);  // another user's bit
    enable_irqs(rig, {{.irq = 0, .vector = 0}});
    EXPECT_EQ(regs->read32(mask), 1u << 7);
}

TEST(XdmaUserInterrupts, AVectorTheDeviceDoesNotHaveIsRefused) {
    Rig rig(memory_design());
    for (const unsigned vector : {16u, 31u}) {
        const pdt::Error error = refusal(rig, {{.irq = 0, .vector = vector}});
        EXPECT_EQ(error.code, EINVAL);
        EXPECT_FALSE(error.usage);
        EXPECT_TRUE(has(error.message(), "MSI vector " + std::to_string(vector) +
                                             ": Invalid argument (the vector does not exist: the device enabled 16 "
                                             "MSI vectors (0 to 15))"))
            << error.message();
    }
}

TEST(XdmaUserInterrupts, IrqsAndVectorsTheRequestCannotHaveAreUsageErrors) {
    Rig rig(memory_design());
    const pdt::Error beyond = refusal(rig, {{.irq = 16, .vector = 0}});
    EXPECT_TRUE(beyond.usage);
    EXPECT_TRUE(has(beyond.message(), "at most 16 bits (0 to 15)")) << beyond.message();
    const pdt::Error shared = refusal(rig, {{.irq = 0, .vector = 3}, {.irq = 1, .vector = 3}});
    EXPECT_TRUE(shared.usage);
    EXPECT_TRUE(has(shared.message(), "could not be told apart")) << shared.message();
    const pdt::Error twice = refusal(rig, {{.irq = 4, .vector = 3}, {.irq = 4, .vector = 2}});
    EXPECT_TRUE(has(twice.message(), "named twice")) << twice.message();
    EXPECT_TRUE(refusal(rig, {}).usage);
}

TEST(XdmaUserInterrupts, AnIrqTheIpWasNotBuiltWithIsRefused) {
    sim::XdmaConfig config = memory_design();
    config.user_interrupts = 4;
    Rig rig(config);
    const pdt::Error error = refusal(rig, {{.irq = 5, .vector = 0}});
    EXPECT_TRUE(has(error.message(), "User Interrupt Enable Mask: Invalid argument (its bit reads back 0")) << error.message();
    auto requested = rig.device->request_user_interrupt(5);
    ASSERT_FALSE(requested.ok());
    EXPECT_TRUE(has(requested.error().message(), "usr_irq_req has 4 lines")) << requested.error().message();
}

TEST(XdmaUserInterrupts, AnIpWithoutInterruptsIsRefused) {
    sim::XdmaConfig config = memory_design();
    config.interrupts = false;
    Rig rig(config);
    const pdt::Error error = refusal(rig, {{.irq = 1, .vector = 1}});
    EXPECT_TRUE(has(error.message(), "User Vector Number 0x2080: Input/output error (wrote 0x100, read back 0x0"))
        << error.message();
}

TEST(XdmaUserInterrupts, ABarWithoutTheIrqBlockIsRefused) {
    Rig rig(memory_design(), 0x2000);  // channels only: the IRQ block at 0x2000 is past the BAR
    const pdt::Error error = refusal(rig, {{.irq = 0, .vector = 0}});
    EXPECT_EQ(error.code, ERANGE) << error.message();
    EXPECT_TRUE(has(error.message(), "IRQ")) << error.message();
}

TEST(XdmaUserInterrupts, TheTimeoutSaysHowLongItWaited) {
    Rig rig(memory_design());
    auto irqs = enable_irqs(rig, {{.irq = 0, .vector = 0}});
    ASSERT_TRUE(irqs);
    auto waited = irqs->wait(std::chrono::milliseconds(10));
    ASSERT_FALSE(waited.ok());
    EXPECT_EQ(waited.error().message(), "wait for an interrupt 0000:15:00.0: Connection timed out (none within 10 ms)");
}

// The model's lies as the driver sees them (the tool's verdict on each: user_design's tests).
TEST(XdmaUserInterrupts, TheLyingIpsShowInTheCounts) {
    Rig drops(memory_design()), doubles(memory_design()), ignores(memory_design());
    drops.model->set_user_irq_lie(sim::UserIrqLie::Drops);
    doubles.model->set_user_irq_lie(sim::UserIrqLie::Doubles);
    ignores.model->set_user_irq_lie(sim::UserIrqLie::IgnoresMask);
    auto dropped = enable_irqs(drops, {{.irq = 0, .vector = 0}});
    auto doubled = enable_irqs(doubles, {{.irq = 0, .vector = 0}});
    auto masked = enable_irqs(ignores, {{.irq = 0, .vector = 0}});
    ASSERT_TRUE(dropped && doubled && masked);
    masked->disable();
    for (Rig* rig : {&drops, &doubles, &ignores})
        request(*rig, 0);
    EXPECT_FALSE(dropped->wait(kNoMore).ok());
    EXPECT_EQ(dropped->pending(), 0u) << "acknowledged with no message";
    auto two = doubled->wait(kArrives);
    ASSERT_TRUE(two.ok());
    EXPECT_EQ(*two, std::vector<uint64_t>{2});
    auto through_mask = masked->wait(kArrives);
    ASSERT_TRUE(through_mask.ok());
    EXPECT_EQ(*through_mask, std::vector<uint64_t>{1});
}
