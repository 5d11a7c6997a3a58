// ddr3_reset_control (fpga_sio's name): shows the DDR memory controller's reset signals of every
// identified design with a DDR reset GPIO, or with -r pulses its reset for that many seconds and
// prints when each signal changed before, during and after the reset.
// Exit status: 0 the signals shown, or every reset completed (clocks locked, calibration done);
// 1 no such design, a reset that did not complete within --timeout or had no effect; 2 usage error.
#include <cstdio>
#include <iostream>

#include "base/numbers.hpp"
#include "cli/command_line.hpp"
#include "gpio/ddr_reset.hpp"
#include "gpio_tool.hpp"

namespace po = boost::program_options;

namespace {

// Resets one design's DDR controller and prints its record; false when the reset failed.
bool reset_and_report(const gpio::AxiGpio& gpio, std::chrono::nanoseconds duration, std::chrono::nanoseconds timeout) {
    std::printf("Applying DDR3 reset...\n");
    gpio::DdrResetControl control(gpio);
    const gpio::ResetRecord record = control.reset(duration, timeout);
    bool ok = record.completed;
    if (!record.completed)
        std::printf("Reset didn't complete within timeout - DDR3 may not be usable\n");
    std::printf("%s", gpio::history_text(record).c_str());
    bool unlocked = false;
    for (const gpio::SignalSample& sample : record.history)
        unlocked |= (sample.signals & gpio::ddr_reset_bits::mmcm_locked) == 0;
    if (!unlocked) {
        std::printf("FAIL: mmcm_locked never fell: the reset at %s had no effect\n", gpio.where().c_str());
        ok = false;
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    gpio_tool::Options options;
    std::string reset_text, timeout_text = "10";
    po::options_description description("Options");
    cli::add_help_and_version(description);
    gpio_tool::add_options(description, options);
    description.add_options()("reset_duration,r", po::value(&reset_text),
                              "hold the DDR reset this many seconds, then record the signals until the controller "
                              "is calibrated (default: only show the signals)")(
        "timeout", po::value(&timeout_text), "seconds after the reset to wait for calibration (default 10)");
    if (auto status = cli::parse_fpga_sio_command_line(
            argc, argv, description, "Shows or pulses the DDR memory controller reset of the identified FPGA designs."))
        return *status;
    const auto duration = reset_text.empty() ? pdt::Result<double>(0.0) : pdt::parse_seconds("reset_duration", reset_text);
    const auto timeout = pdt::parse_seconds("timeout", timeout_text);
    if (!duration || !timeout) {
        std::cerr << "Error: " << (!duration ? duration.error() : timeout.error()).message() << "\n";
        return 2;
    }
    gpio_tool::Opened opened = gpio_tool::open(options, designs::PeripheralType::DdrResetGpio);
    int status = opened.status;
    for (const gpio_tool::DesignGpio& found : opened.gpios) {
        if (reset_text.empty()) {
            std::printf("Current reset signal state:\n%s",
                        gpio::signals_text(gpio::DdrResetControl(found.gpio).signals()).c_str());
            continue;
        }
        if (!reset_and_report(found.gpio, std::chrono::nanoseconds(static_cast<int64_t>(*duration * 1e9)),
                              std::chrono::nanoseconds(static_cast<int64_t>(*timeout * 1e9))))
            status = 1;
    }
    return status;
}
