// The XADC and SYSMON models read the die: the curve and the DMA load show in the status
// registers, the max/min records track the reads, the alarms set and clear with hysteresis.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "builtin_instance.hpp"
#include "sim/design_sim.hpp"
#include "sim/system_monitor_models.hpp"
#include "vfio_access/dma.hpp"

namespace {

using sim::SystemMonitorModel;

// The documents' transfer functions, decoded here independently of the sensors drivers.
double xadc_celsius(uint64_t reg) { return static_cast<double>((reg & 0xFFFF) >> 4) * 503.975 / 4096 - 273.15; }
double xadc_volts(uint64_t reg) { return static_cast<double>((reg & 0xFFFF) >> 4) * 3.0 / 4096; }
double sysmone4_celsius(uint64_t reg) {  // UG580 Equation 2-11 (on-chip reference)
    return static_cast<double>((reg & 0xFFFF) >> 6) * 509.3140064 / 1024 - 280.2308787;
}
double sysmon_volts(uint64_t reg) { return static_cast<double>((reg & 0xFFFF) >> 6) * 3.0 / 1024; }

// A die on a clock the test steps.
struct SteppedDie {
    explicit SteppedDie(const char* curve, std::shared_ptr<const std::atomic<uint64_t>> bytes = nullptr)
        : die(std::make_shared<sim::DieThermal>(sim::TemperatureCurve::parse(curve).value(), std::move(bytes),
                                                [this] { return now; })) {}
    double now = 0;
    std::shared_ptr<sim::DieThermal> die;
};

// Sets PDT_SIM_TEMPERATURE for one test; unset again whatever the test does.
struct TemperatureEnvironment {
    explicit TemperatureEnvironment(const char* curve) { set(curve); }
    void set(const char* curve) { EXPECT_EQ(setenv(sim::kTemperatureEnvironmentVariable, curve, 1), 0); }
    ~TemperatureEnvironment() { unsetenv(sim::kTemperatureEnvironmentVariable); }
};

constexpr uint64_t kXadcTemp = 0x200, kXadcVccint = 0x204, kXadcMaxTemp = 0x280, kXadcMinTemp = 0x290;
constexpr uint64_t kXadcFlag = 0x2FC;

}  // namespace

TEST(SystemMonitorModels, TheCurveShowsInTheTemperatureRegister) {
    SteppedDie die("40,95@30");
    const auto xadc = sim::make_xadc_block(die.die);
    EXPECT_NEAR(xadc_celsius(xadc->read(kXadcTemp, 4)), 40.0, 0.2);
    die.now = 15;
    EXPECT_NEAR(xadc_celsius(xadc->read(kXadcTemp, 4)), 67.5, 0.2);
    die.now = 30;
    EXPECT_NEAR(xadc_celsius(xadc->read(kXadcTemp, 4)), 95.0, 0.2);
    EXPECT_NEAR(xadc_volts(xadc->read(kXadcVccint, 4)), 1.0, 0.001) << "7-series VCCINT, idle";
    EXPECT_NEAR(xadc_volts(xadc->read(0x208, 4)), 1.8, 0.001) << "VCCAUX";
    EXPECT_NEAR(xadc_volts(xadc->read(0x218, 4)), 1.0, 0.001) << "VCCBRAM";
    const auto sysmon = sim::make_sysmon_block(die.die, designs::SysmonPrimitive::Sysmone4, 0);
    EXPECT_NEAR(sysmone4_celsius(sysmon->read(0x400, 4)), 95.0, 0.5);
    EXPECT_NEAR(sysmon_volts(sysmon->read(0x404, 4)), 0.85, 0.003) << "UltraScale+ VCCINT";
}

