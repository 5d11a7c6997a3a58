// Command-line plumbing shared by the stream tool mains: the options they have in common,
// their conversion (usage errors exit 2), and running a tool's body on the stream devices the
// adapter registry opens for them (adapters/stream_devices.hpp).
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/device_options.hpp"
#include "stream_tools/stream_tools.hpp"
#include "tool_support/board_health.hpp"
#include "adapters/stream_devices.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace stream_tools {

// Every tool main calls this first: stdout line-buffered even into a pipe or a file, so a
// run killed by a timeout leaves every line it printed.
inline void line_buffer_stdout() { std::setvbuf(stdout, nullptr, _IOLBF, 0); }

// The most --verify_threads a run may ask for.
inline constexpr unsigned kMaxVerifyThreads = 256;

struct CommonCli {
    std::vector<std::string> sim_designs;
    std::vector<std::string> design_files;
    std::vector<std::string> device_routing;
    std::string buffer_allocation = "heap";
    std::string stream_mapping_size = "0x40000000";
    std::string stream_num_descriptors = "64";
    std::string duration;
    std::string report_interval = "10";
    std::string transfer_timeout = std::to_string(cli::kDefaultTransferTimeout.count());
    std::string host_memory_limit;  // empty: default_host_memory_limit()
    bool a32 = false;
    bool isolate_iommu_groups = false;
    bool h2c_replay = false;  // --h2c_replay (stream_test::Options::h2c_replay)
    int verify_threads = -1;  // -1: chosen from the number of cores; at most kMaxVerifyThreads
    bool json = false;
    cli::XdmaModeText modes;  // --engine_mode, --completion
    std::string qdma_ring_entries = "0";  // --qdma_ring_entries: QDMA stream queues' rings (0: as the buffers need)
    std::string lock_timeout;          // --lock_timeout seconds ("": 0, fail at once on a busy device)
    bool one_container_for_mappings = false;  // --use_one_container_for_mappings
    bool no_iommu = false;                    // --no_iommu
    adapters::CudaStreamCli cuda;      // --cuda_device and its options (the mains that take them)
    adapters::Etsoc1StreamCli etsoc1;  // --etsoc1_device and its options (the mains that take them)
    tool_support::BoardHealthCli health;   // --max_temperature, --metrics
};

// The --host_memory_limit help text (the stream tools and test_dma_bridge).
const char* host_memory_limit_help();

void add_common_options(boost::program_options::options_description& description, CommonCli& cli);

// The board-health watch of a run on `designs` (--max_temperature, --metrics), named after the
// program. On an error it prints "Error: <message>", sets `status` (2 for a usage error, else
// 1) and returns null.
std::unique_ptr<tool_support::BoardHealth> open_board_health(const tool_support::BoardHealthCli& cli,
                                                             const std::vector<tool_support::DesignUnderTest>& designs,
                                                             bool json, int& status);
// --engine_mode and --completion (adapters/xdma_stream_devices.hpp).
using adapters::dma_mode_request;

// Parses argv into description; returns an exit status when the run ends here (--help: 0,
// usage error: 2, with the message on stderr).
std::optional<int> parse_command_line(int argc, char** argv, const boost::program_options::options_description& description,
                                      const char* summary);

// Converts the common options; errors are usage errors.
pdt::Result<StreamRunOptions> run_options(const CommonCli& cli);
pdt::Result<std::vector<ChannelSelector>> channel_selectors(const std::string& option,
                                                            const std::vector<std::string>& texts);

// Opens the stream devices the command line names (adapters::open_stream_devices) and calls
// body with them; returns body's exit status, 1 when the devices cannot be opened, 2 for a usage
// error. Ctrl-C (SIGINT) stops the run in body.
int run_on_stream_devices(const CommonCli& cli,
                          const std::function<int(const std::vector<streams::StreamDevice*>&, const StreamRunOptions&)>& body);

}  // namespace stream_tools
