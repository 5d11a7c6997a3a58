// The lying GPU (--cuda_lie, docs/verification.md) on a real GPU (label gpu; without one every
// test skips and says why). In process: what each lie does to the copy endpoint's copies. As a
// user runs them: test_dma_bridge_parallel_streams, test_dma_bridge_independent_streams and
// every data-moving pcie_link_measure subcommand on --endpoint cuda exit 1 on every lie, naming
// the channel (or endpoint), the transfer and the offset; each passes without a lie.
#include <gtest/gtest.h>

#include <cstring>
#include <regex>

#include "cuda_stream/cuda_copy_endpoint.hpp"
#include "require_gpu.hpp"
#include "tool_run.hpp"

namespace {

using namespace std::chrono_literals;
using streams::HostMemory;
using streams::Direction;
using test_support::contains;

// The endpoint's copies, each waited for; src holds 0x5a, dst 0xc3 (poison) before the first.
struct Endpoint {
    explicit Endpoint(streams::Lie lie) {
        cuda_stream::CopyEndpointConfig config;
        config.card_memory_bytes = 1 << 20, config.queues = 2, config.max_in_flight = 4, config.lie = lie;
        auto e = cuda_stream::open_copy_endpoint(config);
        EXPECT_TRUE(e) << e.error().message();
        if (!e)
            return;
        ep = std::move(*e);
        src = std::move(ep->allocate(kBytes, HostMemory::Registered).value());
        dst = std::move(ep->allocate(kBytes, HostMemory::Registered).value());
        std::memset(src->data(), 0x5a, kBytes);
        std::memset(dst->data(), 0xc3, kBytes);
    }
    void copy(Direction d, unsigned queue, uint64_t card_offset = 0) {
        auto t = ep->issue(d, queue, d == Direction::H2C ? *src : *dst, 0, card_offset, kBytes);
        ASSERT_TRUE(t) << t.error().message();
        ASSERT_TRUE(ep->wait(*t, 5s));
    }
    // The first byte of dst that is not 0x5a, or kBytes.
    uint64_t first_unmoved() const {
        for (uint64_t i = 0; i < kBytes; ++i)
            if (dst->data()[i] != 0x5a)
                return i;
        return kBytes;
    }
    static constexpr uint64_t kBytes = 4096;
    std::unique_ptr<streams::CopyEndpoint> ep;
    std::unique_ptr<streams::HostBuffer> src, dst;
};

TEST(CudaLie, TheHonestEndpointMovesEveryByte) {
    REQUIRE_GPU();
    Endpoint e({});
    e.copy(Direction::H2C, 0);
    e.copy(Direction::C2H, 1);
    EXPECT_EQ(e.first_unmoved(), Endpoint::kBytes);
}

TEST(CudaLie, MovesNothingCompletesAndMovesNoByte) {
    REQUIRE_GPU();
    Endpoint e({streams::Lie::Kind::MovesNothing, 0});
    e.copy(Direction::H2C, 0);
    e.copy(Direction::C2H, 1);
    EXPECT_EQ(e.first_unmoved(), 0u);
    EXPECT_EQ(e.dst->data()[Endpoint::kBytes - 1], 0xc3);
}

TEST(CudaLie, StaleAfterMovesTheFirstNCopiesOfBothDirections) {
    REQUIRE_GPU();
    Endpoint e({streams::Lie::Kind::StaleAfter, 2});
    e.copy(Direction::H2C, 0);
    e.copy(Direction::C2H, 0);
    EXPECT_EQ(e.first_unmoved(), Endpoint::kBytes);
    std::memset(e.dst->data(), 0xc3, Endpoint::kBytes);
    e.copy(Direction::H2C, 0);
    e.copy(Direction::C2H, 1);
    EXPECT_EQ(e.first_unmoved(), 0u) << "copies 3 and 4 moved";
}

TEST(CudaLie, CompletesEarlyLandsTheLast64BytesAtTheNextCopy) {
    REQUIRE_GPU();
    Endpoint e({streams::Lie::Kind::CompletesEarly, 0});
    e.copy(Direction::H2C, 0);
    e.copy(Direction::C2H, 1);  // lands the H2C tail first, holds back its own
    EXPECT_EQ(e.first_unmoved(), Endpoint::kBytes - 64);
    e.copy(Direction::H2C, 0, 8192);  // the next copy starts: the C2H tail lands
    EXPECT_EQ(e.first_unmoved(), Endpoint::kBytes);
}

// The tools, as a user runs them. Every run makes far more than 5 transfers; a stream tool's
// run far more than 300.
const std::vector<std::string> kLies = {"moves_nothing", "stale_after=0", "stale_after=5", "completes_early"};
const std::vector<std::string> kStreamLies = {"moves_nothing", "stale_after=0", "stale_after=5", "stale_after=300",
                                              "completes_early"};

// A GPU's channel "0000:19:00.0 H2C 0" or endpoint "0000:19:00.0 NVIDIA H200".
const std::regex kGpuName("[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
const std::regex kTransfer("(transfer|copy) [0-9]+");
const std::regex kOffset("offset (0x)?[0-9a-fA-F]+|at byte [0-9]+");

void expect_named_failure(const test_support::Outcome& r, const std::string& what) {
    EXPECT_EQ(r.exit_code, 1) << what << ": " << r.output;
    EXPECT_FALSE(contains(r.output, "Overall PASS")) << what << ": " << r.output;
    EXPECT_FALSE(contains(r.output, "Verdict: PASS")) << what << ": " << r.output;
    EXPECT_TRUE(std::regex_search(r.output, kGpuName)) << what << ": names no channel or endpoint: " << r.output;
    EXPECT_TRUE(std::regex_search(r.output, kOffset)) << what << ": names no offset: " << r.output;
    EXPECT_TRUE(std::regex_search(r.output, kTransfer)) << what << ": names no transfer: " << r.output;
}

const std::vector<std::string> kStreamArgs = {"--cuda_device",  "0",        "--cuda_reference_secs",   "0",
                                              "--duration",     "3",        "--stream_mapping_size",   "0x800000",
                                              "--stream_num_descriptors", "4"};

TEST(CudaLieTools, TheStreamToolsPassWithoutALie) {
    REQUIRE_GPU();
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL}) {
        const auto r = tool_run::run_tool(tool, kStreamArgs);
        EXPECT_EQ(r.exit_code, 0) << tool << ": " << r.output;
        EXPECT_TRUE(contains(r.output, "Overall PASS")) << tool << ": " << r.output;
    }
}

