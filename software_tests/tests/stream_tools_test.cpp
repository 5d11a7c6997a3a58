#include <gtest/gtest.h>
#include "printed.hpp"

#include "fake_stream_device.hpp"
#include "stream_tools/cli.hpp"
#include "stream_tools/stream_tools.hpp"
#include "stream_tools/verdict.hpp"
#include "test_support/text.hpp"

namespace {

using namespace std::chrono_literals;
using fake::FakeStreamDevice;
using stream_tools::ChannelSelector;
using streams::LoopRoute;
using stream_tools::StreamRunOptions;
using test_support::contains;
using test_support::contains_all;

// What run_parallel_streams prints for `devices` (the pairs `select` names, or all), and its status.
std::string parallel(const std::vector<streams::StreamDevice*>& devices, const std::vector<ChannelSelector>& select,
                     const StreamRunOptions& options, int& code) {
    return test_output::printed_by(
        [&](std::FILE* out) { code = stream_tools::run_parallel_streams(devices, select, options, out); });
}

// What run_independent_streams prints for `devices` (the channels `h2c` and `c2h` name, or all),
// and its status.
std::string independent(const std::vector<streams::StreamDevice*>& devices, const std::vector<ChannelSelector>& h2c,
                        const std::vector<ChannelSelector>& c2h, const StreamRunOptions& options, int& code) {
    return test_output::printed_by(
        [&](std::FILE* out) { code = stream_tools::run_independent_streams(devices, h2c, c2h, options, out); });
}

StreamRunOptions quick() {
    StreamRunOptions options;
    options.num_descriptors = 4;
    options.mapping_size = 4 * 8192;
    options.test.transfer_timeout = 2s;  // 300 ms failed once under a loaded 2-core ctest -j2
    options.test.report_interval = 100ms;
    options.test.duration = 250ms;
    return options;
}


struct Devices {
    FakeStreamDevice tef{"0000:15:00.0", "TEF1001_dma_stream_loopback", 41, {{0, 1}, {1, 0}}, 2};
    FakeStreamDevice ku{"0000:2d:00.0", "XCKU5P_DUAL_QSFP_dma_stream_loopback", 85, {{0, 1}, {1, 0}, {2, 3}, {3, 2}}, 4};
    std::vector<streams::StreamDevice*> all() { return {&tef, &ku}; }
};

TEST(ParallelStreams, AllRoutesPrintFpgaSioLinesAndPass) {
    Devices d;
    int code = -1;
    const std::string out = parallel(d.all(), {}, quick(), code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_TRUE(out.starts_with("Using num_descriptors=4 bytes_per_buffer=0x2000 data_mapping_size_words=0x2000\n"
                                "Selecting test of TEF1001_dma_stream_loopback design PCI device 0000:15:00.0 IOMMU "
                                "group 41 H2C channel 0 C2H channel 1\n"
                                "Selecting test of TEF1001_dma_stream_loopback design PCI device 0000:15:00.0 IOMMU "
                                "group 41 H2C channel 1 C2H channel 0\n"
                                "Selecting test of XCKU5P_DUAL_QSFP_dma_stream_loopback design PCI device "
                                "0000:2d:00.0 IOMMU group 85 H2C channel 0 C2H channel 1\n"))
        << out;
    EXPECT_TRUE(contains_all(out, {"Press Ctrl-C to stop test\n  0000:15:00.0 0 -> 1 ", " Mbytes/sec (",
                                   "Overall test statistics:\n"}));
    for (const char* label : {"0000:15:00.0 0 -> 1", "0000:15:00.0 1 -> 0", "0000:2d:00.0 2 -> 3", "0000:2d:00.0 3 -> 2"})
        EXPECT_TRUE(contains(out, std::string(label) + " Test pattern verified in ")) << out;
    EXPECT_TRUE(out.ends_with("Overall PASS\n")) << out;
    EXPECT_FALSE(d.tef.any_busy());
    EXPECT_FALSE(d.ku.any_busy());
}

TEST(ParallelStreams, StreamDeviceSelectsPairs) {
    Devices d;
    int code = -1;
    const std::vector<ChannelSelector> select{{*vfio::PciAddress::parse("0000:2d:00.0"), 2}};
    const std::string out = parallel(d.all(), select, quick(), code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_TRUE(contains(out, "H2C channel 2 C2H channel 3\nPress Ctrl-C")) << out;
    EXPECT_FALSE(contains(out, "0000:15:00.0")) << out;
    EXPECT_TRUE(contains(out, "0000:2d:00.0 2 -> 3 Test pattern verified in ")) << out;
}

TEST(ParallelStreams, UnknownSelectionFails) {
    Devices d;
    int code = -1;
    const std::vector<ChannelSelector> select{{*vfio::PciAddress::parse("0000:15:00.0"), 3}};
    const std::string out = parallel(d.all(), select, quick(), code);
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(out.ends_with("No H2C channel 3 on a stream design at 0000:15:00.0\nOverall FAIL\n")) << out;
}

TEST(ParallelStreams, NoDevicesIsAFailureNeverPass) {
    int code = -1;
    const std::string out = parallel({}, {}, quick(), code);
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(out.ends_with("Overall FAIL\n")) << out;
    EXPECT_FALSE(contains(out, "PASS"));
}

TEST(ParallelStreams, OpenFailureIsReported) {
    Devices d;
    d.ku.fail_open = true;
    int code = -1;
    const std::string out = parallel(d.all(), {}, quick(), code);
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(out.ends_with("open channel 0000:2d:00.0: No such device\nOverall FAIL\n")) << out;
}

TEST(ParallelStreams, DataFaultFailsWithChannelAndOffset) {
    fake::LoopbackConfig faults;
    faults.fault = fake::Fault::BitFlip;
    faults.fault_packet = 6;
    FakeStreamDevice device("0000:36:00.0", "NiteFury_dma_stream_loopback", 86, {{0, 1}}, 2, faults);
    int code = -1;
    StreamRunOptions options = quick();
    options.test.duration = 5s;
    const std::string out = parallel({&device}, {}, options, code);
    EXPECT_EQ(code, 1);
    // Packet 6 of 8 KiB buffers: word 5 is bad, stream byte offset 6 * 0x2000 + 20 = 0xc014.
    EXPECT_TRUE(contains(out, "0000:36:00.0 0 -> 1 Test FAILED: 0000:36:00.0 C2H 1 transfer 7: data error in buffer 2 "
                              "at buffer offset 0x14, stream offset 0xc014: expected 0x"))
        << out;
    EXPECT_TRUE(contains(out, ", 1 bad words\n")) << out;
    EXPECT_TRUE(out.ends_with("Overall FAIL\n")) << out;
    EXPECT_FALSE(device.any_busy());
}

TEST(ParallelStreams, JsonLines) {
    Devices d;
    StreamRunOptions options = quick();
    options.json = true;
    int code = -1;
    const std::string out = parallel(d.all(), {}, options, code);
    EXPECT_EQ(code, 0);
    // One "selected" line per channel pair (the fake devices choose no XDMA engine modes), then
    // the intervals.
    EXPECT_TRUE(out.starts_with("{\"type\":\"selected\",\"device\":\"0000:15:00.0\",\"design\":")) << out;
    EXPECT_TRUE(contains_all(out, {",\"channels\":\"H2C channel 0 C2H channel 1\"}\n",
                                   "}\n{\"type\":\"interval\",\"label\":\"0000:15:00.0 0 -> 1\"",
                                   "{\"type\":\"total\",\"label\":\"0000:2d:00.0 3 -> 2\"",
                                   "{\"type\":\"result\",\"overall\":\"PASS\",\"bytes_verified\":"}));
    EXPECT_FALSE(contains(out, "\"bytes_verified\":0,\"stopped_by_user\"")) << out;
    EXPECT_TRUE(contains(out, ",\"stopped_by_user\":false,\"rows\":6,\"host_cores\":")) << out;
    EXPECT_TRUE(contains(out, ",\"cores_per_verified_gbps\":")) << out;
    EXPECT_TRUE(out.ends_with("}\n")) << out;
}

TEST(IndependentStreams, EveryChannelVerifiedAgainstItsSource) {
    FakeStreamDevice device("0000:01:00.0", "TOSING_160T_dma_stream_loopback", 0, {{1, 0}, {0, 1}}, 2);
    int code = -1;
    const std::string out = independent({&device}, {}, {}, quick(), code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_TRUE(contains_all(out, {"group 0 H2C channel 0\nSelecting test of TOSING_160T_dma_stream_loopback design "
                                   "PCI device 0000:01:00.0 IOMMU group 0 H2C channel 1\n",
                                   "Press Ctrl-C to stop test\n  0000:01:00.0 H2C channel 0 ",
                                   "0000:01:00.0 C2H channel 0 Test pattern verified in ",
                                   "0000:01:00.0 C2H channel 1 Test pattern verified in "}));
    EXPECT_FALSE(contains(out, "H2C channel 0 Test pattern")) << out;
    EXPECT_TRUE(out.ends_with("Overall PASS\n")) << out;
}

TEST(IndependentStreams, OnlyC2hSelectedWarnsAndCannotPass) {
    FakeStreamDevice device("0000:01:00.0", "TOSING_160T_dma_stream_loopback", 0, {{1, 0}, {0, 1}}, 2);
    int code = -1;
    const std::vector<ChannelSelector> c2h{{*vfio::PciAddress::parse("0000:01:00.0"), 0}};
    StreamRunOptions options = quick();
    options.test.transfer_timeout = 100ms;
    const std::string out = independent({&device}, {}, c2h, options, code);
    EXPECT_EQ(code, 1) << out;
    EXPECT_TRUE(contains(out, "Warning: no H2C channel under test feeds 0000:01:00.0 C2H channel 0")) << out;
    EXPECT_TRUE(contains(out, "timeout: no C2H completion")) << out;
}

TEST(IndependentStreams, RowWithoutDataNeverPasses) {
    FakeStreamDevice device("0000:01:00.0", "TOSING_160T_dma_stream_loopback", 0, {{1, 0}, {0, 1}}, 2);
    int code = -1;
    const std::vector<ChannelSelector> c2h{{*vfio::PciAddress::parse("0000:01:00.0"), 0}};
    StreamRunOptions options = quick();
    options.test.duration = 50ms;  // stops before the transfer timeout
    const std::string out = independent({&device}, {}, c2h, options, code);
    EXPECT_EQ(code, 1) << out;
    EXPECT_TRUE(contains(out, "0000:01:00.0 C2H channel 0 No data transferred\nHost CPU: ")) << out;
    EXPECT_TRUE(out.ends_with(" every thread of the process), nothing verified\nFAIL: no C2H channel under test receives "
                             "from an H2C channel under test: nothing was verified\n\nOverall FAIL\n")) << out;
}

TEST(StreamToolOptions, Numbers) {
    EXPECT_EQ(*stream_tools::parse_number("n", "0x40", 0, 100), 64u);
    EXPECT_EQ(*stream_tools::parse_number("n", "020000000", 0, ~0ull), 0x400000u);  // octal, as fpga_sio reads it
    EXPECT_EQ(*stream_tools::parse_number("n", "64", 1, 1023), 64u);
    EXPECT_EQ(stream_tools::parse_number("stream_num_descriptors", "1024", 1, 1023).error().message(),
              "parse option --stream_num_descriptors \"1024\": Invalid argument (must be in the range 1..1023)");
    EXPECT_FALSE(stream_tools::parse_number("n", "12abc", 0, 100).ok());
    EXPECT_FALSE(stream_tools::parse_number("n", "-1", 0, 100).ok());
    EXPECT_FALSE(stream_tools::parse_number("n", "", 0, 100).ok());
    EXPECT_DOUBLE_EQ(*stream_tools::parse_seconds("duration", "2.5"), 2.5);
    EXPECT_FALSE(stream_tools::parse_seconds("duration", "0").ok());
    EXPECT_FALSE(stream_tools::parse_seconds("duration", "1s").ok());
}

TEST(StreamToolOptions, Selectors) {
    const auto s = stream_tools::parse_channel_selector("stream_device", "0000:2d:00.0,3");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->address.to_string(), "0000:2d:00.0");
    EXPECT_EQ(s->channel, 3u);
    EXPECT_FALSE(stream_tools::parse_channel_selector("stream_device", "0000:2d:00.0").ok());
    EXPECT_FALSE(stream_tools::parse_channel_selector("stream_device", "0000:2d:00.0,4").ok());
    EXPECT_FALSE(stream_tools::parse_channel_selector("stream_device", "2d:00.0,1").ok());
}

TEST(StreamToolOptions, DeviceRouting) {
    const auto r = stream_tools::parse_device_routing("device_routing", "0000:01:00.0,0:1,1:0");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->routes, (std::vector<tool_support::SwitchRoute>{{0, 1}, {1, 0}}));
    const auto none = stream_tools::parse_device_routing("device_routing", "0000:01:00.0");
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->routes.empty());
    EXPECT_FALSE(stream_tools::parse_device_routing("device_routing", "0000:01:00.0,0-1").ok());
    EXPECT_EQ(stream_tools::parse_device_routing("device_routing", "0000:01:00.0,0:1,0:2").error().hint,
              "master port 0 routed twice");
    EXPECT_EQ(*stream_tools::parse_buffer_allocation("huge_pages"), streams::BufferAllocation::HugePages);
    EXPECT_FALSE(stream_tools::parse_buffer_allocation("stack").ok());
}

// --engine_mode and --completion are parsed here, by the command-line layer; the driver gets the
// typed xdma::ModeRequest.
TEST(StreamToolOptions, EngineModeAndCompletion) {
    const auto request = stream_tools::dma_mode_request({.engine_mode = "stop_list", .completion = "completed_count"});
    ASSERT_TRUE(request.ok()) << request.error().message();
    EXPECT_EQ(request->mode, xdma::EngineModeRequest::StopList);
    EXPECT_EQ(request->completion, xdma::CompletionRequest::CompletedCount);
    EXPECT_EQ(stream_tools::dma_mode_request({.engine_mode = "credits", .completion = "interrupt"})->completion,
              xdma::CompletionRequest::Interrupt);
    const auto defaults = stream_tools::dma_mode_request({});
    ASSERT_TRUE(defaults.ok());
    EXPECT_EQ(defaults->mode, xdma::EngineModeRequest::Auto);
    EXPECT_EQ(defaults->completion, xdma::CompletionRequest::Auto);
    EXPECT_EQ(stream_tools::dma_mode_request({.engine_mode = "stoplist"}).error().message(),
              "parse option --engine_mode \"stoplist\": Invalid argument (one of auto, credits, stop_list)");
    EXPECT_EQ(stream_tools::dma_mode_request({.completion = "poll"}).error().hint,
              "one of auto, poll_writeback, completed_count, status, interrupt");
}

}  // namespace

