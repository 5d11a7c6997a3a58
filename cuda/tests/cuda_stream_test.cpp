// The CUDA stream adapter on a real GPU (label gpu). Without one, every GPU test skips and
// says why; NoGpuIsAnErrorThatSaysWhy then checks the error the tools print.
#include <gtest/gtest.h>

#include <cstring>

#include "cuda_stream/cuda_stream.hpp"
#include "pattern/pattern.hpp"
#include "require_gpu.hpp"
#include "stream_test/driver.hpp"

namespace {

using streams::Direction;

cuda_stream::ChannelConfig config(unsigned channel = 0, size_t count = 4, uint64_t size = 1 << 20) {
    cuda_stream::ChannelConfig c;
    c.channel = channel;
    c.buffer_count = count;
    c.buffer_size = size;
    return c;
}

// The next completion is buffer i, holding the i-th buffer's words of p's stream.
void expect_generated_buffer(streams::StreamChannel& c, const pattern::Pattern& p, size_t i) {
    auto done = c.wait(std::chrono::seconds(10));
    ASSERT_TRUE(done.ok()) << done.error().message();
    ASSERT_EQ(done->buffer, i);
    const auto m = p.verify(reinterpret_cast<const uint32_t*>(c.buffer(i)), c.buffer_size() / 4, i * c.buffer_size() / 4);
    EXPECT_TRUE(m.ok()) << m.describe();
}

TEST(CudaStream, NoGpuIsAnErrorThatSaysWhy) {
    auto count = cuda_stream::gpu_count();
    if (count.ok()) {
        EXPECT_GT(*count, 0);
        auto info = cuda_stream::gpu_info(*count);  // one past the last
        ASSERT_FALSE(info.ok());
        EXPECT_NE(info.error().message().find("numbered from 0"), std::string::npos) << info.error().message();
        return;
    }
    EXPECT_NE(count.error().message().find("GPU"), std::string::npos) << count.error().message();
    auto h2c = cuda_stream::open_h2c(config(), nullptr);
    ASSERT_FALSE(h2c.ok());
    EXPECT_NE(h2c.error().message().find("cudaGetDeviceCount"), std::string::npos) << h2c.error().message();
}

TEST(CudaStream, H2cDataIsCheckedOnTheGpu) {
    REQUIRE_GPU();
    auto channel = cuda_stream::open_h2c(config(), nullptr);
    ASSERT_TRUE(channel.ok()) << channel.error().message();
    auto& c = **channel;
    EXPECT_TRUE(c.checks_h2c_data());
    const pattern::Pattern p(7, 0);
    p.generate(reinterpret_cast<uint32_t*>(c.buffer(0)), c.buffer_size() / 4, 1000);
    c.describe(0, streams::PatternSpan{7, 0, 1000});
    ASSERT_TRUE(c.submit(0, c.buffer_size(), true).ok());
    auto done = c.wait(std::chrono::seconds(10));
    ASSERT_TRUE(done.ok()) << done.error().message();
    EXPECT_EQ(done->card_verified_bytes, c.buffer_size());
    // A byte the host changed after generating is a mismatch the GPU reports, with its offset.
    p.generate(reinterpret_cast<uint32_t*>(c.buffer(1)), c.buffer_size() / 4, 5000);
    c.buffer(1)[13] ^= 0x40;
    c.describe(1, streams::PatternSpan{7, 0, 5000});
    ASSERT_TRUE(c.submit(1, c.buffer_size(), true).ok());
    auto bad = c.wait(std::chrono::seconds(10));
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message().find("stream byte offset 0x4e2c"), std::string::npos) << bad.error().message();
    EXPECT_FALSE(c.busy());
}

TEST(CudaStream, C2hDataIsTheGeneratedStream) {
    REQUIRE_GPU();
    auto channel = cuda_stream::open_c2h(config(3), nullptr);
    ASSERT_TRUE(channel.ok()) << channel.error().message();
    auto& c = **channel;
    ASSERT_EQ(c.generated_stream(), cuda_stream::generated_stream_of(3));
    const pattern::Pattern p(cuda_stream::generated_stream_of(3), 0);
    for (size_t i = 0; i < 2; ++i)
        ASSERT_TRUE(c.submit(i, c.buffer_size(), false).ok());
    for (size_t i = 0; i < 2; ++i)
        expect_generated_buffer(c, p, i);
}

struct Quiet : stream_test::Observer {
    void on_interval(const std::vector<std::pair<std::string, stream_test::Interval>>&) override {}
};

