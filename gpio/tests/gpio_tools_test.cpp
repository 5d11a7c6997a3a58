// ddr3_reset_control and flash_m2_led run as processes on the simulated designs: fpga_sio's lines,
// the reset's record, the MIG's lies (never calibrating, a reset that does not reach it) and the
// designs without the GPIO failing with their message, and bad command lines.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <unistd.h>

#include "test_support/run_process.hpp"

namespace gpio_tools_test {

namespace {

using test_support::exited_printing;

test_support::Outcome run(const char* tool, const std::string& args) {
    test_support::RunOptions options;
    options.stdin_from_null = true;
    options.timeout = std::chrono::minutes(1);
    return test_support::run_process(tool, test_support::words(args), options);
}

// A design file: TEF1001_dma_ddr3 under another name whose simulated MIG is given `mig`.
std::string lying_design_file(const std::string& name, const std::string& mig) {
    const std::string path = ::testing::TempDir() + "/" + name + "-" + std::to_string(getpid()) + ".json";
    std::ofstream(path) << R"({"name": ")" << name << R"(", "description": "a lying MIG", "match": {"vendor_id": "0x10ee",
  "subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x7777"},
  "peripherals": [{"type": "ddr_reset_gpio", "bar": 0, "offset": "0x6000", "simulated_mig": )"
                        << mig << "}]}\n";
    return path;
}

TEST(Ddr3ResetControlTool, ShowsTheSignalsWithoutAReset) {
    const auto r = run(DDR3_RESET_CONTROL, "--sim_design TEF1001_dma_ddr3");
    EXPECT_TRUE(exited_printing(r, 0, {"Current reset signal state:\nlocked           : 1\nmmcm_locked      : 1\n"
                                       "init_cal_complete: 1\nui_clk_sync_rst  : 0\n"}));
}

TEST(Ddr3ResetControlTool, RecordsAResetUntilTheControllerCalibrates) {
    const auto r = run(DDR3_RESET_CONTROL, "--sim_design NiteFury_dma_ddr3 -r 0.002");
    ASSERT_TRUE(exited_printing(r, 0, {"Applying DDR3 reset...\n Time (secs) clocking_wizard_reset "
                                       "clocking_wizard_locked mmcm_locked init_cal_complete ui_clk_sync_rst_mask\n"}));
    const std::regex row(R"( *\d+\.\d{9} {21}([01]) {22}([01]) {11}([01]) {17}([01]) {20}([01]))");
    std::vector<std::string> rows;
    for (std::sregex_iterator it(r.output.begin(), r.output.end(), row), end; it != end; ++it)
        rows.push_back((*it)[1].str() + (*it)[2].str() + (*it)[3].str() + (*it)[4].str() + (*it)[5].str());
    // Bit 0 first: before, reset held, released, clocks locked, calibrated (a loaded machine may
    // sample past the short middle states).
    const std::vector<std::string> states = {"01110", "10001", "00001", "01100", "01110"};
    ASSERT_GE(rows.size(), 3u) << r.output;
    EXPECT_EQ(rows[0], states[0]);
    EXPECT_EQ(rows[1], states[1]);
    EXPECT_EQ(rows.back(), states[4]);
    size_t state = 0;
    for (const std::string& row : rows) {
        while (state < states.size() && states[state] != row)
            ++state;
        EXPECT_LT(state, states.size()) << "a state out of order\n" << r.output;
    }
    EXPECT_FALSE(test_support::contains(r.output, "didn't complete"));
}

TEST(Ddr3ResetControlTool, AMigThatNeverCalibratesFailsAtTheTimeout) {
    const std::string file = lying_design_file("never_calibrates", R"({"calibrates": false})");
    const auto r = run(DDR3_RESET_CONTROL, "--design_file " + file + " --sim_design never_calibrates -r 0.001 --timeout 0.05");
    EXPECT_TRUE(exited_printing(r, 1, {"Applying DDR3 reset...\nReset didn't complete within timeout - DDR3 may not be usable\n"}));
    std::remove(file.c_str());
}

TEST(Ddr3ResetControlTool, AResetThatNeverReachesTheMigFails) {
    const std::string file = lying_design_file("deaf_mig", R"({"follows_reset": false})");
    const auto r = run(DDR3_RESET_CONTROL, "--design_file " + file + " --sim_design deaf_mig -r 0.001 --timeout 0.05");
    EXPECT_TRUE(exited_printing(r, 1, {"FAIL: mmcm_locked never fell: the reset at bar 0 offset 0x6000 had no effect\n"}));
    std::remove(file.c_str());
}

TEST(Ddr3ResetControlTool, ADesignWithoutTheGpioIsNoDesignToOperateOn) {
    const auto r = run(DDR3_RESET_CONTROL, "--sim_design TEF1001_dma_stream_loopback -r 0.001");
    EXPECT_TRUE(exited_printing(r, 1, {"No DDR reset GPIO found in the designs\n"}));
    EXPECT_FALSE(test_support::contains(r.output, "Applying"));
}

TEST(Ddr3ResetControlTool, ABadResetDurationOrTimeoutIsAUsageError) {
    EXPECT_TRUE(exited_printing(run(DDR3_RESET_CONTROL, "--sim_design TEF1001_dma_ddr3 -r soon"), 2,
                                {"Error: parse option --reset_duration \"soon\""}));
    EXPECT_TRUE(exited_printing(run(DDR3_RESET_CONTROL, "--sim_design TEF1001_dma_ddr3 -r 0.001 --timeout=-1"), 2,
                                {"Error: parse option --timeout \"-1\""}));
}

TEST(Ddr3ResetControlTool, AnUnknownDesignIsAUsageError) {
    const auto r = run(DDR3_RESET_CONTROL, "--sim_design no_such_design -r 0.001");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_FALSE(test_support::contains(r.output, "No DDR reset GPIO")) << r.output;
}

TEST(FlashM2LedTool, FlashesTheLedOfAProject0BoardNamingIt) {
    const auto r = run(FLASH_M2_LED, "--sim_design Nitefury_Project-0 2000");
    EXPECT_TRUE(exited_printing(
        r, 0, {"Testing Nitefury Project-0 board version 0x3 for PCI device 0000:15:00.0 IOMMU group 41\n"}));
}

TEST(FlashM2LedTool, ABoardBeforeVersion3IsLeftAloneAndFails) {
    const std::string path = ::testing::TempDir() + "/old_fury-" + std::to_string(getpid()) + ".json";
    std::ofstream(path) << R"({"name": "old_fury", "description": "a version 2 board", "match": {"vendor_id": "0x10ee",
  "subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x7778"}, "version_register": {"bar": 0, "offset": "0x8"},
  "peripherals": [{"type": "m2_led_gpio", "bar": 0, "offset": "0x2000"}],
  "simulation": {"registers": [{"bar": 0, "offset": "0x8", "value": "0x2"}]}})"
                        << "\n";
    const auto r = run(FLASH_M2_LED, "--design_file " + path + " --sim_design old_fury 10");
    EXPECT_TRUE(exited_printing(r, 1, {"Board version 0x2 doesn't support correct M2 LED signal drive\n"}));
    EXPECT_FALSE(test_support::contains(r.output, "Testing"));
    std::remove(path.c_str());
}

TEST(FlashM2LedTool, NoProject0BoardIsNoDesignToOperateOn) {
    const auto r = run(FLASH_M2_LED, "--sim_design TEF1001_dma_ddr3 10");
    EXPECT_TRUE(exited_printing(r, 1, {"No M.2 LED GPIO found in the designs\n"}));
}

TEST(FlashM2LedTool, TheOnTimeIsRequiredAndANumber) {
    EXPECT_TRUE(exited_printing(run(FLASH_M2_LED, "--sim_design Nitefury_Project-0"), 2,
                                {"Error: expected one <led_on_time_us> (got 0)"}));
    EXPECT_TRUE(exited_printing(run(FLASH_M2_LED, "--sim_design Nitefury_Project-0 long"), 2,
                                {"Error: parse option --led_on_time_us \"long\""}));
}

}  // namespace

}  // namespace gpio_tools_test