TEST(SystemMonitorModels, TheFlagRegisterSaysWhichReferenceAndThusWhichTransferFunction) {
    SteppedDie die("50");
    SystemMonitorModel external(die.die, {sim::MonitorKind::Sysmone4, 0, false});
    const uint64_t flag = external.read(0x4FC, 4);
    EXPECT_EQ(flag & 0x200, 0u) << "REF clear: external reference";
    // UG580 Equation 2-9 (external reference).
    EXPECT_NEAR(static_cast<double>((external.read(0x400, 4) & 0xFFFF) >> 6) * 507.5921310 / 1024 - 279.4265768, 50.0,
                0.5);
    SystemMonitorModel on_chip(die.die, {sim::MonitorKind::Sysmone1, 0, true});
    EXPECT_EQ(on_chip.read(0x4FC, 4) & 0x200, 0x200u);
    // UG580 Equation 2-7 (SYSMONE1, on-chip reference).
    EXPECT_NEAR(static_cast<double>((on_chip.read(0x400, 4) & 0xFFFF) >> 6) * 501.3743 / 1024 - 273.6777, 50.0, 0.5);
}

TEST(SystemMonitorModels, DmaLoadWarmsTheDieAndDroopsTheSupplies) {
    auto bytes = std::make_shared<std::atomic<uint64_t>>(0);
    SteppedDie die("38");
    die.die->attach_activity(bytes);
    const auto xadc = sim::make_xadc_block(die.die);
    const double idle = xadc_celsius(xadc->read(kXadcTemp, 4));
    const double idle_vccint = xadc_volts(xadc->read(kXadcVccint, 4));
    for (int second = 1; second <= 20; ++second) {  // full load: 4 GB/s for 20 s
        die.now = second;
        *bytes += 4'000'000'000ull;
        (void)xadc->read(kXadcTemp, 4);
    }
    const double loaded = xadc_celsius(xadc->read(kXadcTemp, 4));
    EXPECT_GT(loaded, idle + 10.0) << "the lagged rise approaches 12 C at full load";
    EXPECT_LT(loaded, idle + sim::DieThermal::kFullLoadRiseC + 0.2);
    const double loaded_vccint = xadc_volts(xadc->read(kXadcVccint, 4));
    EXPECT_LT(loaded_vccint, idle_vccint - 0.004) << "VCCINT droops a few mV";
    EXPECT_GT(loaded_vccint, idle_vccint - 0.010);
}

TEST(SystemMonitorModels, MaxAndMinRecordWhatWasReadSinceReset) {
    SteppedDie die("40,60@20,50@30");
    const auto xadc = sim::make_xadc_block(die.die);
    EXPECT_EQ(xadc->read(kXadcMaxTemp, 4), 0x0000u) << "nothing recorded: max reads 0000h";
    EXPECT_EQ(xadc->read(kXadcMinTemp, 4), 0xFFFFu) << "nothing recorded: min reads FFFFh";
    const uint64_t at40 = xadc->read(kXadcTemp, 4);
    die.now = 20;
    const uint64_t at60 = xadc->read(kXadcTemp, 4);
    die.now = 30;
    (void)xadc->read(kXadcTemp, 4);
    EXPECT_EQ(xadc->read(kXadcMaxTemp, 4), at60);
    EXPECT_EQ(xadc->read(kXadcMinTemp, 4), at40);
    EXPECT_NEAR(xadc_celsius(xadc->read(kXadcMaxTemp, 4)), 60.0, 0.2);
    EXPECT_EQ(xadc->read(0x294, 4), 0xFFFFu) << "VCCINT never read: its min is unrecorded";
    xadc->write(SystemMonitorModel::SYSMONRR, 4, 1);  // hard macro reset
    EXPECT_EQ(xadc->read(kXadcMaxTemp, 4), 0x0000u);
    EXPECT_EQ(xadc->read(kXadcMinTemp, 4), 0xFFFFu);
}

