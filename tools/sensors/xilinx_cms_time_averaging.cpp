// xilinx_cms_time_averaging (fpga_sio's name): studies how the CMS firmware (PG348) averages its
// samples. For every identified design with a CMS it starts the firmware if held in reset, then
// polls CMS_SENSOR_12V_PEX's MAX, AVG and INS words (12V_PEX_MAX_REG, _AVG_REG, _INS_REG) every
// 100 us for --duration seconds (fpga_sio: 30) or until 1000 changes, and prints each change with
// its time and the differences from the one before, in fpga_sio's lines.
// Exit status: 0 the history printed; 1 no design with a CMS, or a CMS that could not be started
// or read; 2 usage error.
#include <cstdio>
#include <ctime>
#include <iostream>
#include <thread>

#include "base/numbers.hpp"
#include "cli/command_line.hpp"
#include "sensors/cms.hpp"
#include "sensors/open_sensors.hpp"
#include "sensor_tool.hpp"

namespace po = boost::program_options;

namespace {

struct Change {
    std::chrono::steady_clock::time_point time;
    sensors::CmsSensorWords words;
};
constexpr size_t kMaxChanges = 1000;  // fpga_sio's MAX_HISTORY_ITEMS

// Polls the sensor's words until `duration` passes or the history is full.
pdt::Result<std::vector<Change>> record_changes(const vfio::RegisterWindow& window, std::chrono::nanoseconds duration) {
    std::vector<Change> history;
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const auto now = std::chrono::steady_clock::now();
        const sensors::CmsSensorWords words = PDT_TRY(sensors::read_cms_sensor_words(window, "12V_PEX"));
        if (history.empty() || words != history.back().words)
            history.push_back({now, words});
        if (history.size() >= kMaxChanges || now - start > duration)
            return history;
        // fpga_sio's hold-off: polling the memory shared with the firmware in a tight loop could
        // keep the firmware from it.
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

void print_changes(const std::vector<Change>& history) {
    std::printf("  Index            Time (secs)                 Max             Average       Instantaneous\n");
    for (size_t i = 0; i < history.size(); ++i) {
        const Change& change = history[i];
        const Change& previous = history[i == 0 ? 0 : i - 1];
        auto seconds = [](std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); };
        auto delta = [](uint32_t now, uint32_t before) { return static_cast<int32_t>(now) - static_cast<int32_t>(before); };
        std::printf("[%5u]  %9.6f(%+10.6f)  %8u(%+8d)  %8u(%+8d)  %8u(%+8d)\n", static_cast<unsigned>(i),
                    seconds(change.time - history[0].time), seconds(change.time - previous.time), change.words.max,
                    delta(change.words.max, previous.words.max), change.words.avg,
                    delta(change.words.avg, previous.words.avg), change.words.ins,
                    delta(change.words.ins, previous.words.ins));
    }
}

// Starts the design's CMS (a sample of its block) and prints the history of its 12V_PEX words.
int study_design(const identify::IdentifiedDesign& design, const designs::Peripheral& cms,
                 std::chrono::nanoseconds duration) {
    std::printf("\nDesign %s:\n", design.design->text_name().c_str());
    std::printf("  PCI device %s rev %02x IOMMU group %d\n", design.identity.address.to_string().c_str(),
                static_cast<unsigned>(design.identity.revision), design.identity.iommu_group);
    const std::string location = sensors::block_location(cms.bar, cms.offset);
    auto window = design.device->bar(cms.bar);
    auto regs = window ? (*window)->window(cms.offset, cms.frame_size()) : pdt::Result<vfio::RegisterWindow>(window.error());
    auto started = regs ? sensors::make_cms(*regs, location)->sample() : pdt::Result<streams::SensorSample>(regs.error());
    auto history = started ? record_changes(*regs, duration) : pdt::Result<std::vector<Change>>(started.error());
    if (!history) {
        std::cerr << "Error: " << design.identity.address.to_string() << " CMS " << location << ": "
                  << history.error().message() << "\n";
        return 1;
    }
    print_changes(*history);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    sensor_tool::Options options;
    std::string duration_text = "30";
    po::options_description description("Options");
    cli::add_help_and_version(description);
    sensor_tool::add_design_options(description, options);
    description.add_options()("duration", po::value(&duration_text),
                              "seconds to poll for changes (default 30, as fpga_sio)");
    if (auto status = cli::parse_fpga_sio_command_line(
            argc, argv, description, "Records when the CMS firmware changes 12V_PEX's MAX, AVG and INS words."))
        return *status;
    const auto duration = pdt::parse_seconds("duration", duration_text);
    if (!duration) {
        std::cerr << "Error: " << duration.error().message() << "\n";
        return 2;
    }
    sensor_tool::Opened opened = sensor_tool::open(options);
    int status = opened.status;
    bool any = false;
    for (const identify::IdentifiedDesign& design : opened.designs.found.designs)
        for (const designs::Peripheral* p : design.design->peripherals_for_revision(design.identity.revision))
            if (p->type == designs::PeripheralType::Cms) {
                any = true;
                if (study_design(design, *p, std::chrono::nanoseconds(static_cast<int64_t>(*duration * 1e9))) != 0)
                    status = 1;
            }
    if (!any && status != 2) {
        std::cerr << "No CMS found in the designs\n";
        status = 1;
    }
    return status;
}
