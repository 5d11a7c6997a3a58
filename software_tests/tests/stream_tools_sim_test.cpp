// The stream tools on simulated XDMA designs: each fault the XDMA model can inject makes the
// tool print Overall FAIL naming the channel (and, for data errors, the first bad offset) and
// return 1; a stop (as Ctrl-C) drains and leaves every engine of the model idle.
#include <gtest/gtest.h>
#include "printed.hpp"

#include <regex>
#include <thread>

#include "identify/identify.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"
#include "simulated_design.hpp"
#include "stream_subtest_runs.hpp"
#include "stream_tools/descriptor_credits.hpp"
#include "stream_tools/dma_bridge_suite.hpp"
#include "stream_tools/stream_subtests.hpp"
#include "stream_tools/stream_tools.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace {

using namespace std::chrono_literals;
using stream_tools::StreamRunOptions;

struct SimDesign {
    explicit SimDesign(const char* name, size_t index = 0) : m_registry(*designs::Registry::builtin()) {
        auto simulated = test_designs::identify_simulated(m_registry, name, index);
        xdma = simulated.xdma;
        device = test_designs::open_stream_device(std::move(simulated.identified), 500ms);
    }
    bool any_engine_busy() const {
        for (unsigned ch = 0; ch < xdma->config().num_h2c; ++ch)
            if (xdma->busy(sim::XdmaDirection::H2C, ch))
                return true;
        for (unsigned ch = 0; ch < xdma->config().num_c2h; ++ch)
            if (xdma->busy(sim::XdmaDirection::C2H, ch))
                return true;
        return false;
    }
    // Waits for the event "the engine of a channel has completed `count` descriptors" (data
    // flows there), not for a guessed time; false when it has not come within 60 s.
    bool wait_for_descriptors(sim::XdmaDirection direction, unsigned channel, uint64_t count) const {
        const auto give_up = std::chrono::steady_clock::now() + 60s;
        while (xdma->descriptors_processed(direction, channel) < count)
            if (std::chrono::steady_clock::now() > give_up)
                return false;
            else
                std::this_thread::sleep_for(1ms);  // the model has no callback: the count is polled
        return true;
    }

    designs::Registry m_registry;
    std::shared_ptr<sim::XdmaModel> xdma;
    std::unique_ptr<adapters::XdmaStreamDevice> device;
};

StreamRunOptions sim_options() { return test_designs::short_stream_run(500ms, 600ms); }

std::string run_parallel(streams::StreamDevice& device, const StreamRunOptions& options, int& code) {
    return test_output::printed_by([&](std::FILE* out) {
        code = stream_tools::run_parallel_streams({&device}, {{device.address(), 0}}, options, out);
    });
}