TEST(SystemMonitorModels, TemperatureAlarmAndOtSetAboveTheUpperAndClearBelowTheLowerThreshold) {
    SteppedDie die("40,90@10,70@20,55@30,130@40,100@50,65@60");
    const auto xadc = sim::make_xadc_block(die.die);
    auto state = [&](double t) {
        die.now = t;
        return std::pair{xadc->read(kXadcFlag, 4) & 0x1F, xadc->read(SystemMonitorModel::AOSR, 4)};
    };
    EXPECT_EQ(state(0), std::pair(uint64_t{0}, uint64_t{0}));
    EXPECT_EQ(state(10), std::pair(uint64_t{0x1}, uint64_t{0x102})) << "90 C > 85 C: ALM0, AOSR ALM[0] and ALM[7]";
    EXPECT_EQ(state(20).first, 0x1u) << "70 C: still above the 60 C lower threshold";
    EXPECT_EQ(state(30), std::pair(uint64_t{0}, uint64_t{0})) << "55 C < 60 C: cleared";
    EXPECT_EQ(state(40), std::pair(uint64_t{0x9}, uint64_t{0x103})) << "130 C > 125 C: OT and ALM0";
    EXPECT_EQ(state(50).first, 0x9u) << "100 C: OT holds until below its 70 C lower threshold";
    EXPECT_EQ(state(60), std::pair(uint64_t{0x1}, uint64_t{0x102}))
        << "65 C: OT cleared below 70 C, ALM0 holds above its 60 C lower threshold";
}

TEST(SystemMonitorModels, ThresholdsAreWritableAndAlarmsCanBeDisabled) {
    SteppedDie die("50");
    const auto xadc = sim::make_xadc_block(die.die);
    EXPECT_NEAR(xadc_celsius(xadc->read(0x340, 4)), 85.0, 0.2) << "temperature upper, the wizard default";
    EXPECT_NEAR(xadc_celsius(xadc->read(0x350, 4)), 60.0, 0.2) << "temperature lower";
    EXPECT_EQ(xadc->read(0x34C, 4), 0u) << "OT upper 0000h: the 125 C default";
    xadc->write(0x340, 4, xadc->temperature_code(45.0));
    xadc->write(0x350, 4, xadc->temperature_code(40.0));
    EXPECT_EQ(xadc->read(kXadcFlag, 4) & 0x1, 0x1u);
    xadc->write(0x34C, 4, (xadc->temperature_code(48.0) & 0xFFF0) | 0x3);  // a user OT threshold
    EXPECT_EQ(xadc->read(kXadcFlag, 4) & 0x8, 0x8u);
    xadc->write(0x304, 4, 0x3);  // Configuration Register 1: OT and ALM0 disabled
    EXPECT_EQ(xadc->read(kXadcFlag, 4) & 0x9, 0u);
    xadc->reset();
    EXPECT_EQ(xadc->read(0x304, 4), 0u);
    EXPECT_EQ(xadc->read(kXadcFlag, 4) & 0x9, 0u) << "defaults again: 50 C raises nothing";
}

TEST(SystemMonitorModels, SlaveSysmonsEachHaveTheirOwn0x800BytesAndSitWarmer) {
    SteppedDie die("45");
    const auto sysmon = sim::make_sysmon_block(die.die, designs::SysmonPrimitive::Sysmone4, 2);
    const double master = sysmone4_celsius(sysmon->read(0x400, 4));
    const double slave1 = sysmone4_celsius(sysmon->read(0xC00, 4));
    const double slave2 = sysmone4_celsius(sysmon->read(0x1400, 4));
    EXPECT_NEAR(master, 45.0, 0.5);
    EXPECT_NEAR(slave1 - master, 1.5, 0.6);
    EXPECT_NEAR(slave2 - master, 3.0, 0.6);
    EXPECT_NEAR(sysmon_volts(sysmon->read(0x1404, 4)), 0.85, 0.003) << "slave 2 VCCINT";
    EXPECT_EQ(sysmon->read(0x1480, 4), sysmon->read(0x1400, 4) & 0xFFFF) << "slave 2's own max record";
    EXPECT_EQ(sysmon->read(0xC80, 4), sysmon->read(0xC00, 4) & 0xFFFF);
    EXPECT_EQ(sysmon->read(0x1C00, 4), 0u) << "no third slave";
}

