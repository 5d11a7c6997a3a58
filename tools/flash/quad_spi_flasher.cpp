// quad_spi_flasher: the configuration flash behind the AXI Quad SPI core of the identified
// designs. Default: identify every such flash (JEDEC ID, SFDP summary, protection). With one
// design: --read FILE, --compare FILE, --write IMAGE (erase, program, verify the sectors that
// differ) or --erase; writes are a dry run unless --program is given (docs/tools/flash.md).
// Exit status: 0 done (PASS), 1 failure, 2 usage error.
#include <cstdio>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "flash/open_flash.hpp"
#include "flasher.hpp"
#include "tool_support/open_designs.hpp"
#include "vfio_access/numbers.hpp"

namespace po = boost::program_options;

namespace {

struct Text {
    std::vector<std::string> devices, sim_designs, design_files;
    std::string lock_timeout, read, compare, write, offset, length, update_offset, busy_timeout = "3";
    bool erase = false;
};

int usage(const std::string& message) {
    std::cerr << "Error: " << message << "\n";
    return tool_support::kUsageError;
}

// The options' numbers and the one mode; a usage message on error.
std::optional<std::string> parse(const Text& t, flasher::Options& o, double& busy_seconds) {
    const int modes = !t.read.empty() + !t.compare.empty() + !t.write.empty() + t.erase;
    if (modes > 1)
        return "give one of --read, --compare, --write, --erase";
    o.mode = !t.read.empty() ? flasher::Mode::Read : !t.compare.empty() ? flasher::Mode::Compare
             : !t.write.empty() ? flasher::Mode::Write : t.erase ? flasher::Mode::Erase : flasher::Mode::Identify;
    o.file = t.read + t.compare + t.write;
    auto number = [](const char* name, const std::string& text, std::optional<uint64_t>& out) -> std::optional<std::string> {
        if (text.empty())
            return std::nullopt;
        auto value = vfio::parse_size(text);
        if (!value)
            return std::string("--") + name + " " + value.error().message();
        out = *value;
        return std::nullopt;
    };
    if (auto e = number("offset", t.offset, o.offset))
        return e;
    if (auto e = number("length", t.length, o.length))
        return e;
    if (auto e = number("update_offset", t.update_offset, o.update_offset))
        return e;
    auto seconds = vfio::parse_seconds("busy_timeout", t.busy_timeout);
    if (!seconds)
        return seconds.error().message();
    busy_seconds = *seconds;
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Text t;
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
        ("compare", po::value(&t.compare), "compare the flash at --offset with FILE")
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
    if (auto status = cli::parse_command_line(
            argc, argv, {description, cli::fpga_sio_usage(argv[0], "Identifies, reads, compares and programs the "
                                                                   "configuration flash behind the AXI Quad SPI of "
                                                                   "the identified FPGA designs.")}))
        return *status;
    double busy_seconds = 3;
    if (auto message = parse(t, o, busy_seconds))
        return usage(*message);
    std::string location_error;
    auto locations = tool_support::parse_locations(t.devices, "--device", location_error);
    auto lock_timeout = cli::parse_lock_timeout(t.lock_timeout);
    auto registry = designs::Registry::load(t.design_files);
    if (!locations || !lock_timeout || !registry)
        return usage(!locations ? location_error : !lock_timeout ? lock_timeout.error().message() : registry.error().message());
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
        const int result = o.mode == flasher::Mode::Identify ? flasher::identify(*nor, target, o, one)
                                                             : (flasher::identify(*nor, target, {}, one), flasher::run_mode(*nor, target, o));
        json += (json.empty() || one.empty() ? "" : ",\n  ") + one;
        status = status ? status : result;
    }
    if (o.json && o.mode == flasher::Mode::Identify)
        std::cout << "{\"flashes\": [" << (json.empty() ? "" : "\n  " + json + "\n") << "]}\n";
    return status;
}
