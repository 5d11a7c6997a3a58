// The AXI GPIO driver (PG144) and what it drives, against the models written apart from it
// (sim/gpio_models.hpp): the channels' data and 3-state registers, the DDR reset with the MIG
// following it (its lies: a MIG that never calibrates, one the reset does not reach), the M.2
// LED's toggles, and the simulated designs that place these GPIOs where fpga_sio finds them.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <vector>

#include "base/format.hpp"
#include "designs/registry.hpp"
#include "gpio/axi_gpio.hpp"
#include "gpio/ddr_reset.hpp"
#include "gpio/m2_led.hpp"
#include "sim/design_sim.hpp"
#include "sim/gpio_models.hpp"

// Named after the file: its helpers stay its own in a unity build.
namespace gpio_on_model_test {

namespace {

using namespace std::chrono_literals;
using gpio::Channel;
namespace bits = gpio::ddr_reset_bits;

// A GPIO model in a BAR of its own, and the driver over it.
struct Rig {
    std::shared_ptr<sim::AxiGpioModel> model;
    std::shared_ptr<sim::SimBar> backend = std::make_shared<sim::SimBar>(sim::AxiGpioModel::kSize);
    vfio::Bar bar{0, backend};
    gpio::AxiGpio gpio;
    explicit Rig(std::shared_ptr<sim::AxiGpioModel> m)
        : model(std::move(m)), gpio((backend->add_block(0, sim::AxiGpioModel::kSize, model),
                                     bar.window(0, sim::AxiGpioModel::kSize).value()),
                                    "bar 0 offset 0x0") {}
};

std::shared_ptr<sim::AxiGpioModel> mig_gpio(sim::MigResetModel::Config config) {
    return sim::make_ddr_reset_gpio(std::make_shared<sim::MigResetModel>(config));
}

sim::MigResetModel::Config quick_mig() {
    sim::MigResetModel::Config config;
    config.locked_after = 200us;
    config.calibrated_after = 2ms;
    return config;
}

TEST(AxiGpioOnModel, DataReadsInputsWhereTriIsSetAndDrivesOutputsOnEachChannel) {
    Rig rig(std::make_shared<sim::AxiGpioModel>(std::array<sim::AxiGpioModel::Inputs, 2>{
        [] { return 0x5u; }, [] { return 0xa0u; }}));
    EXPECT_EQ(rig.gpio.read_data(Channel::Gpio), 0x5u);
    EXPECT_EQ(rig.gpio.read_data(Channel::Gpio2), 0xa0u);
    rig.gpio.write_data(Channel::Gpio2, 0x3);
    EXPECT_EQ(rig.model->outputs(2), 0x3u);
    EXPECT_EQ(rig.model->outputs(1), 0u) << "channel 2's write reaches channel 2 only";
    EXPECT_EQ(rig.gpio.read_data(Channel::Gpio2), 0xa0u) << "PG144: an input bit reads its pin, not the output";
    ASSERT_TRUE(rig.bar.write(gpio::pg144::GPIO2_TRI, 4, 0).ok());
    EXPECT_EQ(rig.gpio.read_data(Channel::Gpio2), 0x3u) << "an output bit reads what was written";
}

TEST(DdrResetOnModel, ShowsACalibratedControllerBeforeAnyReset) {
    Rig rig(mig_gpio(quick_mig()));
    const uint32_t signals = gpio::DdrResetControl(rig.gpio).signals();
    EXPECT_EQ(signals, bits::clocking_wizard_locked | bits::mmcm_locked | bits::init_calib_complete);
    EXPECT_EQ(gpio::signals_text(signals),
              "locked           : 1\nmmcm_locked      : 1\ninit_cal_complete: 1\nui_clk_sync_rst  : 0\n");
}

// The states a reset goes through, in order; a loaded machine may sample past a short one.
std::vector<uint32_t> reset_states() {
    const uint32_t done = bits::clocking_wizard_locked | bits::mmcm_locked | bits::init_calib_complete;
    return {done, bits::clocking_wizard_reset | bits::ui_clk_sync_rst, bits::ui_clk_sync_rst,
            bits::clocking_wizard_locked | bits::mmcm_locked, done};
}

TEST(DdrResetOnModel, RecordsTheSignalsFallingDuringTheResetAndReturningAfterIt) {
    Rig rig(mig_gpio(quick_mig()));
    gpio::DdrResetControl control(rig.gpio);
    const gpio::ResetRecord record = control.reset(1ms, 1s);
    ASSERT_TRUE(record.completed);
    const std::vector<uint32_t> states = reset_states();
    ASSERT_GE(record.history.size(), 3u) << gpio::history_text(record);
    EXPECT_EQ(record.history[0].signals, states[0]);
    EXPECT_EQ(record.history[1].signals, states[1]) << "the reset held: clocks unlocked, calibration lost";
    EXPECT_EQ(record.history.back().signals, states[4]);
    size_t state = 0;
    for (const gpio::SignalSample& sample : record.history) {
        while (state < states.size() && states[state] != sample.signals)
            ++state;
        ASSERT_LT(state, states.size()) << "a state out of order\n" << gpio::history_text(record);
    }
    EXPECT_GE(record.history[2].since_first, 1ms) << "released after the reset duration";
    EXPECT_GE(record.history.back().since_first, 1ms + 200us + 2ms) << "locked, then calibrated";
    EXPECT_EQ(rig.model->outputs(1), 0u) << "the reset released";
    EXPECT_EQ(rig.model->output_changes(1, 0), 2u);
}

TEST(DdrResetOnModel, PrintsTheHistoryInFpgaSiosColumns) {
    gpio::ResetRecord record;
    record.history = {{0ns, 0xe}, {1500ns, 0x11}, {1234567891ns, 0xe}};
    EXPECT_EQ(gpio::history_text(record),
              " Time (secs) clocking_wizard_reset clocking_wizard_locked mmcm_locked init_cal_complete "
              "ui_clk_sync_rst_mask\n"
              " 0.000000000                     0                      1           1                 1                    0\n"
              " 0.000001500                     1                      0           0                 0                    1\n"
              " 1.234567891                     0                      1           1                 1                    0\n");
}

TEST(DdrResetOnModel, AMigThatNeverCalibratesEndsAtTheTimeoutNotCompleted) {
    sim::MigResetModel::Config config = quick_mig();
    config.calibrates = false;
    Rig rig(mig_gpio(config));
    const auto start = std::chrono::steady_clock::now();
    const gpio::ResetRecord record = gpio::DdrResetControl(rig.gpio).reset(100us, 20ms);
    EXPECT_FALSE(record.completed);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
    EXPECT_EQ(record.history.back().signals & bits::init_calib_complete, 0u);
    EXPECT_EQ(rig.model->outputs(1), 0u) << "the reset released even so";
}

TEST(DdrResetOnModel, AResetTheMigDoesNotSeeLeavesMmcmLockedHighInTheRecord) {
    sim::MigResetModel::Config config = quick_mig();
    config.follows_reset = false;
    Rig rig(mig_gpio(config));
    const gpio::ResetRecord record = gpio::DdrResetControl(rig.gpio).reset(100us, 20ms);
    for (const gpio::SignalSample& sample : record.history)
        EXPECT_NE(sample.signals & bits::mmcm_locked, 0u);
}

TEST(M2LedOnModel, FlashingLightsBitOneOfGpio2ForTheOnTimeThenPutsItOut) {
    Rig rig(std::make_shared<sim::AxiGpioModel>());
    uint32_t lit_while_waiting = 0;
    std::chrono::microseconds waited{0};
    gpio::flash_m2_led(rig.gpio, 1500us, [&](std::chrono::microseconds time) {
        waited = time;
        lit_while_waiting = rig.model->outputs(2);
    });
    EXPECT_EQ(lit_while_waiting, gpio::kM2LedMask);
    EXPECT_EQ(waited, 1500us);
    EXPECT_EQ(rig.model->outputs(2), 0u);
    EXPECT_EQ(rig.model->output_changes(2, 1), 2u) << "one flash: on then off";
    EXPECT_EQ(rig.model->output_changes(1, 1), 0u);
}

// The designs place the GPIOs where fpga_sio maps them, and the simulated instances have them.
TEST(GpioDesigns, TheSimulatedDesignsHaveTheirGpiosWhereFpgaSioFindsThem) {
    const auto registry = designs::Registry::builtin().value();
    struct Expected {
        const char* design;
        designs::PeripheralType type;
        uint64_t offset;
    };
    for (const Expected& e : {Expected{"TEF1001_dma_ddr3", designs::PeripheralType::DdrResetGpio, 0x6000},
                              Expected{"TOSING_160T_dma_ddr3", designs::PeripheralType::DdrResetGpio, 0x3000},
                              Expected{"NiteFury_dma_ddr3", designs::PeripheralType::DdrResetGpio, 0x3000},
                              Expected{"XCKU5P_SINGLE_QSFP_dma_ddr4", designs::PeripheralType::DdrResetGpio, 0x4000},
                              Expected{"U200_dma_ddr4", designs::PeripheralType::DdrResetGpio, 0x9000},
                              Expected{"Litefury_Project-0", designs::PeripheralType::M2LedGpio, 0x2000},
                              Expected{"Nitefury_Project-0", designs::PeripheralType::M2LedGpio, 0x2000}}) {
        const designs::Design* d = registry.find(e.design);
        ASSERT_NE(d, nullptr) << e.design;
        auto made = sim::instantiate_design(*d, sim::simulated_identity(*d, sim::simulated_address(0), 41), true);
        ASSERT_TRUE(made.ok()) << made.error().message();
        auto found = gpio::open_design_gpio(*made->device, *d, 0, e.type);
        ASSERT_TRUE(found.ok() && found->has_value()) << e.design;
        EXPECT_EQ((*found)->where(), "bar 0 offset " + pdt::hex(e.offset)) << e.design;
        ASSERT_EQ(made->gpios.size(), 1u) << e.design;
        (*found)->write_data(Channel::Gpio2, gpio::kM2LedMask);
        EXPECT_EQ(made->gpios[0]->outputs(2), gpio::kM2LedMask) << e.design << ": the driver reaches the model";
        auto other = gpio::open_design_gpio(*made->device, *d, 0,
                                            e.type == designs::PeripheralType::M2LedGpio
                                                ? designs::PeripheralType::DdrResetGpio
                                                : designs::PeripheralType::M2LedGpio);
        ASSERT_TRUE(other.ok());
        EXPECT_FALSE(other->has_value()) << e.design;
    }
}

}  // namespace

}  // namespace gpio_on_model_test
