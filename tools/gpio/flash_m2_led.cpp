// flash_m2_led (fpga_sio's name): lights the M.2 activity LED of every identified LiteFury or
// NiteFury (Project-0) for the given microseconds, once, then puts it out; Ctrl-C puts it out
// early. Boards before version 3 drive the LED wrongly and are left alone, as fpga_sio does.
// Exit status: 0 every board found flashed; 1 none found, or a board too old; 2 usage error.
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "base/numbers.hpp"
#include "cli/command_line.hpp"
#include "gpio/m2_led.hpp"
#include "gpio_tool.hpp"

namespace po = boost::program_options;

namespace {

volatile std::sig_atomic_t g_flash_stop = 0;

// Sleeps `time`, or less when Ctrl-C comes.
void sleep_unless_stopped(std::chrono::microseconds time) {
    const auto until = std::chrono::steady_clock::now() + time;
    while (!g_flash_stop) {
        const auto left = until - std::chrono::steady_clock::now();
        if (left <= std::chrono::steady_clock::duration::zero())
            return;
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        const timespec request{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
        nanosleep(&request, nullptr);  // EINTR on Ctrl-C: the loop sees the flag
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    gpio_tool::Options options;
    std::vector<std::string> arguments;
    po::options_description description("Options");
    cli::add_help_and_version(description);
    gpio_tool::add_options(description, options);
    const cli::CommandLine line{
        description, cli::fpga_sio_usage(argv[0], "Arguments: <led_on_time_us>\nLights the M.2 LED of the "
                                                  "identified LiteFury and NiteFury boards for that many microseconds."),
        &arguments, "led_on_time_us"};
    if (auto status = cli::parse_command_line(argc, argv, line))
        return *status;
    if (arguments.size() != 1) {
        std::cerr << "Error: expected one <led_on_time_us> (got " << arguments.size() << ")\n";
        return 2;
    }
    const auto on_time = pdt::parse_number("led_on_time_us", arguments[0], 0, UINT32_MAX);
    if (!on_time) {
        std::cerr << "Error: " << on_time.error().message() << "\n";
        return 2;
    }
    struct sigaction action{};
    action.sa_handler = [](int) { g_flash_stop = 1; };
    sigaction(SIGINT, &action, nullptr);  // no SA_RESTART: the sleep ends
    gpio_tool::Opened opened = gpio_tool::open(options, designs::PeripheralType::M2LedGpio);
    int status = opened.status;
    for (const gpio_tool::DesignGpio& found : opened.gpios) {
        const identify::IdentifiedDesign& design = *found.design;
        const uint32_t version = design.board_version.value_or(0);
        if (version < gpio::kM2LedMinBoardVersion) {
            std::printf("Board version 0x%x doesn't support correct M2 LED signal drive\n", version);
            status = 1;
            continue;
        }
        std::printf("Testing %s board version 0x%x for PCI device %s IOMMU group %d\n",
                    design.design->text_name().c_str(), version, design.identity.address.to_string().c_str(),
                    design.identity.iommu_group);
        gpio::flash_m2_led(found.gpio, std::chrono::microseconds(*on_time), sleep_unless_stopped);
    }
    return status;
}
