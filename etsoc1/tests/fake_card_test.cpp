// The fake card itself: its parameters, real data, the injected corruption, aborts and polls.
#include <gtest/gtest.h>

#include <numeric>

#include "etsoc1/fake_card.hpp"

namespace {

using namespace std::chrono_literals;
using etsoc1::FakeCard;
using etsoc1::Node;

TEST(FakeParameters, ParseNamedParametersAndRejectUnknownOrBadOnes) {
    auto p = etsoc1::parse_fake_parameters(
        "memcpy_gbps=5,dma_gbps=2.5,poll_idle_us=400,corrupt_h2c_byte=0x40,hang_at=3,c2h_link_ratio=1.25");
    ASSERT_TRUE(p.ok()) << p.error().message();
    EXPECT_EQ(p->c2h_link_ratio, 1.25);
    EXPECT_EQ(etsoc1::FakeParameters{}.c2h_link_ratio, 1.10);  // seed 000 section 5's figure
    EXPECT_EQ(p->memcpy_gbps, 5.0);
    EXPECT_EQ(p->dma_channel_gbps, 2.5);
    EXPECT_EQ(p->poll_idle, 400us);
    EXPECT_EQ(p->poll_busy, 50us);  // the runtime's default stays
    EXPECT_EQ(p->corrupt_h2c_byte, 0x40u);
    EXPECT_EQ(p->hang_command, 3u);
    EXPECT_TRUE(etsoc1::parse_fake_parameters("").ok());
    const std::vector<std::pair<std::string, std::string>> bad{
        {"speed=3", "unknown key; the keys are c2h_link_ratio, collision, copy_error_at"},
        {"memcpy_gbps=fast", "expected a positive number"},
        {"memcpy_gbps=0", "expected a positive number"},
        {"c2h_link_ratio=-1", "expected a positive number"},
        {"nodes=0", "expected a whole number >= 1"},
        {"hang_at", "expected key=value"},
    };
    for (const auto& [text, message] : bad) {
        auto r = etsoc1::parse_fake_parameters(text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().code, EINVAL);
        EXPECT_NE(r.error().message().find(message), std::string::npos) << r.error().message();
    }
}

TEST(FakeCard, MovesRealDataAndFlipsTheInjectedByte) {
    etsoc1::FakeParameters p;
    p.corrupt_h2c_byte = 4096 + 10;  // in the second copy
    FakeCard card(p);
    const auto stream = *card.create_stream(0);
    const auto base = *card.allocate(0, 8192, 64);
    std::vector<uint8_t> out(8192), back(8192);
    std::iota(out.begin(), out.end(), 1);
    for (uint64_t offset : {0u, 4096u}) {
        const Node node{out.data() + offset, base + offset, 4096};
        auto e = card.copy_to_card(stream, {&node, 1}, false);
        ASSERT_TRUE(e.ok());
        EXPECT_TRUE(*card.wait_event(*e, 5s));
    }
    const Node node{back.data(), base, 8192};
    auto e = card.copy_from_card(stream, {&node, 1}, false);
    ASSERT_TRUE(e.ok());
    EXPECT_TRUE(*card.wait_event(*e, 5s));
    for (size_t i = 0; i < out.size(); ++i)
        if (i == 4096 + 10)
            EXPECT_EQ(back[i], out[i] ^ 0x5a);
        else
            ASSERT_EQ(back[i], out[i]) << "byte " << i;
}

TEST(FakeCard, ChecksCommandsAsTheRuntimeDoes) {
    etsoc1::FakeParameters p;
    p.limits.max_node_bytes = 4096;
    p.limits.max_nodes = 2;
    FakeCard card(p);
    const auto stream = *card.create_stream(0);
    const auto base = *card.allocate(0, 16384, 64);
    std::vector<uint8_t> buffer(16384);
    const Node big{buffer.data(), base, 8192};
    EXPECT_NE(card.copy_to_card(stream, {&big, 1}, false).error().message().find("nodes take 1..4096"), std::string::npos);
    const Node three[3] = {{buffer.data(), base, 16}, {buffer.data(), base, 16}, {buffer.data(), base, 16}};
    EXPECT_NE(card.copy_to_card(stream, three, false).error().message().find("a command takes 1..2"), std::string::npos);
    const Node outside{buffer.data(), base + 16384 - 8, 16};
    EXPECT_EQ(card.copy_to_card(stream, {&outside, 1}, false).error().code, EFAULT);
    EXPECT_EQ(card.copy_to_card(999, {&outside, 1}, false).error().code, EINVAL);
    EXPECT_EQ(card.free(0, base + 1).error().code, EINVAL);
    EXPECT_EQ(card.allocate(1, 4096, 64).error().code, ENODEV);
}

TEST(FakeCard, AbortEndsAHungCommandWithAnAbortError) {
    etsoc1::FakeParameters p;
    p.hang_command = 1;
    FakeCard card(p);
    const auto stream = *card.create_stream(0);
    const auto base = *card.allocate(0, 4096, 64);
    std::vector<uint8_t> buffer(4096);
    const Node node{buffer.data(), base, 4096};
    const auto e = *card.copy_to_card(stream, {&node, 1}, false);
    EXPECT_FALSE(*card.wait_event(e, 0s));  // a zero timeout polls
    EXPECT_FALSE(*card.wait_stream(stream, 1s));
    ASSERT_TRUE(card.abort_stream(stream).ok());
    EXPECT_TRUE(*card.wait_event(e, 0s));
    const auto errors = *card.drain_errors(stream);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].code, "DmaErrorAborted");
    EXPECT_TRUE(card.drain_errors(stream)->empty());  // drained once
}

TEST(FakeCard, LaunchesEmptyKernels) {
    FakeCard card;
    const auto stream = *card.create_stream(0);
    ASSERT_TRUE(card.can_launch());
    auto e = card.launch_empty(stream, true);
    ASSERT_TRUE(e.ok());
    EXPECT_TRUE(*card.wait_event(*e, 5s));
    EXPECT_EQ(card.commands().back().kind, etsoc1::CommandRecord::Kernel);
}

}  // namespace