namespace {

// Records when it runs relative to the transfers (the fake channels' busy state).
struct FakeWatcher : stream_tools::LoadWatcher {
    explicit FakeWatcher(Devices& d) : devices(d) {}
    void start() override { ++starts; }
    std::vector<std::string> stop() override {
        ++stops;
        busy_at_stop = devices.tef.any_busy() || devices.ku.any_busy();
        return {"link under load: 0000:15:00.0 5 GT/s x4 in 5 samples", "link under load: 0000:2d:00.0 8 GT/s x8 in 5 samples"};
    }
    Devices& devices;
    int starts = 0, stops = 0;
    bool busy_at_stop = true;
};

// The fake devices and a quick run's options that watch the link with the fake watcher.
struct WatchedDevices {
    WatchedDevices() { options.watcher = &watcher; }
    Devices d;
    FakeWatcher watcher{d};
    StreamRunOptions options = quick();
};

TEST(ParallelStreams, WatcherLinesPrintBeforeTheTotals) {
    WatchedDevices w;
    int code = -1;
    const std::string out = parallel(w.d.all(), {}, w.options, code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_EQ(w.watcher.starts, 1);
    EXPECT_EQ(w.watcher.stops, 1);
    EXPECT_FALSE(w.watcher.busy_at_stop) << "stopped once every channel has drained";
    EXPECT_TRUE(contains(out, "link under load: 0000:15:00.0 5 GT/s x4 in 5 samples\n"
                              "link under load: 0000:2d:00.0 8 GT/s x8 in 5 samples\n"
                              "Overall test statistics:\n"))
        << out;
    EXPECT_LT(out.find("Press Ctrl-C to stop test"), out.find("link under load")) << out;
}

TEST(IndependentStreams, WatcherLinesPrintBeforeTheTotals) {
    WatchedDevices w;
    int code = -1;
    const std::string out = independent(w.d.all(), {}, {}, w.options, code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_EQ(w.watcher.stops, 1);
    EXPECT_TRUE(contains(out, "link under load: 0000:2d:00.0 8 GT/s x8 in 5 samples\nOverall test statistics:\n"))
        << out;
}

TEST(ParallelStreams, NoWatcherNoLinkLines) {
    Devices d;
    int code = -1;
    const std::string out = parallel(d.all(), {}, quick(), code);
    EXPECT_FALSE(contains(out, "link under load")) << out;
}

}  // namespace

// A QDMA result names queues, in the text and the JSON total; an XDMA one channels.
TEST(Verdict, QdmaResultsNameQueues) {
    stream_tools::ChannelResult r{"0000:15:00.0", "U200_qdma_ram", "memory_fixed_buffers", 1u, 1u, 4096, {}, {}, true};
    EXPECT_EQ(stream_tools::describe(r),
              "0000:15:00.0 U200_qdma_ram memory_fixed_buffers H2C queue 1 C2H queue 1: 4096 bytes verified");
    EXPECT_TRUE(test_support::contains(stream_tools::json_total(r), ",\"h2c_queue\":1,\"c2h_queue\":1,"))
        << stream_tools::json_total(r);
    r.queues = false;
    EXPECT_EQ(stream_tools::describe(r),
              "0000:15:00.0 U200_qdma_ram memory_fixed_buffers H2C channel 1 C2H channel 1: 4096 bytes verified");
    EXPECT_TRUE(test_support::contains(stream_tools::json_total(r), ",\"h2c_channel\":1,\"c2h_channel\":1,"));
}
