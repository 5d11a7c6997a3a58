// Every pcie_link_measure subcommand on endpoints that lie (docs/verification.md): the model
// endpoint's moves_nothing, stale_after=N and completes_early, and an endpoint that stages every
// copy through one reused bounce buffer and moves nothing to or from the card (what the ET-SoC-1
// runtime does over a fake device). Each must be FAIL naming the copy and the offset; the honest
// model passes with every timed byte counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "measure/tool.hpp"
#include "sim/model_copy_endpoint.hpp"

using namespace measure;

namespace {

std::unique_ptr<sim::ModelCopyEndpoint> model(streams::Lie lie = {}) {
    sim::ModelCopyParameters p;
    p.card_memory_bytes = 1ull << 20;
    p.h2c_gbps = p.c2h_gbps = 4;
    p.latency_us = 2;
    p.launch_us = 5;
    p.lie = lie;
    auto m = sim::ModelCopyEndpoint::create(p);
    EXPECT_TRUE(m) << m.error().message();
    return std::move(*m);
}

// A driver that stages every copy through one host bounce buffer, from its offset 0, and whose
// device moves nothing: H2C copies the host bytes into the bounce buffer, C2H hands the bounce
// buffer's bytes back. A write then a read of the same region in one piece returns the data.
class BounceEndpoint : public CopyEndpoint {
public:
    BounceEndpoint() : m_bounce(1u << 20) {
        m_info.name = "bounce 0";
        m_info.card_memory_bytes = m_info.max_copy_bytes = 1u << 20;
        m_info.queues = 2;
        m_info.max_in_flight = 2;
        m_info.driver_stages = true;
    }
    const EndpointInfo& info() const override { return m_info; }
    pdt::Result<std::unique_ptr<HostBuffer>> allocate(uint64_t bytes, HostMemory memory) override {
        return std::unique_ptr<HostBuffer>(std::make_unique<Buffer>(bytes, memory));
    }
    pdt::Result<Ticket> issue(Direction d, unsigned queue, HostBuffer& host, uint64_t host_offset, uint64_t,
                              uint64_t bytes) override {
        if (d == Direction::H2C)
            std::memcpy(m_bounce.data(), host.data() + host_offset, bytes);
        else
            std::memcpy(host.data() + host_offset, m_bounce.data(), bytes);
        return Ticket{queue, m_sequence++};
    }
    pdt::Result<void> wait(const Ticket&, std::chrono::milliseconds) override { return {}; }
    pdt::Result<void> reset_queues() override { return {}; }

private:
    struct Buffer : HostBuffer {
        Buffer(uint64_t bytes, HostMemory memory) : bytes(bytes), memory_kind(memory) {}
        uint8_t* data() override { return bytes.data(); }
        uint64_t size() const override { return bytes.size(); }
        HostMemory memory() const override { return memory_kind; }
        std::vector<uint8_t> bytes;
        HostMemory memory_kind;
    };
    EndpointInfo m_info;
    std::vector<uint8_t> m_bounce;
    uint64_t m_sequence = 0;
};

ToolOptions small(const std::string& step) {
    ToolOptions o;
    o.steps = {step};
    o.json = true;
    o.sweep.min_bytes = 4096, o.sweep.max_bytes = 65536, o.sweep.repeats = 1, o.sweep.iterations = 4;
    o.latency.samples = 10, o.latency.max_gap_us = 20;
    o.access.sizes = {64, 100}, o.access.windows = {4096}, o.access.transfers = 16;
    o.access.patterns = {"sequential"}, o.access.caches = {"warm"}, o.access.memories = {HostMemory::Registered};
    o.inflight.sizes = {65536}, o.inflight.repeats = 1, o.inflight.tries = 1;
    o.bidir.bytes = 65536, o.bidir.repeats = 1, o.bidir.copies = 3;
    o.launch.samples = 3, o.launch.queued = 3, o.launch.repeats = 1, o.launch.tries = 1;
    return o;
}

const char* const kSteps[] = {"sweep", "latency", "access", "access_c2h", "inflight", "bidir", "launch"};

struct Outcome {
    int exit_code;
    nlohmann::json json;
    std::string err;
};

Outcome run(const std::string& step, CopyEndpoint& ep) {
    ToolOptions o = small(step == "access_c2h" ? "access" : step);
    if (step == "access_c2h")
        o.access.direction = Direction::C2H;
    std::ostringstream out, err, silent;
    Progress progress(silent, false);
    const int code = run_tool(o, ep, "model", out, err, progress);
    return {code, nlohmann::json::parse(out.str()), err.str()};
}

// FAIL, with a failure that names the copy (or transfer) and the offset.
void expect_named_failure(const Outcome& r, const std::string& what) {
    EXPECT_EQ(r.exit_code, 1) << what << r.json.dump();
    EXPECT_EQ(r.json["verdict"], "FAIL") << what;
    ASSERT_FALSE(r.json["failures"].empty()) << what << r.json.dump();
    const std::string failure = r.json["failures"][0];
    EXPECT_NE(failure.find("data check"), std::string::npos) << what << ": " << failure;
    EXPECT_TRUE(failure.find(" copy ") != std::string::npos || failure.find(" transfer ") != std::string::npos)
        << what << ": " << failure;
    EXPECT_NE(failure.find("failed at byte "), std::string::npos) << what << ": " << failure;
}

}  // namespace

