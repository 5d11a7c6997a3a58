// display_temperature_values: samples the temperatures of every identified design at an
// interval, a line per design per sample, until Ctrl-C or --duration. With --max_temperature it
// stops with exit 1 when a sensor reads above the limit; with --metrics it writes the sensors
// for Prometheus at each sample. Designs without sensors are named once; not an error.
// Exit status: 0 stopped by Ctrl-C or --duration, 1 no design found, a block that could not be
// opened or a temperature over --max_temperature, 2 usage error.
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <thread>

#include "base/format.hpp"
#include "base/json_text.hpp"
#include "base/numbers.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "sensor_tool.hpp"
#include "tool_support/board_health.hpp"

namespace po = boost::program_options;

namespace {

volatile std::sig_atomic_t g_stop = 0;

std::string clock_time(std::time_t now) {
    std::tm local{};
    localtime_r(&now, &local);
    char text[16];
    std::strftime(text, sizeof text, "%H:%M:%S", &local);
    return text;
}

// One line per design with sensors: its temperatures now and the hottest seen.
void print_sample(const sensor_tool::Opened& opened, tool_support::BoardHealth& health, bool json) {
    const std::time_t now = std::time(nullptr);
    const auto snapshot = health.watch().snapshot();
    for (const sensor_tool::DesignBlocks& design : opened.found) {
        if (design.blocks.empty())
            continue;
        std::vector<std::pair<std::string, streams::SensorSample>> blocks;
        for (const sensors::BlockSnapshot& block : snapshot)
            if (block.address == design.place.address && block.sample)
                blocks.emplace_back(block.kind, *block.sample);
        const auto hottest = health.watch().temperature(design.place.address);
        if (json)
            std::printf("{\"type\":\"sample\",\"time\":%lld,\"pci_address\":%s,\"design\":%s,\"temperatures\":%s%s}\n",
                        static_cast<long long>(now), pdt::json_quote(design.place.address).c_str(),
                        pdt::json_quote(design.place.design).c_str(), sensors::temperatures_json(blocks).c_str(),
                        hottest ? pdt::format(",\"max_temperature_c\":%.1f", hottest->max_celsius).c_str() : "");
        else
            std::printf("%s %s %s: %s%s\n", clock_time(now).c_str(), design.place.address.c_str(),
                        design.place.text_name().c_str(), sensors::temperatures_text(blocks).c_str(),
                        hottest ? pdt::format(" (max %.1f C)", hottest->max_celsius).c_str() : "");
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    sensor_tool::Options options;
    tool_support::BoardHealthCli health_cli;
    std::string interval_text = "1", duration_text;
    po::options_description description("Options");
    cli::add_help_and_version(description);
    sensor_tool::add_design_options(description, options);
    description.add_options()("interval", po::value(&interval_text), "seconds between samples (default 1)")(
        "duration", po::value(&duration_text), "stop after this many seconds (default: run until Ctrl-C)");
    tool_support::add_board_health_options(description, health_cli);
    cli::add_json_option(description, options.json, cli::JsonForm::Lines);
    if (auto status = cli::parse_fpga_sio_command_line(
            argc, argv, description, "Samples the temperatures of the identified FPGA designs until Ctrl-C."))
        return *status;
    const auto interval = pdt::parse_seconds("interval", interval_text);
    const auto duration = duration_text.empty() ? pdt::Result<double>(0.0) : pdt::parse_seconds("duration", duration_text);
    if (!interval || !duration) {
        std::cerr << "Error: " << (!interval ? interval.error() : duration.error()).message() << "\n";
        return 2;
    }
    sensor_tool::Opened opened = sensor_tool::open(options);
    if (opened.found.empty())
        return opened.status;
    std::vector<tool_support::DesignUnderTest> targets = tool_support::designs_under_test(opened.designs.found);
    auto health = tool_support::BoardHealth::open(health_cli, "display_temperature_values", targets, stdout, options.json);
    if (!health) {
        std::cerr << "Error: " << health.error().message() << "\n";
        return health.error().usage ? 2 : 1;
    }
    for (const sensor_tool::DesignBlocks& design : opened.found)
        if (design.blocks.empty() && !options.json)
            std::printf("No sensors in design %s in PCI device %s\n", design.place.text_name().c_str(),
                        design.place.address.c_str());
    std::signal(SIGINT, [](int) { g_stop = 1; });
    const auto start = std::chrono::steady_clock::now();
    const auto period = std::chrono::duration<double>(*interval);
    for (auto next = start; !g_stop && !(*health)->tripped(); next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period)) {
        (*health)->watch().sample_now();
        print_sample(opened, **health, options.json);
        (*health)->publish({}, !(*health)->tripped());
        if (*duration > 0 && std::chrono::steady_clock::now() - start + period > std::chrono::duration<double>(*duration))
            break;
        while (!g_stop && std::chrono::steady_clock::now() < next + period)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    (*health)->publish({}, !(*health)->tripped(), true);
    return (*health)->tripped() ? 1 : opened.status;
}