TEST(SystemMonitorModels, CoreRegistersReadAsAfterReset) {
    SteppedDie die("38");
    const auto xadc = sim::make_xadc_block(die.die);
    EXPECT_EQ(xadc->read(SystemMonitorModel::SR, 4), 0u);
    EXPECT_EQ(xadc->read(SystemMonitorModel::AOSR, 4), 0u);
    EXPECT_EQ(xadc->read(0x308, 4), 0x1e00u) << "Configuration Register 2";
    xadc->write(SystemMonitorModel::GIER, 4, 0xffffffff);
    xadc->write(SystemMonitorModel::IPIER, 4, 0x3c0f);
    xadc->write(SystemMonitorModel::IPISR, 4, 0x1);
    EXPECT_EQ(xadc->read(SystemMonitorModel::GIER, 4), 0x80000000u);
    EXPECT_EQ(xadc->read(SystemMonitorModel::IPIER, 4), 0x3c0fu);
    EXPECT_EQ(xadc->read(SystemMonitorModel::IPISR, 4), 0x1u);
    xadc->write(SystemMonitorModel::IPISR, 4, 0x1);
    EXPECT_EQ(xadc->read(SystemMonitorModel::IPISR, 4), 0u) << "toggle on write";
    xadc->write(SystemMonitorModel::GIER, 4, 0x80000000u);
    xadc->write(SystemMonitorModel::SRR, 4, 0x5);
    EXPECT_EQ(xadc->read(SystemMonitorModel::GIER, 4), 0x80000000u) << "only 0xA resets";
    xadc->write(SystemMonitorModel::SRR, 4, SystemMonitorModel::SRR_RESET);
    EXPECT_EQ(xadc->read(SystemMonitorModel::GIER, 4), 0u);
    EXPECT_EQ(xadc->read(0x200, 2), xadc->read(0x200, 4) & 0xFFFF) << "16-bit access";
}

TEST(SystemMonitorModels, InstantiatedDesignsFollowPdtSimTemperature) {
    const designs::Registry registry = designs::Registry::builtin().value();
    const designs::Design* u200 = registry.find("U200_dma_ddr4");
    ASSERT_NE(u200, nullptr);
    const vfio::DeviceIdentity id = sim::simulated_identity(*u200, sim::simulated_address(0), 41);
    TemperatureEnvironment environment("72");
    auto made = sim::instantiate_design(*u200, id, true);
    ASSERT_TRUE(made.ok()) << made.error().message();
    vfio::Bar* bar0 = made->device->bar(0).value();
    EXPECT_NEAR(sysmone4_celsius(bar0->read(0x4400, 4).value()), 72.0, 0.5) << "master SYSMON";
    EXPECT_NEAR(sysmone4_celsius(bar0->read(0x4C00, 4).value()), 73.5, 0.6) << "slave 1";
    EXPECT_NEAR(sysmone4_celsius(bar0->read(0x5400, 4).value()), 75.0, 0.6) << "slave 2";
    EXPECT_NEAR(made->die->temperature_c(), 72.0, 0.01);
    environment.set("72,hot@5");
    auto bad = sim::instantiate_design(*u200, id, true);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().operation, "read PDT_SIM_TEMPERATURE");
    EXPECT_NE(bad.error().message().find("'hot' is not a temperature in C"), std::string::npos) << bad.error().message();
}

// instantiate_design attaches the device's DMA byte count to the die once the device exists.
TEST(SystemMonitorModels, AnInstancesDieFollowsItsOwnDmaActivity) {
    sim::DesignInstance made = sim_test::instance("U200_dma_ddr4");
    sim::SimDevice& device = *made.device;
    EXPECT_EQ(made.die->load(), 0.0);
    ASSERT_TRUE(*device.enable_bus_master());
    auto buffer = vfio::DmaRegion::allocate(device, 1 << 20, vfio::DmaAccess::DeviceWrite);
    ASSERT_TRUE(buffer.ok()) << buffer.error().message();
    std::vector<uint8_t> data(1 << 20);
    ASSERT_TRUE(device.dma_write(buffer->iova(), data.data(), data.size()).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_GT(made.die->load(), 0.0) << "1 MiB moved: the lagged load has begun to rise";
}
