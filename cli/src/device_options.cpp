#include "cli/device_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "base/numbers.hpp"

namespace po = boost::program_options;

namespace cli {

void add_sim_design_option(po::options_description& options, std::vector<std::string>& designs) {
    options.add_options()("sim_design", po::value(&designs)->composing(),
                          "a simulated instance of this design instead of the kernel's VFIO devices (repeatable)");
}

void add_design_file_option(po::options_description& options, std::vector<std::string>& files) {
    options.add_options()("design_file", po::value(&files)->composing(),
                          "add the designs of this JSON file to the built-in ones (repeatable)");
}

void add_device_option(po::options_description& options, std::vector<std::string>& locations) {
    options.add_options()("device,d", po::value(&locations)->composing(),
                          "only the device at this PCI location dddd:bb:dd.f (repeatable)");
}

void add_device_selection_options(po::options_description& options, DeviceSelection& selection) {
    add_device_option(options, selection.devices);
    add_sim_design_option(options, selection.sim_designs);
    add_design_file_option(options, selection.design_files);
}

void add_lie_option(po::options_description& options, const char* name, const std::string& what, std::string& text) {
    const std::string help = what + " test fault (the run must FAIL): moves_nothing, stale_after=N or completes_early: "
                             "transfers complete as usual but move no data / none after the first N (both directions) "
                             "/ complete before their last 64 bytes land (docs/verification.md)";
    options.add_options()(name, po::value(&text), help.c_str());
}

void add_cuda_device_option(po::options_description& options, std::vector<int>& gpus) {
    options.add_options()("cuda_device", po::value(&gpus)->composing(),
                          "run on this NVIDIA GPU (CUDA ordinal, repeatable) instead of FPGA designs");
}

void add_etsoc1_options(po::options_description& options, Etsoc1Selection& selection) {
    options.add_options()
        ("etsoc1_device", po::value(&selection.devices)->composing(),
         "run on this Esperanto ET-SoC-1 card (the runtime's index, repeatable) or `fake` (the fake card) instead of "
         "FPGA designs")
        ("etsoc1_fake", po::value(&selection.fake),
         "ET-SoC-1 fake card parameters key=value,... (memcpy_gbps, dma_gbps, link_gbps, poll_busy_us, poll_idle_us, "
         "collision, ...; faults corrupt_h2c_byte, copy_error_at, hang_at; lies moves_nothing=1, stale_after=N, "
         "completes_early=1 (docs/verification.md): see etsoc1/README.md)")
        ("etsoc1_socket", po::value(&selection.socket),
         "ET-SoC-1: use the runtime daemon at this socket (e.g. /var/run/et_runtime/pcie.sock) instead of opening the "
         "card in this process")
        ("etsoc1_log", po::value(&selection.log),
         "ET-SoC-1: append the runtime's own log (its warnings, errors and traces) to this file, `-` for stderr "
         "(default: a file of this run in the temp directory, named on the first line)");
}

pdt::Result<Etsoc1Cards> parse_etsoc1_devices(const std::vector<std::string>& devices) {
    Etsoc1Cards cards;
    for (const std::string& text : devices)
        if (text == "fake")
            ++cards.fakes;
        else
            cards.indices.push_back(static_cast<int>(PDT_TRY(pdt::parse_number("etsoc1_device", text, 0, 63))));
    return cards;
}

namespace {

pdt::Error unused_option(const std::string& name, const std::string& text, const std::string& why) {
    return pdt::usage_error("option --" + name + " \"" + text + "\" is not used", "", why);
}

}  // namespace

pdt::Result<void> check_etsoc1_options_used(const Etsoc1Selection& selection, const std::vector<GivenOption>& shaping) {
    const Etsoc1Cards cards = PDT_TRY(parse_etsoc1_devices(selection.devices));
    if (selection.devices.empty()) {
        const std::string why = "it shapes an ET-SoC-1 card, and no --etsoc1_device names one (N: a card of the "
                                "runtime, fake: the fake card)";
        if (!selection.socket.empty())
            return unused_option("etsoc1_socket", selection.socket, why);
        if (!selection.fake.empty())
            return unused_option("etsoc1_fake", selection.fake, why);
        if (!selection.log.empty())
            return unused_option("etsoc1_log", selection.log, why);
        for (const GivenOption& option : shaping)
            if (!option.text.empty())
                return unused_option(option.name, option.text, why);
        return {};
    }
    if (!selection.socket.empty() && cards.indices.empty())
        return unused_option("etsoc1_socket", selection.socket,
                             "it names the runtime daemon of the cards --etsoc1_device N names, and only the fake "
                             "card is named");
    if (!selection.log.empty() && cards.indices.empty())
        return unused_option("etsoc1_log", selection.log,
                             "it is where the runtime of the cards --etsoc1_device N names logs, and only the fake "
                             "card is named");
    if (!selection.fake.empty() && cards.fakes == 0)
        return unused_option("etsoc1_fake", selection.fake,
                             "it shapes the fake card, and --etsoc1_device names only cards of the runtime");
    return {};
}

void add_xdma_mode_options(po::options_description& options, XdmaModeText& modes) {
    options.add_options()
        ("engine_mode", po::value(&modes.engine_mode),
         "auto (default: credits when the XDMA IP has them, else stop_list), credits, or stop_list "
         "(STOP-terminated descriptor lists)")
        ("completion", po::value(&modes.completion),
         "auto (default: poll_writeback when the IP has it, else completed_count), poll_writeback, "
         "completed_count, status (stop_list only) or interrupt (MSI)");
}

pdt::Error name_xdma_mode_options(pdt::Error error) {
    if (error.operation == "choose XDMA engine mode")
        error.hint += "; option --engine_mode";
    else if (error.operation == "choose XDMA completion")
        error.hint += "; options --completion and --engine_mode";
    return error;
}

void add_json_option(po::options_description& options, bool& json, JsonForm form) {
    options.add_options()("json", po::bool_switch(&json),
                          form == JsonForm::Lines
                              ? "print JSON Lines instead of text: one object per line as the run goes "
                                "(docs/tools/common.md)"
                              : "print one JSON document instead of text");
}

void add_transfer_timeout_option(po::options_description& options, std::string& seconds) {
    const std::string help = "seconds without a completion that fail the run (default " + seconds + ")";
    options.add_options()("transfer_timeout", po::value(&seconds), help.c_str());  // Boost copies the text
}

pdt::Result<std::chrono::milliseconds> parse_transfer_timeout(const std::string& text) {
    const double seconds = PDT_TRY(pdt::parse_seconds("transfer_timeout", text));
    if (seconds > 86400)
        return pdt::usage_error("parse option --transfer_timeout", text, "expected seconds above 0, at most a day");
    return std::chrono::milliseconds(std::max<int64_t>(1, std::llround(seconds * 1000.0)));
}

void add_lock_timeout_option(po::options_description& options, std::string& seconds) {
    options.add_options()("lock_timeout", po::value(&seconds),
                          "seconds to wait for a device another process holds (default 0: fail at once, naming the "
                          "holder's user, PID, tool and since when). Every tool takes an advisory lock per device in "
                          "$PDT_LOCK_DIR, else /run/lock/pcie-dma-toolkit; --sim_design designs take none");
}

pdt::Result<std::chrono::milliseconds> parse_lock_timeout(const std::string& text) {
    if (text.empty())
        return std::chrono::milliseconds(0);
    char* end = nullptr;
    errno = 0;
    const double seconds = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || errno != 0 || !std::isfinite(seconds) || seconds < 0 ||
        seconds > 7 * 24 * 3600.0)
        return pdt::usage_error("parse option --lock_timeout", text,
                                "expected seconds to wait for a busy device, 0 or more");
    return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000.0)));
}

void add_no_iommu_option(po::options_description& options, bool& allow) {
    options.add_options()("no_iommu", po::bool_switch(&allow),
                          "DANGER: allow DMA to devices in no-IOMMU VFIO groups (/dev/vfio/noiommu-N), given physical "
                          "addresses that can reach all of RAM. Buffers are locked huge pages (a mounted hugetlbfs "
                          "with free pages; root for pagemap) inside the device's DMA mask. Without it such devices' "
                          "DMA is refused");
}

}  // namespace cli