TEST(LyingEndpoint, EverySubcommandPassesOnTheHonestModel) {
    for (const char* step : kSteps) {
        auto m = model();
        const Outcome r = run(step, *m);
        EXPECT_EQ(r.exit_code, 0) << step << ": " << r.json.dump() << r.err;
        EXPECT_GT(r.json.value("bytes_verified", uint64_t{0}), 0u) << step;
    }
}

TEST(LyingEndpoint, EverySubcommandFailsOnEveryLie) {
    const streams::Lie lies[] = {{streams::Lie::Kind::MovesNothing, 0},
                                   {streams::Lie::Kind::StaleAfter, 3},
                                   {streams::Lie::Kind::CompletesEarly, 0}};
    for (const streams::Lie& lie : lies)
        for (const char* step : kSteps) {
            auto m = model(lie);
            expect_named_failure(run(step, *m), std::string(step) + " on " + streams::to_string(lie));
        }
}

TEST(LyingEndpoint, EverySubcommandFailsOnAReusedBounceBuffer) {
    for (const char* step : kSteps) {
        if (std::string(step) == "launch")
            continue;  // the bounce endpoint runs no code; launch's round trip is the sweep's check
        BounceEndpoint ep;
        expect_named_failure(run(step, ep), std::string(step) + " through a bounce buffer");
    }
}

TEST(LyingEndpoint, LatencyVerifiesEveryTimedCopy) {
    auto m = model();
    const Outcome r = run("latency", *m);
    ASSERT_EQ(r.exit_code, 0) << r.json.dump();
    EXPECT_EQ(r.json["bytes_verified"].get<uint64_t>(), 4u * 10u * 4096u) << "4 modes x 10 copies x 4 KiB";
}

TEST(LyingEndpoint, SweepVerifiesEveryTimedCopy) {
    auto m = model();
    ToolOptions o = small("sweep");
    o.sweep.staged = false;
    std::ostringstream out, err, silent;
    Progress progress(silent, false);
    ASSERT_EQ(run_tool(o, *m, "model", out, err, progress), 0) << err.str();
    const auto j = nlohmann::json::parse(out.str());
    // 2 directions x (4 + 8 + ... + 64 KiB) x 4 copies each.
    EXPECT_EQ(j["bytes_verified"].get<uint64_t>(), 2u * 4u * (4096u + 8192u + 16384u + 32768u + 65536u));
}

TEST(Verification, PoisonDiffersFromThePatternInEveryByte) {
    std::vector<uint8_t> pattern(1000), poison(1000);
    fill_pattern(pattern.data(), pattern.size(), 77);
    fill_poison(poison.data(), poison.size(), 77);
    for (size_t i = 0; i < pattern.size(); ++i)
        ASSERT_NE(pattern[i], poison[i]) << i;
    EXPECT_EQ(find_mismatch(poison.data(), poison.size(), 77), 0u);
}

TEST(Verification, SlotsAndSplits) {
    EXPECT_EQ(split_point(64), 0u) << "too small to cut";
    EXPECT_EQ(split_point(4096), 2048u);
    EXPECT_EQ(split_point(4095), 1984u) << "half, rounded down to 64 bytes";
    uint64_t key = 10;
    const auto slots = keyed_slots(3, 100, 4096, key);
    ASSERT_EQ(slots.size(), 3u);
    EXPECT_EQ(slots[1].host_offset, 128u);
    EXPECT_EQ(slots[2].card_offset, 4096u + 256u);
    EXPECT_EQ(slots[2].key, 13u);
    EXPECT_EQ(key, 13u);
    EXPECT_EQ(slots_that_fit(50, 4096, 16384, 0, 1u << 20), 4u) << "the host buffer holds four";
    EXPECT_EQ(slots_that_fit(50, 4095, 4095, 0, 4095), 1u) << "edu's window: one";
    EXPECT_EQ(slots_that_fit(2, 4096, 1u << 20, 0, 1u << 20), 2u) << "no more than asked";
}

TEST(Verification, AFailureNamesTheCopyAndEveryOffset) {
    const pdt::Error e = check_failure(Direction::C2H, 32, 4096, CopyName{"m sweep direct 4 KiB run 1", 17, 50}, 69632,
                                       0x11000);
    EXPECT_EQ(e.operation, "C2H data check");
    EXPECT_EQ(e.object, "m sweep direct 4 KiB run 1 copy 17 of 50");
    EXPECT_EQ(e.code, EIO);
    EXPECT_EQ(e.hint, "failed at byte 32 of 4096 (host buffer offset 69664, card offset 0x11020): the bytes read back "
                      "differ from the pattern written");
}
