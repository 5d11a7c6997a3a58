// cmac_configuration and cmac_link_control run as processes on the simulated designs with CMAC
// ports: fpga_sio's lines (field dumps, changes, the register sample and its actions), what they
// set read back, a link that never aligns (PDT_SIM_FAULT=cmac_never_aligns, test only) named
// with its cause, and bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>


#include "cmac_tool_run.hpp"

namespace {

using cmac_tool_run::kDevice;
using cmac_tool_run::run;
using test_support::contains;

const std::string kDuplex = "Design U200_100G_ether_duplex device " + kDevice;

TEST(CmacConfigurationTool, ShowsEveryFieldOfEveryPortWhenNothingElseIsAsked) {
    const auto r = run(CMAC_CONFIGURATION, "--sim_design U200_100G_ether_duplex");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    for (const char* port : {" port 0:", " port 1:"}) {
        const std::vector<std::string> expected = {
            kDuplex + port,       "  tx_enable=0",       "  tx_send_lfi=0",     "  tx_send_rfi=0",
            "  tx_send_idle=0",   "  tx_test_pattern=0", "  rx_enable=0",       "  rx_force_resync=0",
            "  rx_test_pattern=0", "  rx_rsfec_enable=0", "  tx_rsfec_enable=0", "  gt_loopback=0"};
        EXPECT_EQ(cmac_tool_run::block(r.output, kDuplex + port, expected.size()), expected) << r.output;
    }
}

TEST(CmacConfigurationTool, SetsFieldsEachReadBackThenDumps) {
    const auto r = run(CMAC_CONFIGURATION,
                       "--sim_design U200_100G_ether_duplex --port 1 tx_enable=1 gt_loopback=0x1 tx_send_rfi=0 --dump");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const auto lines = cmac_tool_run::lines_of(r.output);
    ASSERT_GE(lines.size(), 3u) << r.output;
    EXPECT_EQ(lines[0], kDuplex + " port 1 field tx_enable changed from 0 -> 1");
    EXPECT_EQ(lines[1], kDuplex + " port 1 field tx_send_rfi value unchanged at value 0");
    EXPECT_EQ(lines[2], kDuplex + " port 1 field gt_loopback changed from 0 -> 1");
    const auto dump = cmac_tool_run::block(r.output, kDuplex + " port 1:", 12);
    ASSERT_EQ(dump.size(), 12u) << r.output;
    EXPECT_EQ(dump[1], "  tx_enable=1");
    EXPECT_EQ(dump[11], "  gt_loopback=1");
    EXPECT_FALSE(contains(r.output, " port 0")) << "--port 1 names one port: " << r.output;
}

TEST(CmacConfigurationTool, AFieldThePortLacksIsNamedAndTheResetIsShown) {
    const auto r = run(CMAC_CONFIGURATION, "--sim_design U200_100G_ether_simplex_tx --port 0 rx_enable=1 --reset --dump");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const std::string port = "U200_100G_ether_simplex_tx device " + kDevice + " port 0";
    EXPECT_EQ(cmac_tool_run::lines_of(r.output),
              (std::vector<std::string>{"Unable to modify rx_enable as required CMAC features not present",
                                        "Reset design " + port, "Design " + port + ":", "  tx_enable=0", "  tx_send_lfi=0",
                                        "  tx_send_rfi=0", "  tx_send_idle=0", "  tx_test_pattern=0",
                                        "  rx_rsfec_enable=0", "  tx_rsfec_enable=0", "  gt_loopback=0"}))
        << r.output;
}

TEST(CmacConfigurationTool, JsonDocument) {
    const auto r = run(CMAC_CONFIGURATION, "--sim_design open-nic --port 0 rx_enable=1 --dump --json");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const auto doc = nlohmann::json::parse(r.output);
    ASSERT_EQ(doc["ports"].size(), 1u);
    EXPECT_EQ(doc["ports"][0]["design"], "open-nic");
    EXPECT_EQ(doc["ports"][0]["changes"][0]["field"], "rx_enable");
    EXPECT_EQ(doc["ports"][0]["changes"][0]["to"], 1);
    EXPECT_EQ(doc["ports"][0]["fields"]["rx_enable"], 1);
    EXPECT_EQ(doc["ports"][0]["reset"], false);
}

// A bad field or port changes nothing: the tool fails before it reads or writes a port, so it
// prints no port's lines. (Each one's message and exit code: the bad-input matrix, in
// tool_support/tests/bad_input_matrix_test.cpp.)
TEST(CmacConfigurationTool, BadInputChangesNothing) {
    for (const std::string args : {"bogus=1", "tx_enable=2", "tx_enable=1 tx_enable=0", "tx_enable", "tx_enable=on",
                                   "ctl_rx_max_packet_len=9600", "--port 2"}) {
        const auto r = run(CMAC_CONFIGURATION, "--sim_design U200_100G_ether_duplex " + args);
        EXPECT_NE(r.exit_code, 0) << args << ": " << r.output << r.err;
        EXPECT_TRUE(cmac_tool_run::lines_of(r.output).empty()) << args << ": " << r.output;
    }
}

// fpga_sio's sample of a port's registers, as the simulated CMAC reads with these fields set.
std::vector<std::string> sample(bool rx_rsfec, bool tx_rsfec, bool tx, bool rx) {
    const auto bit = [](bool on) { return std::string(on ? "1" : "0"); };
    return {"core_version = 3.1", "gt_reset_all = 0", "usr_rx_serdes_reset = 0", "usr_rx_reset = 0",
            "usr_tx_reset = 0", "switch_core_mode_reg = 0", "configuration_tx_reg1_ctl_tx_enable = " + bit(tx),
            "configuration_tx_reg1_ctl_tx_send_lfi = 0", "configuration_tx_reg1_ctl_tx_send_rfi = 0",
            "configuration_tx_reg1_ctl_tx_send_idle = 0", "configuration_tx_reg1_ctl_tx_test_pattern = 0",
            "core_mode_reg = 1", "configuration_rx_reg1_ctl_rx_enable_mask = " + bit(rx),
            "rsfec_config_enable_ctl_rx_rsfec_enable = " + bit(rx_rsfec),
            "rsfec_config_enable_ctl_tx_rsfec_enable = " + bit(tx_rsfec)};
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(CmacLinkControlTool, BringsEachPortUpAsFpgaSioDoesAndWaitsForAlignment) {
    const auto r = run(CMAC_LINK_CONTROL, "--sim_design U200_100G_ether_duplex --port 0");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const std::string port = kDuplex + " port 0";
    const auto expected = std::vector<std::string>{port + ":"} + sample(false, false, false, false) +
                          std::vector<std::string>{"", "Enabling RX RSFEC"} + sample(true, false, false, false) +
                          std::vector<std::string>{"", "Enabling TX RSFEC"} + sample(true, true, false, false) +
                          std::vector<std::string>{"", "Setting TX_ENABLE"} + sample(true, true, true, false) +
                          std::vector<std::string>{"", "Setting RX_ENABLE"} + sample(true, true, true, true) +
                          std::vector<std::string>{port + ": RX aligned"};
    EXPECT_EQ(cmac_tool_run::lines_of(r.output), expected) << r.output;
    EXPECT_EQ(r.err, "");
}

TEST(CmacLinkControlTool, ALinkThatNeverAlignsIsNamedWithItsCause) {
    const auto r = run(CMAC_LINK_CONTROL, "--sim_design open-nic --align_timeout 0.2", "PDT_SIM_FAULT=cmac_never_aligns");
    EXPECT_EQ(r.exit_code, 1) << r.output << r.err;
    for (const char* port : {" port 0", " port 1"})
        EXPECT_TRUE(contains(r.err, "Error: Design open-nic device " + kDevice + port +
                                        ": wait for CMAC stat_rx_aligned CMAC port"))
            << r.err;
    EXPECT_TRUE(contains(r.err, "not aligned after 200 ms: block lock on every lane, but the alignment markers of "
                                "PCS lanes 0-19 are not synced"))
        << r.err;
    EXPECT_FALSE(contains(r.output, "RX aligned")) << r.output;
}

TEST(CmacLinkControlTool, JsonNamesWhyAPortIsNotAligned) {
    const auto r = run(CMAC_LINK_CONTROL, "--sim_design U200_100G_ether_duplex --port 1 --align_timeout 0.1 --json",
                       "PDT_SIM_FAULT=cmac_never_aligns");
    EXPECT_EQ(r.exit_code, 1) << r.output << r.err;
    const auto doc = nlohmann::json::parse(r.output);
    ASSERT_EQ(doc["ports"].size(), 1u);
    const auto& port = doc["ports"][0];
    EXPECT_EQ(port["port"], 1);
    EXPECT_EQ(port["aligned"], false);
    EXPECT_TRUE(contains(port["why"].get<std::string>(), "are not synced")) << port["why"];
    EXPECT_EQ(port["actions"], nlohmann::json({"Enabling RX RSFEC", "Enabling TX RSFEC", "Setting TX_ENABLE",
                                               "Setting RX_ENABLE"}));
    EXPECT_EQ(port["registers"]["configuration_rx_reg1_ctl_rx_enable_mask"], 1);
    EXPECT_EQ(port["registers"]["core_version"], "3.1");
}

TEST(CmacLinkControlTool, SimplexTxPortHasNothingToAlign) {
    const auto r = run(CMAC_LINK_CONTROL, "--sim_design U200_100G_ether_simplex_tx --port 0");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const std::string port = "Design U200_100G_ether_simplex_tx device " + kDevice + " port 0";
    EXPECT_TRUE(contains(r.output, "\nEnabling TX RSFEC\n")) << r.output;
    EXPECT_TRUE(contains(r.output, "\nSetting TX_ENABLE\n")) << r.output;
    EXPECT_FALSE(contains(r.output, "RX RSFEC")) << r.output;
    EXPECT_FALSE(contains(r.output, "RX_ENABLE")) << r.output;
    EXPECT_TRUE(contains(r.output, port + ": built Simplex TX: no receive side to align\n")) << r.output;
}

TEST(CmacLinkControlTool, DownOnAPortNeverEnabledChangesNothing) {
    const auto r = run(CMAC_LINK_CONTROL, "--sim_design U200_100G_ether_duplex --port 0 --down");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    EXPECT_EQ(cmac_tool_run::lines_of(r.output),
              std::vector<std::string>{kDuplex + " port 0:"} + sample(false, false, false, false));
}

}  // namespace
