// quad_spi_flasher: the configuration flash behind the AXI Quad SPI core of the identified
// designs. Default: identify every such flash (JEDEC ID, SFDP summary, protection). With one
// design: --read FILE, --compare FILE, --write IMAGE (erase, program, verify the sectors that
// differ) or --erase; writes are a dry run unless --program is given (docs/tools/flash.md).
// Exit status: 0 done (PASS), 1 failure, 2 usage error.
#include <csignal>
#include <cstdio>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "cli/option_names.hpp"
#include "flash/open_flash.hpp"
#include "flasher.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;

namespace {

int usage(const std::string& message) {
    std::cerr << "Error: " << message << "\n";
    return tool_support::kUsageError;
}

// Ctrl-C (or SIGTERM) during a write: the sector being written is finished and verified, then
// the write stops with the journal left for the next run. Other modes end at once, as by default.
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }
void stop_writes_between_sectors() {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    flasher::OptionText t;
    flasher::Options o;
    po::options_description description("Options");
    cli::add_help_and_version(description);
    cli::add_device_option(description, t.devices);
    cli::add_sim_design_option(description, t.sim_designs);
    cli::add_design_file_option(description, t.design_files);
    cli::add_lock_timeout_option(description, t.lock_timeout);
    cli::add_json_option(description, o.json, cli::JsonForm::Document);
    description.add_options()
        ("read", po::value(&t.read), "read --offset/--length of the flash into FILE (3 reads must agree)")
        ("compare", po::value(&t.compare), "compare the flash at --offset (default --update_offset, where --write puts an image) with FILE")
        ("write", po::value(&t.write), "erase, program and verify the sectors of IMAGE that differ (at --offset, "
                                       "default --update_offset)")
        ("erase", po::bool_switch(&t.erase), "erase --offset/--length (sector aligned)")
        ("offset", po::value(&t.offset), "flash address")
        ("length", po::value(&t.length), "bytes")
        ("update_offset", po::value(&t.update_offset), "the multiboot update image's address; the golden image is "
                                                       "below it (default: half the flash)")
        ("overwrite_golden", po::bool_switch(&o.overwrite_golden), "allow writing the golden image")
        ("program", po::bool_switch(&o.program), "really write (without it, a dry run says what would change)")
        ("any_part", po::bool_switch(&o.any_part), "write an image without checking its IDCODE against the design's part")
        ("journal", po::value(&o.journal), "the journal file of a write in progress")
        ("busy_timeout", po::value(&t.busy_timeout), "seconds the flash may stay busy (WIP) after a command");
    if (auto status = cli::parse_fpga_sio_command_line(argc, argv, description,
                                                       "Identifies, reads, compares and programs the configuration "
                                                       "flash behind the AXI Quad SPI of the identified FPGA designs."))
        return *status;
    double busy_seconds = 3;
    if (auto message = flasher::parse_options(t, o, busy_seconds))
        return usage(*message);
    if (o.mode == flasher::Mode::Write || o.mode == flasher::Mode::Erase)
        stop_writes_between_sectors();
    std::string location_error;
    auto locations = tool_support::parse_locations(t.devices, "--device", location_error);
    auto lock_timeout = cli::parse_lock_timeout(t.lock_timeout);
    auto registry = designs::Registry::load(t.design_files);
    if (!locations || !lock_timeout || !registry)
        return usage(!locations      ? location_error
                     : !lock_timeout ? lock_timeout.error().message()
                                     : cli::name_options(registry.error()).message());
    tool_support::DesignSelection selection{t.sim_designs, *locations};
    selection.lock_timeout = *lock_timeout;
    auto opened = tool_support::open_designs(*registry, selection, o.json ? &std::cerr : &std::cout, std::cerr);
    if (opened.found.designs.empty())
        return opened.status;
    const auto busy = std::chrono::milliseconds(static_cast<int64_t>(busy_seconds * 1000));
    int status = opened.status, with_flash = 0;
    std::string json;
    for (const identify::IdentifiedDesign& d : opened.found.designs)
        with_flash += flash::quad_spi_peripheral(*d.design, d.identity.revision) != nullptr;
    if (o.mode != flasher::Mode::Identify && with_flash != 1)
        return usage(std::to_string(with_flash) + " designs with a quad_spi flash found: name one with --device or --sim_design");
    for (const identify::IdentifiedDesign& d : opened.found.designs) {
        if (!flash::quad_spi_peripheral(*d.design, d.identity.revision))
            continue;
        flasher::Target target{d.design->name, d.identity.address.to_string(), d.identity.iommu_group, d.design};
        if (!o.json)
            std::cout << "\nDisplaying information for SPI flash using " << target.design << " design in PCI device "
                      << target.address << " IOMMU group " << target.iommu_group << "\n";
        auto nor = flash::open_flash(*d.device, *d.design, d.identity.revision, {busy, busy, {}});
        if (!nor) {
            std::cerr << "Error: " << target.address << " " << target.design << ": " << nor.error().message() << "\n";
            status = 1;
            continue;
        }
        std::string one;
        int result = 0;
        if (o.mode == flasher::Mode::Identify) {
            result = flasher::identify(*nor, target, o, one, true);
            json += (json.empty() || one.empty() ? "" : ",\n  ") + one;
        } else {
            if (!o.json)
                flasher::identify(*nor, target, {}, one, false);
            flasher::Report report;
            result = flasher::run_mode(*nor, target, o, report, [] { return g_stop != 0; });
            if (o.json)
                std::cout << flasher::to_json(report) << "\n";
        }
        status = status ? status : result;
    }
    if (o.json && o.mode == flasher::Mode::Identify)
        std::cout << "{\"flashes\": [" << (json.empty() ? "" : "\n  " + json + "\n") << "]}\n";
    return status;
}
