// The fake card itself: its parameters, real data through one reused bounce buffer, the injected
// corruption, the lying devices (moves_nothing, stale_after, completes_early), aborts and polls.
#include <gtest/gtest.h>

#include <numeric>

#include "etsoc1/fake_card.hpp"

namespace {

using namespace std::chrono_literals;
using etsoc1::FakeCard;
using etsoc1::Node;

// Each (text, message): parse_fake_parameters(text) is EINVAL with a message that contains message.
void expect_einval(const std::vector<std::pair<std::string, std::string>>& bad) {
    for (const auto& [text, message] : bad) {
        auto r = etsoc1::parse_fake_parameters(text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().code, EINVAL);
        EXPECT_NE(r.error().message().find(message), std::string::npos) << r.error().message();
    }
}

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
    expect_einval({
        {"speed=3", "unknown key; the keys are abort_hangs, c2h_link_ratio, collision, completes_early, copy_error_at"},
        {"memcpy_gbps=fast", "expected a positive number"},
        {"memcpy_gbps=0", "expected a positive number"},
        {"c2h_link_ratio=-1", "expected a positive number"},
        {"nodes=0", "expected a whole number >= 1"},
        {"hang_at", "expected key=value"},
    });
}

TEST(FakeParameters, TheLiesParseAndBadValuesAreEinvalNamingThem) {
    auto p = etsoc1::parse_fake_parameters("moves_nothing=1,stale_after=0,completes_early=1");
    ASSERT_TRUE(p.ok()) << p.error().message();
    EXPECT_TRUE(p->moves_nothing);
    EXPECT_EQ(p->stale_after, 0u);
    EXPECT_TRUE(p->completes_early);
    auto off = etsoc1::parse_fake_parameters("moves_nothing=0,completes_early=0,stale_after=7");
    ASSERT_TRUE(off.ok()) << off.error().message();
    EXPECT_FALSE(off->moves_nothing);
    EXPECT_FALSE(off->completes_early);
    EXPECT_EQ(off->stale_after, 7u);
    const etsoc1::FakeParameters honest;
    EXPECT_FALSE(honest.moves_nothing || honest.completes_early || honest.stale_after);
    expect_einval({
        {"moves_nothing=2", "\"moves_nothing=2\": Invalid argument (expected 0 or 1)"},
        {"moves_nothing=yes", "\"moves_nothing=yes\": Invalid argument (expected 0 or 1)"},
        {"completes_early=", "\"completes_early=\": Invalid argument (expected 0 or 1)"},
        {"stale_after=-1", "\"stale_after=-1\": Invalid argument (expected a whole number >= 0)"},
        {"stale_after=two", "\"stale_after=two\": Invalid argument (expected a whole number >= 0)"},
    });
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

// One stream on a fake card, copies issued one at a time and waited for: each must complete in
// time with no card error, whatever the card did with the bytes.
struct Bench {
    explicit Bench(etsoc1::FakeParameters p = {})
        : card(p), stream(*card.create_stream(0)), base(*card.allocate(0, 16384, 64)) {}
    void wait(pdt::Result<etsoc1::EventId> e) {
        ASSERT_TRUE(e.ok()) << e.error().message();
        EXPECT_TRUE(*card.wait_event(*e, 5s));
        EXPECT_TRUE(card.drain_errors(stream)->empty());
    }
    void write(std::vector<uint8_t>& host, uint64_t offset) {
        const Node node{host.data(), base + offset, host.size()};
        wait(card.copy_to_card(stream, {&node, 1}, false));
    }
    // One node, or the halves second half first (how the loopback channels read a slot back).
    std::vector<uint8_t> read(uint64_t offset, uint64_t bytes, bool halves_last_first = false) {
        std::vector<uint8_t> host(bytes, 0xee);  // poison
        const uint64_t half = bytes / 2;
        const Node one{host.data(), base + offset, bytes};
        const Node halves[2] = {{host.data() + half, base + offset + half, bytes - half},
                                {host.data(), base + offset, half}};
        if (halves_last_first)
            wait(card.copy_from_card(stream, halves, false));
        else
            wait(card.copy_from_card(stream, {&one, 1}, false));
        return host;
    }
    std::vector<uint8_t> memory(uint64_t offset, uint64_t bytes) { return *card.card_memory(base + offset, bytes); }

    FakeCard card;
    etsoc1::StreamId stream;
    etsoc1::CardAddress base;
};

std::vector<uint8_t> counting(uint64_t bytes, uint8_t first) {
    std::vector<uint8_t> v(bytes);
    std::iota(v.begin(), v.end(), first);
    return v;
}

std::vector<uint8_t> part(const std::vector<uint8_t>& v, uint64_t from, uint64_t bytes) {
    return {v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(from + bytes)};
}

std::vector<uint8_t> joined(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// The trap of the real runtime's daemon with its fake device: the card moves nothing, yet a write
// and a read of the same region in one node hand the staged bytes straight back from the one
// reused bounce buffer, so they look verified; they are the last bytes staged, whichever region
// they were for; only a read-back in other pieces (rule 3 of docs/verification.md) shows it.
TEST(FakeCard, MovesNothingHandsTheStagedBytesBackFromTheOneReusedBounceBuffer) {
    etsoc1::FakeParameters p;
    p.moves_nothing = true;
    Bench bench(p);
    auto a = counting(4096, 1), b = counting(4096, 101);
    bench.write(a, 0);
    EXPECT_EQ(bench.read(0, 4096), a);  // the trap: passes a write-then-read check
    EXPECT_EQ(bench.memory(0, 4096), std::vector<uint8_t>(4096, 0));  // the card never got a byte
    bench.write(b, 4096);
    EXPECT_EQ(bench.read(0, 4096), b);  // region 0 "holds" what was staged for region 4096
    EXPECT_EQ(bench.memory(4096, 4096), std::vector<uint8_t>(4096, 0));
    EXPECT_EQ(bench.read(0, 4096, true), joined(part(b, 2048, 2048), part(b, 0, 2048)));  // at the wrong places
    EXPECT_EQ(bench.card.bounce_bytes(), 4096u);  // one buffer, every command staged from offset 0
    EXPECT_EQ(bench.card.commands().size(), 5u);
}

TEST(FakeCard, AnHonestCardStagesThroughTheBounceBufferAndCopiesInFlightTogetherDoNotShareIt) {
    Bench sequential;
    auto a = counting(4096, 1), b = counting(4096, 101);
    sequential.write(a, 0);
    sequential.write(b, 4096);
    EXPECT_EQ(sequential.read(0, 4096, true), a);
    EXPECT_EQ(sequential.read(4096, 4096), b);
    EXPECT_EQ(sequential.memory(0, 4096), a);
    EXPECT_EQ(sequential.card.bounce_bytes(), 4096u);
    // Two copies staged at once (a slow memcpy keeps the first in staging while the second is issued).
    etsoc1::FakeParameters slow;
    slow.memcpy_gbps = 0.001;  // 4 ms for 4 KiB
    Bench together(slow);
    const Node first{a.data(), together.base, 4096}, second{b.data(), together.base + 4096, 4096};
    const auto e1 = together.card.copy_to_card(together.stream, {&first, 1}, false);
    const auto e2 = together.card.copy_to_card(together.stream, {&second, 1}, false);
    together.wait(e1);
    together.wait(e2);
    EXPECT_EQ(together.card.bounce_bytes(), 8192u);  // grown: the second took the range after the first
    EXPECT_EQ(together.memory(0, 8192), joined(a, b));
}

// stale_after=2: copy commands 1 and 2 move (a kernel between them does not count), 3 and 4 do not.
TEST(FakeCard, StaleAfterMovesTheFirstNCopyCommandsAndThenNothing) {
    etsoc1::FakeParameters p;
    p.stale_after = 2;
    Bench bench(p);
    auto a = counting(4096, 1), b = counting(4096, 101);
    bench.write(a, 0);
    bench.wait(bench.card.launch_empty(bench.stream, true));
    EXPECT_EQ(bench.read(0, 4096, true), a);  // copy 2: moved by the DMA, read in halves
    bench.write(b, 0);                        // copy 3: staged, not moved
    EXPECT_EQ(bench.memory(0, 4096), a);
    EXPECT_EQ(bench.read(0, 4096, true), joined(part(b, 2048, 2048), part(b, 0, 2048)));  // copy 4: the bounce's
}

// completes_early: each copy's last 64 bytes (all of a shorter node) reach the DMA's destination
// when the next copy's DMA starts, after that copy's own bytes; a card-to-host copy's land in the
// bounce buffer after the host got its stale bytes.
TEST(FakeCard, CompletesEarlyLandsTheLast64BytesOnlyAtTheNextCopysDma) {
    etsoc1::FakeParameters p;
    p.completes_early = true;
    Bench bench(p);
    auto a = counting(4096, 1), d = counting(4096, 101), e = counting(16, 201);
    bench.write(a, 0);
    EXPECT_EQ(bench.memory(0, 4096), joined(part(a, 0, 4032), std::vector<uint8_t>(64, 0)));
    bench.write(d, 4096);
    EXPECT_EQ(bench.memory(0, 4096), a);  // landed when copy 2's DMA started
    EXPECT_EQ(bench.memory(4096 + 4032, 64), std::vector<uint8_t>(64, 0));
    // Copy 3 reads region 0: its last 64 bytes come from the bounce buffer, staged for copy 2.
    EXPECT_EQ(bench.read(0, 4096), joined(part(a, 0, 4032), part(d, 4032, 64)));
    EXPECT_EQ(bench.memory(4096, 4096), d);
    bench.write(e, 8192);  // a 16-byte node: all of it held back
    bench.wait(bench.card.launch_empty(bench.stream, true));  // a kernel is no copy: nothing lands
    EXPECT_EQ(bench.memory(8192, 16), std::vector<uint8_t>(16, 0));
    bench.read(4096, 64);
    EXPECT_EQ(bench.memory(8192, 16), e);
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
    ASSERT_TRUE(card.abort_stream(stream, 1s).ok());
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
