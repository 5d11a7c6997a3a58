// User interrupts of a QDMA function (qdma_user_interrupts.hpp) on sim's QDMA model: each request
// of the user logic (usr_irq_in_vld with its vector) is counted exactly once, a vector the function
// has not enabled fails in the IP (usr_irq_out_fail) and is refused by the driver, and a vector
// other than the irq's own is a usage error.
#include "qdma/qdma_user_interrupts.hpp"

#include "qdma_model_rig.hpp"

using namespace qdma_model_test;

namespace {

constexpr const char* kQdmaDesign = "U200_qdma_ram";

std::unique_ptr<qdma::UserInterrupts> enable_qdma_irqs(sim::DesignInstance& made,
                                                        std::vector<streams::UserInterruptRoute> routes) {
    auto irqs = qdma::UserInterrupts::enable(*made.device, std::move(routes));
    EXPECT_TRUE(irqs.ok()) << irqs.error().message();
    return irqs.ok() ? std::move(irqs).value() : nullptr;
}

}  // namespace

TEST(QdmaUserInterrupts, EachRequestIsCountedExactlyOnceAndNoneAfter) {
    sim::DesignInstance made = instance(kQdmaDesign);
    auto irqs = enable_qdma_irqs(made, {{.irq = 1, .vector = 1}, {.irq = 6, .vector = 6}});
    ASSERT_TRUE(irqs);
    EXPECT_FALSE(irqs->maskable());
    EXPECT_FALSE(irqs->pending());
    for (int i = 0; i < 5; ++i) {
        ASSERT_TRUE(made.device->request_user_interrupt(6).ok());
        auto counts = irqs->wait(std::chrono::seconds(2));
        ASSERT_TRUE(counts.ok()) << counts.error().message();
        EXPECT_EQ(*counts, (std::vector<uint64_t>{0, 1})) << "request " << i;
    }
    auto after = irqs->wait(std::chrono::milliseconds(20));
    ASSERT_FALSE(after.ok());
    EXPECT_EQ(after.error().code, ETIMEDOUT);
}

TEST(QdmaUserInterrupts, AVectorTheFunctionHasNotEnabledFailsInTheIpAndIsRefused) {
    sim::DesignInstance made = instance(kQdmaDesign);
    auto irqs = enable_qdma_irqs(made, {{.irq = 0, .vector = 0}});
    ASSERT_TRUE(irqs);
    auto failed = made.device->request_user_interrupt(40);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.error().message().find("usr_irq_out_fail: function 0 has not enabled that MSI-X vector"),
              std::string::npos)
        << failed.error().message();
    auto refused = qdma::UserInterrupts::enable(*made.device, {{.irq = 40, .vector = 40}});
    ASSERT_FALSE(refused.ok());
    EXPECT_FALSE(refused.error().usage);
    EXPECT_NE(refused.error().message().find("the vector does not exist: the device enabled 16 MSI vectors"),
              std::string::npos)
        << refused.error().message();
}

TEST(QdmaUserInterrupts, AVectorOtherThanTheIrqsOwnIsAUsageError) {
    sim::DesignInstance made = instance(kQdmaDesign);
    auto refused = qdma::UserInterrupts::enable(*made.device, {{.irq = 2, .vector = 3}});
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(refused.error().usage);
    EXPECT_NE(refused.error().message().find("the user logic names the MSI-X vector itself"), std::string::npos);
}

TEST(QdmaUserInterrupts, TheLyingIpsShowInTheCounts) {
    sim::DesignInstance drops = instance(kQdmaDesign), doubles = instance(kQdmaDesign);
    drops.qdma->set_user_irq_lie(sim::UserIrqLie::Drops);
    doubles.qdma->set_user_irq_lie(sim::UserIrqLie::Doubles);
    auto dropped = enable_qdma_irqs(drops, {{.irq = 0, .vector = 0}});
    auto doubled = enable_qdma_irqs(doubles, {{.irq = 0, .vector = 0}});
    ASSERT_TRUE(dropped && doubled);
    ASSERT_TRUE(drops.device->request_user_interrupt(0).ok());
    ASSERT_TRUE(doubles.device->request_user_interrupt(0).ok());
    EXPECT_FALSE(dropped->wait(std::chrono::milliseconds(20)).ok());
    auto two = doubled->wait(std::chrono::seconds(2));
    ASSERT_TRUE(two.ok());
    EXPECT_EQ(*two, std::vector<uint64_t>{2});
}
