// The CMS model against PG348 (Register Space, Table 2 the REG_MAP, Resets), and its place in
// the simulated U200 designs.
#include <gtest/gtest.h>

#include <atomic>

#include "sim/cms_model.hpp"
#include "builtin_instance.hpp"
#include "sim/design_sim.hpp"

namespace {

using sim::CmsModel;

constexpr uint64_t kRegMap = CmsModel::REG_MAP;
// Table 2 sensor words (MAX at +0, AVG +4, INS +8).
constexpr uint64_t k12vPexMax = kRegMap + 0x0020;
constexpr uint64_t k12vPexIIn = kRegMap + 0x00C8;
constexpr uint64_t kFpgaTemp = kRegMap + 0x00F8;
constexpr uint64_t kSe98Temp0 = kRegMap + 0x0140;
constexpr uint64_t kHbmTemp1 = kRegMap + 0x0260;  // a U280/U50/U55 sensor, not a U200's

struct Rig {
    double now = 100.0;
    std::shared_ptr<std::atomic<uint64_t>> dma = std::make_shared<std::atomic<uint64_t>>(0);
    std::shared_ptr<sim::DieThermal> die;
    std::unique_ptr<CmsModel> cms;

    explicit Rig(const char* curve = "40", std::chrono::milliseconds boot = std::chrono::milliseconds(50)) {
        die = std::make_shared<sim::DieThermal>(sim::TemperatureCurve::parse(curve).value(), dma,
                                                [this] { return now; });
        cms = std::make_unique<CmsModel>(die, CmsModel::Config{boot, [this] { return now; }});
    }
    uint32_t read(uint64_t offset) { return static_cast<uint32_t>(cms->read(offset, 4)); }
    void write(uint64_t offset, uint32_t value) { cms->write(offset, 4, value); }
    void start() {
        write(CmsModel::MB_RESETN_REG, 1);
        now += 0.1;  // past the 50 ms boot
    }
};

TEST(CmsModel, HoldsTheMicroBlazeInResetAfterPowerUp) {
    Rig rig;
    EXPECT_EQ(rig.read(CmsModel::MB_RESETN_REG), 0u) << "PG348 Resets: MB_RESETN_REG is 0 after power-up";
    EXPECT_EQ(rig.read(kRegMap + CmsModel::HOST_STATUS2_REG), 0u);
    EXPECT_EQ(rig.read(kRegMap + CmsModel::REG_MAP_ID_REG), 0u) << "no firmware, no REG_MAP";
    rig.now += 10;
    EXPECT_EQ(rig.read(kRegMap + CmsModel::HOST_STATUS2_REG), 0u) << "never ready while held in reset";
}

TEST(CmsModel, RegMapBecomesReadyAfterTheBootDelay) {
    Rig rig;
    rig.write(CmsModel::MB_RESETN_REG, 1);
    EXPECT_EQ(rig.read(CmsModel::MB_RESETN_REG), 1u);
    rig.now += 0.049;
    EXPECT_EQ(rig.read(kRegMap + CmsModel::HOST_STATUS2_REG) & 1u, 0u);
    rig.now += 0.002;
    EXPECT_EQ(rig.read(kRegMap + CmsModel::HOST_STATUS2_REG) & 1u, 1u);
    EXPECT_EQ(rig.read(kRegMap + CmsModel::REG_MAP_ID_REG), 0x74736574u);
    EXPECT_EQ(rig.read(kRegMap + CmsModel::PROFILE_NAME_REG), 0x55325858u) << "\"U2XX\": U200/U250";
    EXPECT_EQ(rig.read(kRegMap + CmsModel::STATUS_REG) >> 28, 1u) << "Satellite Controller Mode normal";
    EXPECT_EQ(rig.read(kRegMap + CmsModel::POWER_GOOD_INS_REG), 0u) << "bit 0 clear: power good";
}

TEST(CmsModel, ReassertingTheResetStopsTheFirmware) {
    Rig rig;
    rig.start();
    ASSERT_EQ(rig.read(kRegMap + CmsModel::REG_MAP_ID_REG), 0x74736574u);
    rig.write(CmsModel::MB_RESETN_REG, 0);
    EXPECT_EQ(rig.read(CmsModel::MB_RESETN_REG), 0u);
    EXPECT_EQ(rig.read(kRegMap + CmsModel::HOST_STATUS2_REG), 0u);
    rig.start();
    EXPECT_EQ(rig.read(kRegMap + CmsModel::HOST_STATUS2_REG), 1u);
    rig.cms->reset();  // aresetn_ctrl
    EXPECT_EQ(rig.read(CmsModel::MB_RESETN_REG), 0u);
}

TEST(CmsModel, FirmwareThatNeverStartsIsNeverReady) {
    Rig rig("40", std::chrono::milliseconds(-1));
    rig.write(CmsModel::MB_RESETN_REG, 1);
    rig.now += 1000;
    EXPECT_EQ(rig.read(kRegMap + CmsModel::HOST_STATUS2_REG), 0u);
}

TEST(CmsModel, TemperaturesFollowTheDie) {
    Rig rig("65");
    rig.start();
    EXPECT_EQ(rig.read(kFpgaTemp + 8), 65u) << "FPGA_TEMP_INS_REG in C";
    const uint32_t board = rig.read(kSe98Temp0 + 8);
    EXPECT_LT(board, 65u);
    EXPECT_GT(board, 45u);
    EXPECT_EQ(rig.read(kHbmTemp1 + 8), 0u) << "a sensor the U200 does not have reads 0";
}

TEST(CmsModel, InputCurrentRisesWithTheDmaLoad) {
    Rig rig;
    rig.start();
    const uint32_t idle = rig.read(k12vPexIIn + 8);
    const uint32_t idle_volts = rig.read(k12vPexMax + 8);
    EXPECT_EQ(idle_volts, 12000u) << "12V_PEX_INS_REG in mV";
    for (int i = 0; i < 20; ++i) {  // 20 s at the full-load rate
        *rig.dma += static_cast<uint64_t>(sim::DieThermal::kFullLoadBytesPerSecond);
        rig.now += 1.0;
        rig.die->load();
    }
    EXPECT_GT(rig.read(k12vPexIIn + 8), idle + 2000) << "12VPEX_I_IN_INS_REG in mA rises with the load";
    EXPECT_LT(rig.read(k12vPexMax + 8), idle_volts) << "12V_PEX droops a little";
}

TEST(CmsModel, MaxTracksTheHighestAndAvgFollowsTheSamplesFromHalf) {
    Rig rig("40,80@10,50@20");
    rig.write(CmsModel::MB_RESETN_REG, 1);
    rig.now += 0.051;  // REG_MAP ready after the 50 ms boot: the firmware's first sample
    EXPECT_EQ(rig.read(kFpgaTemp + 8), 40u);
    EXPECT_EQ(rig.read(kFpgaTemp + 4), 20u) << "AVG starts at half of INS, as fpga_sio saw after a reset";
    rig.now += 0.010;
    EXPECT_EQ(rig.read(kFpgaTemp + 4), 20u) << "no new sample within the 20 ms period";
    rig.now += 0.010;
    EXPECT_EQ(rig.read(kFpgaTemp + 4), 30u) << "the next sample halves the distance";
    rig.now += 10;
    EXPECT_EQ(rig.read(kFpgaTemp + 8), 80u);
    rig.now += 10;
    EXPECT_EQ(rig.read(kFpgaTemp), 80u) << "MAX keeps 80 C while INS is back to 50 C";
    EXPECT_EQ(rig.read(kFpgaTemp + 4), 50u) << "AVG has converged on the samples";
    rig.write(kRegMap + CmsModel::CONTROL_REG, CmsModel::CONTROL_RESET_MAX_AVG);
    EXPECT_EQ(rig.read(kRegMap + CmsModel::CONTROL_REG), 0u) << "self-clearing";
    EXPECT_EQ(rig.read(kFpgaTemp), 50u) << "MAX restarts after CONTROL_REG bit 0";
    EXPECT_EQ(rig.read(kFpgaTemp + 4), 25u) << "and AVG from half again";
}

TEST(CmsModel, ErrorRegIsClearedThroughControlReg) {
    Rig rig;
    rig.start();
    rig.cms->set_error_reg((1u << 27) | (7u << 20));
    EXPECT_EQ(rig.read(kRegMap + CmsModel::ERROR_REG), (1u << 27) | (7u << 20));
    rig.write(kRegMap + CmsModel::ERROR_REG, 0);
    EXPECT_NE(rig.read(kRegMap + CmsModel::ERROR_REG), 0u) << "ERROR_REG is read-only";
    rig.write(kRegMap + CmsModel::CONTROL_REG, CmsModel::CONTROL_RESET_ERROR_REG);
    EXPECT_EQ(rig.read(kRegMap + CmsModel::ERROR_REG), 0u);
    rig.cms->set_power_bad(true);
    EXPECT_EQ(rig.read(kRegMap + CmsModel::POWER_GOOD_INS_REG), 1u);
}

// The designs that have a CMS place the model at their CMS offset (in BAR 0).
using sim_test::instance;
uint32_t read32(vfio::Device& device, uint64_t offset) { return sim_test::read32(device, 0, offset); }

TEST(CmsModel, SimulatedU200DesignsHaveTheirCms) {
    for (const char* name : {"U200_dma_ddr4", "U200_100G_ether_duplex", "U200_100G_ether_simplex_tx"}) {
        sim::DesignInstance u200 = instance(name);
        EXPECT_EQ(u200.device->bar(0).value()->size(), 0x80000u) << name << ": CMS at 0x40000 + 256 KiB";
        EXPECT_EQ(read32(*u200.device, 0x40000 + CmsModel::MB_RESETN_REG), 0u) << name;
    }
    sim::DesignInstance ibert = instance("U200_ibert_100G_ether");
    EXPECT_EQ(read32(*ibert.device, CmsModel::MB_RESETN_REG), 0u) << "CMS at 0x0";
    const uint32_t sysmon_temperature = read32(*ibert.device, 0x40000 + 0x400);  // PG185: DRP 00h, the temperature
    EXPECT_NE(sysmon_temperature, 0u) << "SYSMON still at 0x40000";
    EXPECT_NE(sysmon_temperature, 0xffffffffu);
}

}  // namespace
