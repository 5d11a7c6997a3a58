// measure_ddr_throughput run as a process: on TEF1001_ddr3_throughput as fpga_sio builds it (its
// three measurements in fpga_sio's lines, then FAIL: nothing can be verified there), on the
// looped-back variant with the DDR in BAR 2 (docs/examples/TEF1001_ddr3_throughput_loopback.json:
// PASS with every byte verified), FAIL on each lie of the model and on a channel that never
// halts, the JSON document, and bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "test_support/run_process.hpp"
#include "test_support/text.hpp"

namespace {

using test_support::contains;
using test_support::exited_printing;

const std::string kLoopbackDesign =
    std::string("--design_file ") + LOOPBACK_DESIGN_FILE + " --sim_design TEF1001_ddr3_throughput_loopback";
const std::string kLoopback = kLoopbackDesign + " --memory_size 256KiB";

test_support::Outcome run(const std::string& args, const std::string& environment = "",
                          test_support::Stderr stderr_to = test_support::Stderr::with_stdout) {
    test_support::RunOptions options;
    options.stderr_to = stderr_to;
    options.stdin_from_null = true;
    options.environment = test_support::words(environment);
    options.timeout = std::chrono::minutes(1);
    return test_support::run_process(MEASURE_DDR_THROUGHPUT, test_support::words(args), options);
}

TEST(MeasureDdrThroughputTool, FpgaSiosDesignIsTimedAsFpgaSioDoesAndFailsWithNothingVerified) {
    const auto r = run("--sim_design TEF1001_ddr3_throughput");
    EXPECT_TRUE(exited_printing(
        r, 1,
        {"Testing DDR throughput of device 0000:15:00.0\n",
         "Direction MM2S : MM2S timing for 1 transfers of 8589934592 bytes:\n  Mean = ",
         "Direction S2MM : Not tested\n\nDirection MM2S : Not tested\n"
         "Direction S2MM : DMA failed with DMASR=0x00005011 at start_address=0x0\n\n",
         "Direction S2MM : DMA failed with DMASR=0x00005011 at start_address=0x0\n\nFAIL: 0 bytes verified: in this "
         "design the DDR3 is not reachable from the host and the streams are a constant source and a discarding sink\n"}));
    EXPECT_FALSE(contains(r.output, "PASS")) << r.output;
}

TEST(MeasureDdrThroughputTool, TheLoopedBackVariantVerifiesEveryByteBothWays) {
    const auto r = run(kLoopback);
    EXPECT_TRUE(exited_printing(r, 0,
                                {"Testing DDR throughput of device 0000:15:00.0\n",
                                 "Direction MM2S : MM2S timing for 2 transfers of 131072 bytes:\n   Min = ",
                                 "Direction S2MM : S2MM timing for 2 transfers of 131072 bytes:\n   Min = ",
                                 "262144 of 262144 bytes verified (the first 0x40000 bytes of the card memory",
                                 "PASS: 262144 bytes verified\n"}));
}

TEST(MeasureDdrThroughputTool, EachLieOfTheModelFails) {
    struct Case {
        const char* lie;
        const char* verified;  // before the first chunk that failed
        const char* failure;
    };
    // stale_after=1: pass 1's S2MM transfer (the first counted) moves, pass 2's does not.
    for (const Case& c : {Case{"moves_nothing", "0 of 262144", "to 0x20000 (read back"},
                          Case{"completes_early", "0 of 262144", "to 0x20000 (read back"},
                          Case{"stale_after=1", "131072 of 262144", "to 0x0 (read back"}}) {
        const auto r = run(kLoopback, std::string("PDT_SIM_FAULT=") + c.lie);
        EXPECT_TRUE(exited_printing(r, 1, {std::string(c.verified) + " bytes verified",
                                           std::string("FAIL: verify S2MM transfer of 0x20000 bytes ") + c.failure,
                                           "Input/output error (first bad word at chunk offset 0x"}))
            << c.lie;
        EXPECT_FALSE(contains(r.output, "PASS")) << c.lie << ": " << r.output;
    }
}

TEST(MeasureDdrThroughputTool, AChannelThatNeverHaltsFailsNamingDmasrHalted) {
    const auto r = run(kLoopback + " --transfer_timeout 0.05", "PDT_SIM_FAULT=ignores_stop");
    EXPECT_TRUE(exited_printing(r, 1, {"262144 of 262144 bytes verified",
                                       "FAIL: stop MM2S 0000:15:00.0 bar 0 offset 0x2000 MM2S_DMASR: Connection timed "
                                       "out (DMASR.Halted not set within 50 ms of clearing DMACR.RS (DMASR 0x00001000 "
                                       "(IOC_Irq)): the channel may still be moving data)"}));
}

TEST(MeasureDdrThroughputTool, JsonDocumentCarriesTheVerdictAndTheBytes) {
    const auto r = run(kLoopback + " --json", "", test_support::Stderr::separate);
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const auto document = nlohmann::json::parse(r.output);
    ASSERT_EQ(document["axi_dmas"].size(), 1u) << r.output;
    const auto& dma = document["axi_dmas"][0];
    EXPECT_EQ(dma["verdict"], "PASS");
    EXPECT_EQ(dma["bytes_verified"], 262144);
    EXPECT_EQ(dma["design"], "TEF1001_ddr3_throughput_loopback");
    EXPECT_TRUE(dma["reason"].is_null());
    EXPECT_TRUE(contains(r.err, "PASS: 262144 bytes verified")) << r.err;

    const auto fpga_sio = run("--sim_design TEF1001_ddr3_throughput --memory_size 4096 --json", "",
                              test_support::Stderr::separate);
    ASSERT_EQ(fpga_sio.exit_code, 1) << fpga_sio.output << fpga_sio.err;
    const auto failed = nlohmann::json::parse(fpga_sio.output)["axi_dmas"][0];
    EXPECT_EQ(failed["verdict"], "FAIL");
    EXPECT_EQ(failed["bytes_verified"], 0);
    EXPECT_TRUE(contains(failed["reason"].get<std::string>(), "0 bytes verified: in this design")) << fpga_sio.output;
}

// A design file of the loopback example with `streams` and `window` changed; its path.
std::string variant_file(const std::string& streams, bool window) {
    const std::string path = testing::TempDir() + "/axi_dma_variant_" + streams + (window ? "_window" : "") + ".json";
    std::ofstream(path) << R"({"name": "variant", "match": {"subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x0015"},
        "peripherals": [{"type": "axi_dma", "bar": 0, "offset": "0x2000", "memory_size": "0x40000", "streams": ")"
                        << streams << "\"" << (window ? ", \"memory_window_bar\": 2" : "") << "}]}";
    return path;
}

TEST(MeasureDdrThroughputTool, AVariantWithOneChangeOnlyStillVerifiesNothing) {
    const auto looped = run("--design_file " + variant_file("loopback", false) + " --sim_design variant");
    EXPECT_TRUE(exited_printing(looped, 1, {"FAIL: 0 bytes verified: in this design the DDR3 is not reachable from the host\n"}));
    EXPECT_FALSE(contains(looped.output, "Direction")) << "looped back, MM2S or S2MM alone never ends: " << looped.output;
    const auto window = run("--design_file " + variant_file("fixed_data_and_sink", true) + " --sim_design variant");
    EXPECT_TRUE(exited_printing(window, 1,
                                {"Direction S2MM : DMA failed with DMASR=0x00005011 at start_address=0x0\n",
                                 "FAIL: 0 bytes verified: in this design the streams are a constant source and a "
                                 "discarding sink\n"}));
}

TEST(MeasureDdrThroughputTool, BadInputIsRefused) {
    EXPECT_TRUE(exited_printing(run("--sim_design TEF1001_ddr3_throughput --memory_size 0"), 2,
                                {"Error: parse option --memory_size \"0\": at least one byte"}));
    EXPECT_TRUE(exited_printing(run(kLoopbackDesign + " --memory_size 192"), 1,
                                {"FAIL: --memory_size 192: the verified measurement takes a multiple of 128 bytes"}));
    EXPECT_TRUE(exited_printing(run("--sim_design TEF1001_ddr3_throughput --memory_size 16GiB"), 1,
                                {"FAIL: --memory_size 17179869184: the AXI DMA at 0000:15:00.0 bar 0 offset 0x2000 "
                                 "reaches 0x200000000 bytes"}));
    EXPECT_TRUE(exited_printing(run("--sim_design TEF1001_dma_ddr3"), 1, {"No AXI DMA designs to measure"}));
}

}  // namespace
