// Runs inside the QEMU guest (vm label, test vm_edu_stream): the stream-test driver the
// test_dma_bridge* tools use, over the edu loopback adapter (edu::EduLoopback), through the
// kernel VFIO backend. Every received byte is checked against the pattern. edu completes a
// transfer ~100 ms after the command, so the runs are short: a few dozen transfers.
//
// The driver's report lines go to stdout (the vm log); each run is introduced by a line
// "edu-stream: <case>" so the log shows which run printed what.
//
// --no_iommu (vm_noiommu: a guest without an IOMMU, edu in a no-IOMMU group) allows its DMA
// with physical addresses, as the tools' option does; without it the buffers are refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "cli/option_names.hpp"
#include "edu/edu_device.hpp"
#include "edu/edu_stream.hpp"
#include "edu_guest.hpp"
#include "forwarding_channel.hpp"
#include "stream_test/report.hpp"
#include "stream_test/driver.hpp"
#include "vfio_access/kernel.hpp"

namespace {

using namespace std::chrono_literals;

constexpr uint64_t BUFFER_SIZE = 2048;  // edu's limit is 4095 bytes a transfer
constexpr size_t BUFFERS = 3;
constexpr uint64_t PACKETS = 16;        // 16 H2C + 16 C2H transfers: about 3 s
constexpr uint64_t TOTAL_BYTES = PACKETS * BUFFER_SIZE;

using edu_guest::Guest;

bool g_no_iommu = false;  // --no_iommu

vfio::KernelOptions edu_options() {
    vfio::KernelOptions options;
    options.no_iommu = g_no_iommu;
    vfio::DeviceFilter filter;
    filter.vendor_id = edu::VENDOR_ID;
    filter.device_id = edu::DEVICE_ID;
    options.selection.add_filter(filter);
    return options;
}

// The first edu device bound to vfio-pci, opened once for every test (opening resets it).
Guest& guest() {
    static Guest* g = [] {
        auto* g = new Guest(edu_options());
        if (!g->open_first())
            return g;
        if (auto master = g->device->enable_bus_master(); !master) {
            g->error = cli::name_options(master.error()).message();
            return g;
        }
        g->attach();
        return g;
    }();
    return *g;
}

// A C2H channel that flips one bit of one received packet after the real transfer completed:
// the fault a bad DMA engine or a bad FIFO would make. The driver must report it.
class BitFlipC2H final : public stream_channel_test::ForwardingChannel {
public:
    BitFlipC2H(streams::StreamChannel& inner, uint64_t packet, uint64_t byte)
        : ForwardingChannel(inner), m_packet(packet), m_byte(byte) {}

    pdt::Result<std::optional<streams::Completion>> poll() override {
        auto polled = PDT_TRY(ForwardingChannel::poll());
        if (polled)
            corrupt(*polled);
        return polled;
    }
    pdt::Result<streams::Completion> wait(std::chrono::milliseconds timeout) override {
        auto completion = PDT_TRY(ForwardingChannel::wait(timeout));
        corrupt(completion);
        return completion;
    }

private:
    void corrupt(const streams::Completion& completion) {
        if (m_received++ == m_packet && m_byte < completion.length)
            buffer(completion.buffer)[m_byte] ^= 0x10;
    }
    uint64_t m_packet, m_byte;
    uint64_t m_received = 0;
};

struct DriverRun {
    stream_test::Summary summary;
    int exit_code = 1;
};

// The driver as test_dma_bridge_parallel_streams runs it: one source, the sink it loops to,
// every byte verified, the report printed to stdout.
DriverRun run_driver(const char* label, streams::StreamChannel& h2c, streams::StreamChannel& c2h) {
    std::printf("edu-stream: %s\n", label);
    stream_test::Options options;
    options.transfer_timeout = 5s;
    options.report_interval = 1s;
    options.duration = 60s;  // a safety net: bytes_per_source ends the run
    options.bytes_per_source = TOTAL_BYTES;
    stream_test::StreamTest test(options);
    DriverRun run;
    auto source = test.add_source(h2c, 0);
    EXPECT_TRUE(source.ok()) << source.error().message();
    auto sink = source.ok() ? test.add_sink(c2h, *source) : pdt::Result<size_t>(source.error());
    EXPECT_TRUE(sink.ok()) << sink.error().message();
    if (!sink.ok())
        return run;
    test.add_pair_row(guest().device->identity().address.to_string() + " 0 -> 0", *sink);
    stream_test::Report report(stdout, false);
    run.summary = test.run(report);
    run.exit_code = report.finish(run.summary);
    std::fflush(stdout);
    EXPECT_FALSE(h2c.busy());
    EXPECT_FALSE(c2h.busy());
    return run;
}

std::unique_ptr<edu::EduLoopback> loopback() {
    auto created = edu::EduLoopback::create(*guest().edu, {.buffers = BUFFERS, .buffer_size = BUFFER_SIZE});
    EXPECT_TRUE(created.ok()) << cli::name_options(created.error()).message();  // as a tool: names --no_iommu
    return created.ok() ? std::move(created).value() : nullptr;
}

TEST(EduStream, DriverVerifiesEveryByteThroughEdu) {
    ASSERT_TRUE(guest().edu.has_value()) << guest().error;
    auto loop = loopback();
    ASSERT_TRUE(loop);
    const DriverRun run = run_driver("stream-test driver over edu loopback", loop->h2c(), loop->c2h());
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_TRUE(run.summary.passed());
    EXPECT_TRUE(run.summary.failures.empty());
    ASSERT_EQ(run.summary.rows.size(), 1u);
    EXPECT_EQ(run.summary.rows[0].total.bytes, TOTAL_BYTES);
    EXPECT_EQ(run.summary.rows[0].words_verified * 4, TOTAL_BYTES);
}

// Inverted: one bit flipped in packet 5 after edu delivered it must fail the run, naming the
// C2H channel and the stream offset of the bad word.
TEST(EduStream, DriverCatchesCorruptedPacket) {
    ASSERT_TRUE(guest().edu.has_value()) << guest().error;
    auto loop = loopback();
    ASSERT_TRUE(loop);
    constexpr uint64_t bad_packet = 5, bad_byte = 100;
    BitFlipC2H c2h(loop->c2h(), bad_packet, bad_byte);
    const DriverRun run = run_driver("stream-test driver over edu loopback, bit flip injected in C2H packet 5",
                               loop->h2c(), c2h);
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_FALSE(run.summary.passed());
    ASSERT_FALSE(run.summary.failures.empty());
    const auto& failure = run.summary.failures.front();
    EXPECT_EQ(failure.channel, loop->c2h().name());
    EXPECT_NE(failure.message.find("expected 0x"), std::string::npos) << failure.message;
    ASSERT_TRUE(failure.mismatch.has_value()) << failure.message;
    EXPECT_EQ(failure.mismatch->first_bad_word * 4, bad_packet * BUFFER_SIZE + bad_byte);
    EXPECT_EQ(failure.stream_byte_offset, bad_packet * BUFFER_SIZE + bad_byte);
    // The run stopped at the fault: fewer bytes than asked for were received.
    ASSERT_EQ(run.summary.rows.size(), 1u);
    EXPECT_LT(run.summary.rows[0].total.bytes, TOTAL_BYTES);
}

}  // namespace

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) != "--no_iommu") {
            std::fprintf(stderr, "usage: %s [--gtest_...] [--no_iommu]\n", argv[0]);
            return 2;
        }
        g_no_iommu = true;
    }
    return RUN_ALL_TESTS();
}
