// access checks every transfer's bytes (not only the last of a point), covers the offsets 0-63
// by default, and keeps C2H transfers of a batch apart so that each can be checked. The model
// endpoint moves real bytes; a recording wrapper sees every copy the subcommand issues.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "subcommand_fixture.hpp"
#include "streams/forwarding_endpoint.hpp"
#include "measure/subcommands.hpp"
#include "sim/model_copy_endpoint.hpp"

using namespace measure;

namespace {

sim::ModelCopyParameters fast(unsigned corrupt_every = 0) {
    sim::ModelCopyParameters p;
    p.h2c_gbps = p.c2h_gbps = 2.0, p.latency_us = 1, p.in_flight = 2;
    p.card_memory_bytes = 1ull << 20;
    p.corrupt_every = corrupt_every;
    return p;
}

// Forwards to the model and records the host offset and size of every copy issued.
class Recording final : public streams::ForwardingEndpoint {
public:
    explicit Recording(const sim::ModelCopyParameters& p) : streams::ForwardingEndpoint(sim::ModelCopyEndpoint::create(p).value()) {}
    pdt::Result<Ticket> issue(Direction d, unsigned queue, HostBuffer& host, uint64_t host_offset, uint64_t card_offset,
                              uint64_t bytes) override {
        issued.push_back({host_offset, bytes});
        return streams::ForwardingEndpoint::issue(d, queue, host, host_offset, card_offset, bytes);
    }
    std::vector<std::pair<uint64_t, uint64_t>> issued;  // host offset, bytes
};

AccessSettings one_point(Direction d, uint64_t bytes, uint64_t window, unsigned transfers) {
    AccessSettings s;
    s.direction = d;
    s.sizes = {bytes}, s.windows = {window}, s.patterns = {"sequential"}, s.caches = {"warm"};
    s.memories = {HostMemory::Registered}, s.transfers = transfers;
    return s;
}

struct Access : SubcommandTest {
    pdt::Result<AccessResult> run(CopyEndpoint& ep, const AccessSettings& s) {
        return run_access(ep, s, common, progress, verified, warnings);
    }
};

// `r` failed with `code`, its message naming each of `parts`.
void expect_error(const pdt::Result<AccessResult>& r, int code, std::initializer_list<const char*> parts) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, code) << r.error().message();
    for (const char* part : parts)
        EXPECT_NE(r.error().message().find(part), std::string::npos) << part << ": " << r.error().message();
}

}  // namespace

TEST_F(Access, ACorruptedH2cTransferBeforeTheLastIsFound) {
    // The model flips a byte of its 5th copy: the 5th timed transfer of 16 (H2C has no preload).
    Recording ep(fast(5));
    auto r = run(ep, one_point(Direction::H2C, 64, 4096, 16));
    expect_error(r, EIO, {"H2C data check", "access copy 5 of 16", "failed at byte 32 of 64"});
}

TEST_F(Access, ACorruptedC2hTransferIsFoundAfterItsBatch) {
    // Copies 1 and 2 preload the card regions (two pieces, the last first); copy 5 is the 3rd
    // timed transfer.
    Recording ep(fast(5));
    auto r = run(ep, one_point(Direction::C2H, 100, 8192, 16));
    expect_error(r, EIO, {"C2H data check", "access copy 3 of 16"});
}

TEST_F(Access, EveryTransfersBytesCountAsVerified) {
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        Recording ep(fast());
        AccessSettings s = one_point(d, 257, 65536, 40);
        s.sizes = {63, 257}, s.caches = {"warm", "cold"};
        verified = 0;
        auto r = run(ep, s);
        ASSERT_TRUE(r) << r.error().message();
        ASSERT_EQ(r->points.size(), 4u);
        uint64_t expected = 0;
        for (const AccessPoint& p : r->points) {
            EXPECT_EQ(p.bytes_verified, p.bytes * 40);
            expected += p.bytes_verified;
        }
        EXPECT_EQ(verified, expected) << to_string(d);
    }
}

TEST_F(Access, ByDefaultEachPointSpreadsItsTransfersOverOffsets0To63) {
    Recording ep(fast());
    AccessSettings s = one_point(Direction::H2C, 64, 1ull << 20, 128);
    s.patterns = {"random"};
    auto r = run(ep, s);
    ASSERT_TRUE(r) << r.error().message();
    ASSERT_EQ(r->points.size(), 1u);
    EXPECT_TRUE(r->points[0].offset_spread);
    EXPECT_EQ(r->points[0].offset_text(), "0-63");
    std::set<uint64_t> offsets;
    for (const auto& [host_offset, bytes] : ep.issued)
        if (bytes == 64)
            offsets.insert(host_offset % 128);  // slots of 64 + 63 bytes rounded up: 128
    EXPECT_EQ(offsets.size(), 64u);
    EXPECT_EQ(*offsets.rbegin(), 63u);
}

TEST_F(Access, GivenOffsetsAreAPointEach) {
    Recording ep(fast());
    AccessSettings s = one_point(Direction::C2H, 65, 4096, 16);
    s.offsets = {0, 1, 63};
    auto r = run(ep, s);
    ASSERT_TRUE(r) << r.error().message();
    ASSERT_EQ(r->points.size(), 3u);
    EXPECT_EQ(r->points[2].offset_text(), "63");
    EXPECT_FALSE(r->points[2].offset_spread);
}

TEST_F(Access, C2hInAWindowOfOneSlotChecksEachTransfer) {
    // 2049 B (+63 for the spread) fill a 4 KiB window's one slot: every batch holds one transfer.
    Recording ep(fast());
    auto r = run(ep, one_point(Direction::C2H, 2049, 4096, 24));
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(verified, 2049u * 24);
}

TEST_F(Access, TransfersThatDoNotFitTheCardAreAUsageError) {
    Recording ep(fast());
    auto r = run(ep, one_point(Direction::H2C, 2048, 4096, 1024));  // 2 MiB of regions, 1 MiB card
    expect_error(r, EINVAL, {"give fewer --access_transfers"});
}
