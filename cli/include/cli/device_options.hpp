// The options that name what a tool runs on and how it reports, each defined here once with one
// meaning and one help text, for every tool main that takes it (the rest of a tool's options are
// its own). A main adds the ones it takes:
//
//   po::options_description options("Options");
//   cli::add_sim_design_option(options, cli.sim_designs);
//   cli::add_json_option(options, cli.json, cli::JsonForm::Lines);
//
// --sim_design NAME     a simulated instance of a design instead of the kernel's VFIO devices
// --design_file FILE    more designs (JSON)
// --device BDF          only the device at this PCI location
// --cuda_device N       an NVIDIA GPU by CUDA ordinal
// --etsoc1_device N|fake, --etsoc1_fake K=V,..., --etsoc1_socket PATH   an ET-SoC-1 card
// --engine_mode, --completion   how the XDMA engines run and report completions
// --json                JSON instead of text
// --transfer_timeout S  seconds without a completion that fail the run
// --lock_timeout S      seconds to wait for a device another process holds
// --no_iommu            DMA to devices of no-IOMMU VFIO groups with physical addresses (DANGER)
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "cli/transfer_timeout.hpp"

namespace cli {

void add_sim_design_option(boost::program_options::options_description& options, std::vector<std::string>& designs);
void add_design_file_option(boost::program_options::options_description& options, std::vector<std::string>& files);
// --device (-d).
void add_device_option(boost::program_options::options_description& options, std::vector<std::string>& locations);
// Which devices a tool opens, as given: --device, --sim_design, --design_file (repeatable each);
// tool_support's open_designs reads them.
struct DeviceSelection {
    std::vector<std::string> devices;       // --device
    std::vector<std::string> sim_designs;   // --sim_design
    std::vector<std::string> design_files;  // --design_file
};
// The three options, in that order.
void add_device_selection_options(boost::program_options::options_description& options, DeviceSelection& selection);

// --cuda_device: repeatable; a tool that runs on one GPU takes the first (0 when none is given).
// --<name> moves_nothing|stale_after=N|completes_early: a device that lies (streams/lie.hpp,
// docs/verification.md), a test fault the run must FAIL on; `what` names what lies ("GPU"), as
// the help begins with it. The text is parsed by streams::parse_lie("option --<name>", text).
void add_lie_option(boost::program_options::options_description& options, const char* name, const std::string& what,
                    std::string& text);
void add_cuda_device_option(boost::program_options::options_description& options, std::vector<int>& gpus);

// The ET-SoC-1 card selection, as given (etsoc1::parse_fake_parameters reads `fake`).
struct Etsoc1Selection {
    std::vector<std::string> devices;  // --etsoc1_device N|fake (repeatable)
    std::string fake;                  // --etsoc1_fake key=value,...: the fake card's parameters
    std::string socket;                // --etsoc1_socket: through the runtime daemon
    std::string log;                   // --etsoc1_log: where the runtime's own log goes (empty: the default file)
};
void add_etsoc1_options(boost::program_options::options_description& options, Etsoc1Selection& selection);
// What --etsoc1_device names: how many fake cards, and the runtime's card indices (0..63), in
// the order given. A usage error naming --etsoc1_device for anything else.
struct Etsoc1Cards {
    size_t fakes = 0;
    std::vector<int> indices;
};
pdt::Result<Etsoc1Cards> parse_etsoc1_devices(const std::vector<std::string>& devices);
// An ET-SoC-1 option given but not used by the cards --etsoc1_device names is a usage error
// (pdt::usage_error naming the option and its value), never dropped: --etsoc1_socket and --etsoc1_log need a runtime card
// (--etsoc1_device N), --etsoc1_fake a fake one (--etsoc1_device fake), and with no
// --etsoc1_device every ET-SoC-1 option is unused: the fake is used only when named. `shaping`:
// the tool's own options that shape the cards ({"etsoc1_window", text}; empty text: not given).
struct GivenOption {
    std::string name;  // without the dashes
    std::string text;  // as given; empty: not given
};
pdt::Result<void> check_etsoc1_options_used(const Etsoc1Selection& selection, const std::vector<GivenOption>& shaping);

// --engine_mode auto|credits|stop_list and --completion auto|poll_writeback|completed_count|
// status|interrupt, as given (adapters::dma_mode_request reads them into the driver's typed xdma::ModeRequest).
struct XdmaModeText {
    std::string engine_mode = "auto";
    std::string completion = "auto";
};
void add_xdma_mode_options(boost::program_options::options_description& options, XdmaModeText& modes);
// The driver refuses an engine mode or a completion the XDMA IP lacks in the request's words
// ("engine mode credits: the IP has no descriptor credits ...", xdma::choose_modes, whose
// operations are "choose XDMA engine mode" and "choose XDMA completion"); this names the
// options that asked for it in the hint. Any other error comes back as it is.
pdt::Error name_xdma_mode_options(pdt::Error error);

// --json: JSON Lines (one object per line, as the run goes: the DMA tools) or one document at
// the end (the identification, config-space, VFIO and measurement tools).
enum class JsonForm { Lines, Document };
void add_json_option(boost::program_options::options_description& options, bool& json, JsonForm form);

// --transfer_timeout SECONDS; `seconds` holds the tool's default, which the help text shows.
void add_transfer_timeout_option(boost::program_options::options_description& options, std::string& seconds);

// "<seconds>" > 0 (fractions allowed), at most a day, to the nearest millisecond (at least 1);
// errors name --transfer_timeout. Every tool's one reading of the option.
pdt::Result<std::chrono::milliseconds> parse_transfer_timeout(const std::string& text);
// --lock_timeout SECONDS (the advisory device locks of vfio_access/device_lock.hpp).
void add_lock_timeout_option(boost::program_options::options_description& options, std::string& seconds);
// "<seconds>" >= 0 (fractions allowed), at most a week; "" is 0. Errors name --lock_timeout.
pdt::Result<std::chrono::milliseconds> parse_lock_timeout(const std::string& text);

// --no_iommu: the one opt-in to DMA with physical addresses on devices in no-IOMMU VFIO groups
// (vfio_access/physical_memory.hpp). Without it such a device's first DMA buffer is refused.
void add_no_iommu_option(boost::program_options::options_description& options, bool& allow);

}  // namespace cli