stream_test::Summary loopback(std::optional<cuda_stream::Corruption> corruption,
                              cuda_stream::HostMemory memory = cuda_stream::HostMemory::Pinned) {
    auto loop = cuda_stream::make_loop(0, 4, 1 << 20);
    EXPECT_TRUE(loop.ok());
    auto cfg = config();
    cfg.corruption = corruption;
    cfg.memory = memory;
    auto h2c = cuda_stream::open_h2c(cfg, *loop);
    auto c2h = cuda_stream::open_c2h(cfg, *loop);
    EXPECT_TRUE(h2c.ok() && c2h.ok());
    stream_test::Options options;
    options.bytes_per_source = 64u << 20;
    options.transfer_timeout = std::chrono::seconds(10);
    stream_test::StreamTest test(options);
    const size_t source = *test.add_source(**h2c, 0);
    const size_t sink = *test.add_sink(**c2h, source);
    test.add_pair_row("GPU 0 -> 0", sink);
    Quiet quiet;
    return test.run(quiet);
}

TEST(CudaStream, LoopbackThroughGpuMemoryPassesTheStreamTest) {
    REQUIRE_GPU();
    const stream_test::Summary summary = loopback(std::nullopt);
    ASSERT_TRUE(summary.passed()) << (summary.failures.empty() ? "" : summary.failures[0].message);
    EXPECT_EQ(summary.rows[0].words_verified, (64u << 20) / 4);
    EXPECT_EQ(summary.rows[0].card_words_verified, (64u << 20) / 4);
}

TEST(CudaStream, ACorruptedByteOnTheGpuFailsNamingItsOffset) {
    REQUIRE_GPU();
    const stream_test::Summary summary = loopback(cuda_stream::Corruption{Direction::H2C, 0x123457});
    ASSERT_FALSE(summary.passed());
    ASSERT_FALSE(summary.failures.empty());
    EXPECT_NE(summary.failures[0].message.find("offset 0x123454"), std::string::npos)
        << summary.failures[0].message;
}

// Pageable memory: the copies are issued on the channel's (the pair's) Issuer thread; the
// loopback's order through the GPU slots and the checks must hold as with pinned memory.
TEST(CudaStream, PageableLoopbackIssuedOnItsOwnThreadPassesAndACorruptionFails) {
    REQUIRE_GPU();
    const stream_test::Summary summary = loopback(std::nullopt, cuda_stream::HostMemory::Pageable);
    ASSERT_TRUE(summary.passed()) << (summary.failures.empty() ? "" : summary.failures[0].message);
    EXPECT_EQ(summary.rows[0].words_verified, (64u << 20) / 4);
    const stream_test::Summary bad =
        loopback(cuda_stream::Corruption{Direction::H2C, 0x200001}, cuda_stream::HostMemory::Pageable);
    ASSERT_FALSE(bad.passed());
    ASSERT_FALSE(bad.failures.empty());
    EXPECT_NE(bad.failures[0].message.find("offset 0x200000"), std::string::npos) << bad.failures[0].message;
}

TEST(CudaStream, PageableC2hDeliversTheGeneratedStreamInOrder) {
    REQUIRE_GPU();
    auto cfg = config(5);
    cfg.memory = cuda_stream::HostMemory::Pageable;
    auto channel = cuda_stream::open_c2h(cfg, nullptr);
    ASSERT_TRUE(channel.ok()) << channel.error().message();
    auto& c = **channel;
    const pattern::Pattern p(cuda_stream::generated_stream_of(5), 0);
    for (size_t i = 0; i < c.buffer_count(); ++i) {
        std::memset(c.buffer(i), 0xa5, c.buffer_size());  // poison: what was not copied fails
        ASSERT_TRUE(c.submit(i, c.buffer_size(), false).ok());  // returns before the copy (posted)
    }
    for (size_t i = 0; i < c.buffer_count(); ++i)
        expect_generated_buffer(c, p, i);
    EXPECT_TRUE(c.stop().ok());
}

TEST(CudaStream, BareCopyReferenceMeasuresBothDirections) {
    REQUIRE_GPU();
    cuda_stream::BareConfig c;
    c.buffer_size = 4 << 20;
    c.seconds_per_mode = 0.3;
    auto rates = cuda_stream::bare_copy_rates(c);
    ASSERT_TRUE(rates.ok()) << rates.error().message();
    EXPECT_GT(rates->h2d_gbps, 0.5);
    EXPECT_GT(rates->d2h_gbps, 0.5);
    EXPECT_GT(rates->both_h2d_gbps + rates->both_d2h_gbps, 0.5);
}

}  // namespace
