// The Issuer (cuda/src/issuer.hpp): the thread that issues a pageable channel's CUDA work. It
// holds no CUDA type, so it is tested here without a GPU (label unit).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "../src/issuer.hpp"

namespace {

using cuda_stream::detail::Issuer;

TEST(Issuer, RunsJobsInTheOrderPostedOnItsOwnThread) {
    Issuer issuer;
    std::vector<int> order;
    std::atomic<bool> other_thread{true};
    const auto caller = std::this_thread::get_id();
    for (int i = 0; i < 100; ++i)
        issuer.post([&, i]() -> pdt::Result<void> {
            order.push_back(i);
            if (std::this_thread::get_id() == caller)
                other_thread = false;
            return {};
        });
    issuer.drain();
    ASSERT_EQ(order.size(), 100u);
    for (int i = 0; i < 100; ++i)
        EXPECT_EQ(order[i], i);
    EXPECT_TRUE(other_thread.load());
    EXPECT_FALSE(issuer.error().has_value());
}

TEST(Issuer, PostReturnsBeforeTheJobRunsAndDrainWaitsForIt) {
    Issuer issuer;
    std::atomic<bool> release{false}, ran{false};
    issuer.post([&]() -> pdt::Result<void> {
        while (!release.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ran = true;
        return {};
    });
    EXPECT_FALSE(ran.load());  // post did not wait for the job
    release = true;
    issuer.drain();
    EXPECT_TRUE(ran.load());
}

TEST(Issuer, TheFirstErrorIsKeptAndLaterJobsAreSkipped) {
    Issuer issuer;
    int after = 0;
    issuer.post([]() -> pdt::Result<void> { return pdt::make_error("cudaMemcpyAsync D2H", "GPU 0 C2H 0", EIO, "x"); });
    issuer.post([]() -> pdt::Result<void> { return pdt::make_error("second", "GPU 0", EIO, "y"); });
    issuer.post([&]() -> pdt::Result<void> {
        ++after;
        return {};
    });
    issuer.drain();
    ASSERT_TRUE(issuer.error().has_value());
    EXPECT_NE(issuer.error()->message().find("cudaMemcpyAsync D2H"), std::string::npos) << issuer.error()->message();
    EXPECT_EQ(issuer.error()->message().find("second"), std::string::npos);
    EXPECT_EQ(after, 0);
}

TEST(Issuer, DestroyedWithJobsQueuedRunsThemBeforeItsThreadEnds) {
    std::atomic<int> ran{0};
    {
        Issuer issuer;
        for (int i = 0; i < 10; ++i)
            issuer.post([&]() -> pdt::Result<void> {
                ++ran;
                return {};
            });
    }
    EXPECT_EQ(ran.load(), 10);
}

}  // namespace