TEST(CudaLieTools, TheStreamToolsFailEveryLie) {
    REQUIRE_GPU();
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL})
        for (const std::string& lie : kStreamLies)
            expect_named_failure(tool_run::run_tool(tool, tool_run::with(kStreamArgs, {"--cuda_lie", lie})),
                                 std::string(tool) + " --cuda_lie " + lie);
}

// Each data-moving subcommand, small: a few seconds on a GPU.
const std::vector<std::vector<std::string>> kSubcommands = {
    {"sweep", "--min_bytes", "4KiB", "--max_bytes", "1MiB", "--repeats", "1", "--iterations", "3"},
    {"latency", "--samples", "20", "--max_gap_us", "50"},
    {"inflight", "--inflight_sizes", "1MiB", "--repeats", "1"},
    {"bidir", "--bidir_bytes", "1MiB", "--bidir_copies", "2", "--repeats", "1"},
    {"access", "--access_sizes", "64,2048", "--access_windows", "64KiB", "--access_transfers", "16",
     "--access_memories", "registered", "--access_caches", "warm", "--access_patterns", "sequential"},
    {"access", "--access_direction", "C2H", "--access_sizes", "64,2048", "--access_windows", "64KiB",
     "--access_transfers", "16", "--access_memories", "registered", "--access_caches", "warm", "--access_patterns",
     "sequential"},
    {"launch", "--launch_samples", "5", "--launch_queued", "5", "--repeats", "1"},  // its 4 KiB round trips
    {"ceiling", "--min_bytes", "4KiB", "--max_bytes", "1MiB", "--repeats", "1", "--iterations", "3", "--active_bytes",
     "1GiB"},
};
const std::vector<std::string> kEndpointArgs = {"--endpoint", "cuda", "--cuda_memory", "64MiB", "--transfer_timeout",
                                                "20"};

TEST(CudaLieTools, PcieLinkMeasurePassesWithoutALie) {
    REQUIRE_GPU();
    for (const auto& subcommand : kSubcommands) {
        const auto r = tool_run::run_tool(LINK_MEASURE_TOOL, tool_run::with(subcommand, kEndpointArgs));
        EXPECT_EQ(r.exit_code, 0) << subcommand[0] << ": " << r.output;
        EXPECT_TRUE(contains(r.output, "Verdict: PASS")) << subcommand[0] << ": " << r.output;
    }
}

TEST(CudaLieTools, PcieLinkMeasureFailsEveryLie) {
    REQUIRE_GPU();
    for (const auto& subcommand : kSubcommands)
        for (const std::string& lie : kLies)
            expect_named_failure(tool_run::run_tool(LINK_MEASURE_TOOL, tool_run::with(tool_run::with(subcommand, kEndpointArgs),
                                                                                      {"--cuda_lie", lie})),
                                 "pcie_link_measure " + subcommand[0] + " --cuda_lie " + lie);
}

}  // namespace