TEST(StreamToolsSim, NiteFuryLoopbackPasses) {
    SimDesign sim("NiteFury_dma_stream_loopback", 2);
    int code = -1;
    const std::string out = run_parallel(*sim.device, sim_options(), code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_TRUE(out.find("Selecting test of NiteFury_dma_stream_loopback design PCI device 0000:36:00.0 IOMMU group "
                         "86 H2C channel 0 C2H channel 1\n") != std::string::npos)
        << out;
    EXPECT_TRUE(std::regex_search(out, std::regex("\n  0000:36:00\\.0 0 -> 1 [0-9]+\\.[0-9]{3} Mbytes/sec \\([0-9]+ "
                                                  "bytes in [0-9]+\\.[0-9]{6} secs\\)\n")))
        << out;
    EXPECT_TRUE(out.find("0000:36:00.0 0 -> 1 Test pattern verified in ") != std::string::npos) << out;
    EXPECT_TRUE(out.ends_with("Overall PASS\n")) << out;
    EXPECT_FALSE(sim.any_engine_busy());
    // The IP's own count (each channel's performance monitor, F26) agrees with what the row
    // received: every byte the C2H channel wrote, and the H2C channel read at least as many.
    std::smatch row;
    ASSERT_TRUE(std::regex_search(
        out, row, std::regex("Overall test statistics:\n  0000:36:00\\.0 0 -> 1 [0-9.]+ Mbytes/sec \\(([0-9]+) bytes in")))
        << out;
    auto ip_bytes = [&out](const std::string& channel) -> uint64_t {
        std::smatch m;
        const std::regex line("\nIP, every transfer of the run: " + channel + " performance monitor: [0-9]+ cycles, "
                              "[0-9]+ data beats \\(duty cycle [0-9.]+\\): ([0-9]+) bytes at [0-9]+ bytes a beat\n");
        return std::regex_search(out, m, line) ? std::stoull(m[1]) : 0;
    };
    EXPECT_EQ(ip_bytes("C2H 1"), std::stoull(row[1])) << out;
    EXPECT_GE(ip_bytes("H2C 0"), std::stoull(row[1])) << out;
}

TEST(StreamToolsSim, StopDrainsAndLeavesEveryEngineIdle) {
    SimDesign sim("XCKU5P_DUAL_QSFP_dma_stream_loopback", 1);
    std::atomic<bool> stop{false};
    StreamRunOptions options = sim_options();
    options.test.duration.reset();
    options.test.stop = &stop;
    bool flowed = false;
    std::thread stopper([&] {  // stop (as Ctrl-C) once C2H 0 has completed descriptors: data flowed
        flowed = sim.wait_for_descriptors(sim::XdmaDirection::C2H, 0, 32);
        stop = true;
    });
    int code = -1;
    const std::string printed = test_output::printed_by(
        [&](std::FILE* out) { code = stream_tools::run_parallel_streams({sim.device.get()}, {}, options, out); });
    stopper.join();
    EXPECT_TRUE(flowed) << printed;
    EXPECT_EQ(code, 0) << printed;
    EXPECT_TRUE(printed.find("Overall test statistics:\n") != std::string::npos) << printed;
    for (const char* label : {"0000:2d:00.0 0 -> 1", "0000:2d:00.0 1 -> 0", "0000:2d:00.0 2 -> 3", "0000:2d:00.0 3 -> 2"})
        EXPECT_TRUE(printed.find(std::string(label) + " Test pattern verified in ") != std::string::npos) << printed;
    EXPECT_FALSE(sim.any_engine_busy());
}

TEST(SwitchRoutingSim, UpdateWritesCommitsAndReadsBack) {
    auto registry = designs::Registry::builtin();
    ASSERT_TRUE(registry.ok());
    const designs::Design* design = registry->find("TOSING_160T_dma_stream_loopback");
    ASSERT_NE(design, nullptr);
    auto instance = sim::instantiate_design(*design, sim::simulated_identity(*design, sim::simulated_address(0), 41));
    ASSERT_TRUE(instance.ok());
    auto switch_block = instance->axi_switch;
    ASSERT_NE(switch_block, nullptr);
    auto identified = identify::identify_device(*instance->device, *design);
    ASSERT_TRUE(identified.ok());
    identified->device = std::move(instance->device);
    const adapters::SwitchRoutes straight{0u, 1u};
    auto update = adapters::update_switch_routes(*identified, straight, false);
    ASSERT_TRUE(update.ok()) << update.error().message();
    EXPECT_EQ(update->line, "Device 0000:15:00.0 design TOSING_160T_dma_stream_loopback routes updated");
    EXPECT_EQ(switch_block->committed_routes(), straight);
    const unsigned commits = switch_block->commits();
    update = adapters::update_switch_routes(*identified, straight, false);
    EXPECT_EQ(update->line, "Device 0000:15:00.0 design TOSING_160T_dma_stream_loopback routes unchanged");
    EXPECT_EQ(switch_block->commits(), commits);
    update = adapters::update_switch_routes(*identified, straight, true);
    EXPECT_EQ(update->line, "Device 0000:15:00.0 design TOSING_160T_dma_stream_loopback routes update forced");
    EXPECT_EQ(switch_block->commits(), commits + 1);
    const adapters::SwitchRoutes one_off{std::nullopt, 0u};
    ASSERT_TRUE(adapters::update_switch_routes(*identified, one_off, false).ok());
    EXPECT_EQ(switch_block->committed_routes(), one_off);
    EXPECT_EQ(adapters::describe_routes(one_off), "master 1 <- slave 0");
}

struct MemoryDesign {
    MemoryDesign() : registry(*designs::Registry::builtin()) {
        auto simulated = test_designs::identify_simulated(registry, "XCKU5P_DUAL_QSFP_dma_ram");
        xdma = simulated.xdma;
        designs.push_back(std::move(simulated.identified));
    }
    std::string run(const std::string& test, int& code) {
        stream_tools::DmaBridgeTestOptions options;
        options.enabled = {test};
        options.memory.min_words = 0x100000;
        options.memory.max_buffer_size = 0x80000;
        options.memory.transfer_length = 0x60000;
        options.memory.timeout = 1s;
        return test_output::printed_by(
            [&](std::FILE* out) { code = stream_tools::run_test_dma_bridge(designs, options, out); });
    }
    // Runs `test` with `fault` injected on channel 0 of `direction`: what it printed.
    std::string run_with_fault(const std::string& test, sim::XdmaDirection direction, sim::XdmaFault fault, int& code) {
        xdma->inject(direction, 0, fault);
        return run(test, code);
    }
    designs::Registry registry;
    std::shared_ptr<sim::XdmaModel> xdma;
    std::vector<identify::IdentifiedDesign> designs;
};

TEST(TestDmaBridgeSim, EveryMemoryTestPassesOnTheModel) {
    for (const char* test : {"memory_fixed_buffers", "memory_variable_transfers", "memory_host_chunks",
                             "memory_addressing"}) {
        MemoryDesign design;
        int code = -1;
        const std::string out = design.run(test, code);
        EXPECT_EQ(code, 0) << test << "\n" << out;
        EXPECT_TRUE(out.starts_with("Testing XCKU5P_DUAL_QSFP_dma_ram design with memory base address 0x0 size 0x200000\n"
                                    "PCI device 0000:15:00.0 IOMMU group 41\n"))
            << out;
        EXPECT_TRUE(out.find("TEST PASS\nVerified totals:\n0000:15:00.0 XCKU5P_DUAL_QSFP_dma_ram " + std::string(test) +
                             " H2C channel 0 C2H channel 0: ") != std::string::npos)
            << out;
        EXPECT_TRUE(out.ends_with(" bytes verified in 1 tests, 0 failed\n\nOverall PASS\n")) << out;
        EXPECT_FALSE(design.xdma->busy(sim::XdmaDirection::H2C, 0));
        EXPECT_FALSE(design.xdma->busy(sim::XdmaDirection::C2H, 0));
    }
}

TEST(TestDmaBridgeSim, DataErrorFailsWithCardAddress) {
    MemoryDesign design;
    int code = -1;
    const std::string out =
        design.run_with_fault("memory_fixed_buffers", sim::XdmaDirection::C2H, sim::XdmaFault::DataBitFlip, code);
    EXPECT_TRUE(test_output::failed_naming(code, out,
                                           "TEST FAIL:\n  C2H failure : pass 0: card address 0x[0-9a-f]+ \\(host buffer "
                                           "offset 0x[0-9a-f]+; byte 0x[0-9a-f]+ of the C2H transfer of 0x[0-9a-f]+ "
                                           "bytes at card address 0x[0-9a-f]+\\) first bad word at pattern offset "
                                           "0x[0-9a-f]+: expected 0x[0-9a-f]{8} actual 0x[0-9a-f]{8}, 1 bad words\n"));
}

TEST(TestDmaBridgeSim, EngineStallTimesOut) {
    MemoryDesign design;
    int code = -1;
    const std::string out =
        design.run_with_fault("memory_host_chunks", sim::XdmaDirection::H2C, sim::XdmaFault::EngineStall, code);
    EXPECT_EQ(code, 1) << out;
    EXPECT_TRUE(out.find("TEST FAIL:\n  H2C failure : memory-mapped DMA 0000:15:00.0 H2C 0: Connection timed out")
                != std::string::npos) << out;
    EXPECT_FALSE(design.xdma->busy(sim::XdmaDirection::H2C, 0));
}

// test_dma_bridge's stream sub-tests on the simulated NiteFury loopback (H2C 0 -> C2H 1).
struct StreamDesign {
    StreamDesign() : registry(*designs::Registry::builtin()) {
        const designs::Design* design = registry.find("NiteFury_dma_stream_loopback");
        auto instance = sim::instantiate_design(*design, sim::simulated_identity(*design, sim::simulated_address(0), 41));
        EXPECT_TRUE(instance.ok());
        xdma = instance->xdma;
        device = std::move(instance->device);
        EXPECT_TRUE(device->enable_bus_master().ok());
        options.h2c_mapping = 0x40000;
        options.c2h_mapping = 0x40000;
        options.h2c_buffers = options.c2h_buffers = 16;
        options.h2c_transfer = 0x5000;
        options.c2h_transfer = 0x1800;
        options.min_bytes = 0x100000;
        options.c2h_channel = 1;
        options.dma_bar = design->dma_bridge->bar;
        options.timeout = 500ms;
    }
    std::string run(subtest_runs::Subtest test, stream_tools::MemoryTestResult& result) {
        return test_output::printed_by([&](std::FILE* out) { result = test(*device, options, out); });
    }
    designs::Registry registry;
    std::shared_ptr<sim::XdmaModel> xdma;
    std::unique_ptr<vfio::Device> device;
    stream_tools::StreamSubtestOptions options;
};

TEST(StreamSubtestsSim, BothPassAndCountTheBytes) {
    for (const subtest_runs::Subtest test : subtest_runs::kSubtests) {
        StreamDesign design;
        stream_tools::MemoryTestResult result;
        const std::string out = design.run(test, result);
        EXPECT_TRUE(result.passed) << out;
        EXPECT_EQ(result.bytes_verified, 0x100000u) << out;
        EXPECT_TRUE(out.ends_with("Test pattern verified in 262144 words\nTEST PASS\n")) << out;
        EXPECT_TRUE(design.xdma->violations().empty());
        EXPECT_FALSE(design.xdma->busy(sim::XdmaDirection::C2H, 1));
    }
}

TEST(StreamSubtestsSim, DataErrorFails) {
    for (const subtest_runs::Run& run :
         subtest_runs::each_failing_with<StreamDesign>(sim::XdmaDirection::H2C, sim::XdmaFault::DataBitFlip))
        EXPECT_TRUE(std::regex_search(run.out, std::regex("TEST FAIL:\n  C2H failure : .*stream byte offset "
                                                          "0x[0-9a-f]+: first bad word .* 1 bad words")))
            << run.out;
}

TEST(StreamSubtestsSim, StalledEngineTimesOut) {
    for (const subtest_runs::Run& run :
         subtest_runs::each_failing_with<StreamDesign>(sim::XdmaDirection::H2C, sim::XdmaFault::EngineStall))
        EXPECT_TRUE(run.out.find("Timeout: no C2H completion for 500 ms") != std::string::npos) << run.out;
}

TEST(StreamSubtestsSim, ContinuousRingSmallerThanAPacketFails) {
    StreamDesign design;
    design.options.c2h_buffers = 1;
    design.options.c2h_mapping = 0x800;
    subtest_runs::expect_fails_ending(design, stream_tools::stream_fixed_buffers_c2h_continuous,
                                      "TEST FAIL:\n  C2H failure : the C2H ring (0x800 bytes) cannot hold one H2C "
                                      "buffer\n");
}

// --a32: with every IOVA below 4 GiB taken, a 32-bit DMA mask cannot be met (the buffers and the
// descriptor rings ask for it), while a 64-bit mask is served above 4 GiB.
TEST(A32Sim, BuffersAndRingsHonourA32BitDmaMask) {
    for (const unsigned bits : {32u, 64u}) {
        MemoryDesign design;
        auto low = design.designs[0].device->iova_allocator().allocate((uint64_t{1} << 32) - 0x10000, 64);
        ASSERT_TRUE(low.ok());
        ASSERT_EQ(*low, 0x10000u);
        stream_tools::DmaBridgeTestOptions options;
        options.enabled = {"memory_host_chunks"};
        options.memory.min_words = 0x1000;
        options.memory.dma_mask_bits = bits;
        int code = -1;
        const std::string printed = test_output::printed_by(
            [&](std::FILE* out) { code = stream_tools::run_test_dma_bridge(design.designs, options, out); });
        EXPECT_EQ(code, bits == 32 ? 1 : 0) << printed;
        EXPECT_EQ(printed.find("(32-bit DMA mask) is large enough") != std::string::npos, bits == 32) << printed;

        StreamDesign stream;
        ASSERT_TRUE(stream.device->iova_allocator().allocate((uint64_t{1} << 32) - 0x10000, 64).ok());
        stream.options.dma_mask_bits = bits;
        stream_tools::MemoryTestResult result;
        const std::string sub = stream.run(stream_tools::stream_variable_transfers, result);
        EXPECT_EQ(result.passed, bits == 64) << sub;
    }
}

TEST(DescriptorCreditsSim, CreditRegisterBehavesAsPg195) {
    MemoryDesign design;
    auto& device = *design.designs[0].device;
    EXPECT_TRUE(stream_tools::credit_register_test(device, design.designs[0].dma_bridge->bar).ok());
    EXPECT_TRUE(design.xdma->violations().empty());
    EXPECT_FALSE(design.xdma->busy(sim::XdmaDirection::H2C, 0));
}

TEST(DescriptorCreditsSim, DataErrorFailsWithExitOne) {
    MemoryDesign design;
    design.xdma->inject(sim::XdmaDirection::H2C, 0, sim::XdmaFault::DataBitFlip);
    int code = -1;
    const std::string printed = test_output::printed_by([&](std::FILE* out) {
        code = stream_tools::run_descriptor_credits(design.designs, stream_tools::CreditsOptions{}, out);
    });
    EXPECT_TRUE(test_output::failed_naming(code, printed,
                                           "0000:15:00\\.0 verify card memory 0000:15:00\\.0: Input/output error "
                                           "\\(first bad word at pattern offset 0x[0-9a-f]+: .*, 1 bad words\\)\nTest: "
                                           "FAIL\n"));
}

TEST(SwitchRouting, Policy) {
    using adapters::decide_routing;
    using adapters::SwitchRoutes;
    const SwitchRoutes off{std::nullopt, std::nullopt}, defaults{1u, 0u}, straight{0u, 1u};
    // After a VFIO reset every port is off: the defaults are written.
    auto d = decide_routing(off, defaults, std::nullopt, false);
    EXPECT_TRUE(d.write);
    EXPECT_EQ(d.routes, defaults);
    // Routing already set up (by the switch tool) is adopted unchanged.
    d = decide_routing(straight, defaults, std::nullopt, false);
    EXPECT_FALSE(d.write);
    EXPECT_EQ(d.routes, straight);
    // Command-line routing is applied when it differs; unlisted masters are disabled.
    d = decide_routing(straight, defaults, std::vector<tool_support::SwitchRoute>{{1, 0}}, false);
    EXPECT_TRUE(d.write);
    EXPECT_EQ(d.routes, (SwitchRoutes{std::nullopt, 0u}));
    d = decide_routing(straight, defaults, std::vector<tool_support::SwitchRoute>{{0, 0}, {1, 1}}, false);
    EXPECT_FALSE(d.write);
    EXPECT_EQ(adapters::loop_routes(defaults, 2, 2),
              (std::vector<streams::LoopRoute>{{0, 1}, {1, 0}}));
    EXPECT_EQ(adapters::loop_routes(SwitchRoutes{std::nullopt, 3u}, 2, 2), std::vector<streams::LoopRoute>{});
}

struct ModelFault {
    sim::XdmaDirection direction;
    unsigned channel;
    sim::XdmaFault fault;
    const char* failing_channel;  // regex for the channel named
    const char* message;          // regex for the message
};

class StreamToolsSimFault : public ::testing::TestWithParam<ModelFault> {};

TEST_P(StreamToolsSimFault, OverallFailNamesChannelAndOffset) {
    const ModelFault f = GetParam();
    SimDesign sim("NiteFury_dma_stream_loopback", 2);
    bool flowing = false;
    std::thread injector([&] {  // while data is flowing: once the channel has completed descriptors
        flowing = sim.wait_for_descriptors(f.direction, f.channel, 8);
        sim.xdma->inject(f.direction, f.channel, f.fault);
    });
    StreamRunOptions options = sim_options();
    options.test.duration = 5s;  // the fault must end the run
    int code = -1;
    const std::string out = run_parallel(*sim.device, options, code);
    injector.join();
    EXPECT_TRUE(flowing) << out;
    const std::string expected = std::string("\n0000:36:00\\.0 0 -> 1 Test FAILED: ") + f.failing_channel + " " + f.message;
    EXPECT_TRUE(test_output::failed_naming(code, out, expected));
    EXPECT_EQ(out.find("PASS"), std::string::npos) << out;
    if (std::getenv("PDT_SHOW_OUTPUT"))
        std::fprintf(stderr, "%s", out.c_str());
    EXPECT_FALSE(sim.any_engine_busy());
}

constexpr const char* DATA_ERROR =
    "transfer [0-9]+: data error in buffer [0-9]+ at buffer offset 0x[0-9a-f]+, stream offset 0x[0-9a-f]+: expected "
    "0x[0-9a-f]{8} actual 0x[0-9a-f]{8}, [0-9]+ bad words";

INSTANTIATE_TEST_SUITE_P(
    ModelFaults, StreamToolsSimFault,
    ::testing::Values(
        ModelFault{sim::XdmaDirection::H2C, 0, sim::XdmaFault::DataBitFlip, "0000:36:00\\.0 C2H 1", DATA_ERROR},
        ModelFault{sim::XdmaDirection::C2H, 1, sim::XdmaFault::DataBitFlip, "0000:36:00\\.0 C2H 1", DATA_ERROR},
        ModelFault{sim::XdmaDirection::H2C, 0, sim::XdmaFault::DropPacket, "0000:36:00\\.0 C2H 1", DATA_ERROR},
        ModelFault{sim::XdmaDirection::H2C, 0, sim::XdmaFault::DuplicatePacket, "0000:36:00\\.0 C2H 1", DATA_ERROR},
        ModelFault{sim::XdmaDirection::H2C, 0, sim::XdmaFault::ReorderPacket, "0000:36:00\\.0 C2H 1", DATA_ERROR},
        ModelFault{sim::XdmaDirection::C2H, 1, sim::XdmaFault::ShortC2hLength, "0000:36:00\\.0 C2H 1",
                   "transfer [0-9]+: C2H completion length [0-9]+ EOP 1, expected length [0-9]+"},
        ModelFault{sim::XdmaDirection::H2C, 0, sim::XdmaFault::EngineStall, "0000:36:00\\.0 (H2C 0|C2H 1)",
                   "timeout: no (H2C|C2H) completion for 0\\.500 secs"},
        ModelFault{sim::XdmaDirection::C2H, 1, sim::XdmaFault::EngineStall, "0000:36:00\\.0 (H2C 0|C2H 1)",
                   "timeout: no (H2C|C2H) completion for 0\\.500 secs"},
        ModelFault{sim::XdmaDirection::H2C, 0, sim::XdmaFault::DescriptorReadError, "0000:36:00\\.0 H2C 0", "wait: "},
        ModelFault{sim::XdmaDirection::C2H, 1, sim::XdmaFault::BadMagic, "0000:36:00\\.0 C2H 1", "wait: "}),
    [](const auto& info) {
        std::string name = std::string(info.param.direction == sim::XdmaDirection::H2C ? "H2C_" : "C2H_") +
                           sim::to_string(info.param.fault);
        for (char& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)))
                c = '_';
        return name;
    });

}  // namespace
