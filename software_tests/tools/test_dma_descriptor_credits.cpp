// test_dma_descriptor_credits: the Descriptor Credits register, then rings of 1023 descriptors
// driven only by credits (memory pages, or growing stream messages per loopback route). Or one of
// fpga_sio's experiments instead (credits_modes.hpp): -r the registers across VFIO_DEVICE_RESET,
// -f/-a/-b/-m what fork() does to pinned DMA buffers, -o IOVA offsets that provoke IOMMU faults.
// Exit status: 0 every design passed, 1 a failure or nothing tested, 2 usage error.
#include <iostream>

#include "cli/option_names.hpp"
#include "stream_tools/cli.hpp"
#include "stream_tools/credits_modes.hpp"
#include "stream_tools/descriptor_credits.hpp"
#include "stream_tools/failure_report.hpp"
#include "tool_support/device_locks.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;
using namespace stream_tools;

int main(int argc, char** argv) {
    line_buffer_stdout();
    std::vector<std::string> devices, routing_texts, sim_designs, design_files;
    std::string transfer_timeout = std::to_string(cli::kDefaultTransferTimeout.count());
    bool a32 = false, json = false, isolate_iommu_groups = false;
    cli::XdmaModeText mode_text;
    std::string lock_timeout_text;
    po::options_description d;
    cli::add_device_option(d, devices);
    d.add_options()("device_routing,s", po::value(&routing_texts)->composing(), "<bdf>[,<master>:<slave>]... switch routes");
    cli::add_sim_design_option(d, sim_designs);
    cli::add_design_file_option(d, design_files);
    cli::add_transfer_timeout_option(d, transfer_timeout);
    d.add_options()
        ("a32,3", po::bool_switch(&a32), "IOVAs of every DMA buffer and descriptor ring below 4 GiB (32-bit DMA mask)")
        ("isolate_iommu_groups", po::bool_switch(&isolate_iommu_groups), "one VFIO container (IOVA space) per IOMMU group; a running VFIO manager decides this itself");
    cli::add_json_option(d, json, cli::JsonForm::Lines);
    cli::add_lock_timeout_option(d, lock_timeout_text);
    bool no_iommu = false;
    cli::add_no_iommu_option(d, no_iommu);
    cli::add_xdma_mode_options(d, mode_text);
    CreditsModeTexts mode_texts;
    add_credits_mode_options(d, mode_texts);
    if (auto status = parse_command_line(argc, argv, d, "Tests XDMA descriptor credits."))
        return *status;
    CreditsOptions options;
    options.json = json;
    options.dma_mask_bits = a32 ? 32 : 64;
    auto modes = dma_mode_request(mode_text);
    if (!modes.ok()) {
        std::cerr << "Error: " << modes.error().message() << "\n";
        return 2;
    }
    if (modes->mode == xdma::EngineModeRequest::StopList) {
        std::cerr << "Error: --engine_mode stop_list: this tool tests descriptor credits, which only a credits ring "
                     "uses (auto or credits)\n";
        return 2;
    }
    options.modes = *modes;
    auto timeout = cli::parse_transfer_timeout(transfer_timeout);
    if (!timeout.ok()) {
        std::cerr << "Error: " << timeout.error().message() << "\n";
        return 2;
    }
    options.timeout = *timeout;
    auto lock_timeout = cli::parse_lock_timeout(lock_timeout_text);
    if (!lock_timeout.ok()) {
        std::cerr << "Error: " << lock_timeout.error().message() << "\n";
        return 2;
    }
    std::string usage;
    auto locations = tool_support::parse_locations(devices, "--device", usage);
    if (!locations) {
        std::cerr << "Error: " << usage << "\n";
        return 2;
    }
    for (const std::string& text : routing_texts) {
        auto routing = parse_device_routing("device_routing", text);
        if (!routing.ok()) {
            std::cerr << "Error: " << routing.error().message() << "\n";
            return 2;
        }
        options.routing.push_back(*routing);
    }
    auto registry = designs::Registry::load(design_files);
    auto experiments = parse_credits_modes(mode_texts);
    if (!registry.ok() || !experiments.ok()) {
        std::cerr << "Error: " << cli::name_options(registry.ok() ? experiments.error() : registry.error()).message()
                  << "\n";
        return 2;
    }
    if (experiments->any()) {  // -r or -f: an experiment instead of the credit tests
        if (!experiments->edu_sim && sim_designs.empty() && devices.empty()) {
            std::cerr << "Error: name the device: --device BDF (any vfio-pci device), --sim_design NAME or --edu_sim\n";
            return 2;
        }
        const tool_support::TargetSelection selection{sim_designs, devices};
        if (experiments->iova_offsets)
            return run_iova_offsets(*registry, selection, *experiments->iova_offsets, experiments->edu_sim, stdout);
        return experiments->fork ? run_fork_test(*registry, selection, *experiments->fork, experiments->edu_sim, stdout)
                                 : run_reset_test(*registry, selection, experiments->edu_sim, stdout);
    }
    std::ostream& text = json ? std::cerr : std::cout;  // --json: stdout holds only JSON Lines
    tool_support::DesignSelection selection{sim_designs, *locations, *lock_timeout, isolate_iommu_groups};
    selection.no_iommu = no_iommu;
    tool_support::OpenedDesigns opened = tool_support::open_designs(*registry, selection, &text, std::cerr);
    if (opened.found.designs.empty()) {
        if (opened.status != tool_support::kUsageError)
            std::cout << (json ? kNothingOpenedJson : "Overall FAIL\n");
        return opened.status;
    }
    report_dma_failures(json ? stderr : stdout);  // registers and AER on a DMA failure
    const int status = run_descriptor_credits(opened.found.designs, options, stdout);
    if (json)
        tool_support::report_device_holds(stdout);
    return opened.status == 0 ? status : opened.status;
}
