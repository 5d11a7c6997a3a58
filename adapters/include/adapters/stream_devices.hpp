// The registry of stream devices: what a stream tool's command line names, opened as
// streams::StreamDevice in one call. The designs of the bus (--sim_design designs, else the
// kernel's VFIO devices: adapters/xdma_stream_devices.hpp, and QDMA designs with stream
// routes: adapters/qdma_stream_devices.hpp), or instead the NVIDIA GPUs of
// --cuda_device (cuda_stream/stream_device.hpp) or the ET-SoC-1 cards of --etsoc1_device
// (etsoc1/stream_device.hpp): the rows of the adapter table (adapters/adapter_table.hpp) with
// stream devices. The options that choose and shape these devices are defined here once (in the
// rows' files: adapters/src/cuda.cpp, etsoc1.cpp); the adapters take typed settings.
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/device_options.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "etsoc1/runtime_card.hpp"
#include "streams/lie.hpp"
#include "streams/stream_device.hpp"
#include "tool_support/open_designs.hpp"
#include "tool_support/switch_routes.hpp"

namespace adapters {

using StreamDevices = std::vector<std::unique_ptr<streams::StreamDevice>>;

// --cuda_device and the GPU options of the stream tools, as given.
struct CudaStreamCli {
    std::vector<int> devices;            // --cuda_device (repeatable); empty: not a GPU run
    std::string channels = "1";          // --cuda_channels: channels (CUDA streams) per direction
    std::string host_memory = "pinned";  // --cuda_host_memory pinned|pageable
    std::string reference_seconds = "2"; // --cuda_reference_secs: per mode of the bare loop; 0: none
    std::string corrupt;                 // --cuda_corrupt h2c|c2h,<stream byte offset> (a test fault)
    std::string lie;                     // --cuda_lie: a test fault
    bool loopback = false;               // set by the main: loop C2H back from H2C through the GPU
};
void add_cuda_stream_options(boost::program_options::options_description& description, CudaStreamCli& cli);
// --cuda_lie, for the stream tools and pcie_link_measure alike.
void add_cuda_lie_option(boost::program_options::options_description& description, std::string& text);

// The GPU options, converted (usage errors naming the option).
struct CudaRunOptions {
    unsigned channels = 1;
    bool pinned = true;
    double reference_seconds = 2;  // 0: no reference run
    std::optional<std::pair<bool, uint64_t>> corrupt;  // (h2c?, stream byte offset)
    streams::Lie lie;
};
pdt::Result<CudaRunOptions> cuda_run_options(const CudaStreamCli& cli);
// True when this build has the CUDA adapter.
bool cuda_built();

// --etsoc1_device with --etsoc1_fake/--etsoc1_socket, and the stream tools' ET-SoC-1 options.
struct Etsoc1StreamCli : cli::Etsoc1Selection {
    std::string channels;        // --etsoc1_channels: loopback channel pairs per card (empty: 1)
    std::string window;          // --etsoc1_window (add_etsoc1_window_option)
};
void add_etsoc1_stream_options(boost::program_options::options_description& description, Etsoc1StreamCli& cli);
// --etsoc1_window: copies in flight per direction on one card, 1..4 (the card has 4 DMA
// channels each way); default 4. The stream tools share them among the card's channels.
void add_etsoc1_window_option(boost::program_options::options_description& description, std::string& text);
pdt::Result<unsigned> etsoc1_window(const std::string& text);
// The runtime's options from the card selection (--etsoc1_socket, --etsoc1_log), with a line to
// out naming where the runtime's own log goes.
etsoc1::RuntimeOptions etsoc1_runtime_options(const cli::Etsoc1Selection& cli, std::FILE* out);

// What a stream tool's command line names.
struct StreamDeviceRequest {
    std::vector<std::string> design_files;             // --design_file
    tool_support::DesignSelection designs;             // --sim_design, --lock_timeout, container options
    std::vector<tool_support::DeviceRouting> routing;  // --device_routing
    xdma::ModeRequest modes;                           // --engine_mode, --completion
    CudaStreamCli cuda;
    Etsoc1StreamCli etsoc1;
};

// How the devices will be used: the buffers of each channel (for the GPUs' bare reference run),
// the transfer timeout and DMA mask of the XDMA channels.
struct StreamDeviceUse {
    size_t buffers_per_channel = 64;
    uint64_t bytes_per_channel = 0x40000000;
    std::chrono::milliseconds transfer_timeout{0};
    unsigned dma_mask_bits = 64;
    uint32_t qdma_ring_entries = 0;  // --qdma_ring_entries: QDMA stream queues' rings (0: as the buffers need)
    bool json = false;  // the adapters' lines go to stderr (progress) instead of stdout
};

struct OpenedStreamDevices {
    // 0: devices opened; 1: none could be opened or one failed; kUsageError: a usage error.
    // The reason is on the error stream when status is not 0.
    int status = 0;
    std::unique_ptr<designs::Registry> registry;  // the design data the devices point into
    std::unique_ptr<vfio::DeviceBus> bus;         // the designs' bus: outlives the devices
    StreamDevices devices;
    std::vector<vfio::Device*> kernel_devices;  // the XDMA designs' VFIO devices on the kernel bus
    std::vector<tool_support::DesignUnderTest> designs;  // the XDMA designs opened (their sensors are watched)
};

// Opens what the request names, through the adapter table: the ET-SoC-1 cards, else the GPUs,
// else the designs of the bus (routed, bus master enabled). A card or GPU selection combined
// with designs, or cards with GPUs, is a usage error.
// The GPUs' reference rates go to stdout (text or JSON Lines); the cards' lines and the designs'
// progress ("Opening device", "routes updated") to stdout, or to stderr with use.json; errors to
// `errors`.
OpenedStreamDevices open_stream_devices(const StreamDeviceRequest& request, const StreamDeviceUse& use,
                                        std::ostream& errors);

}  // namespace adapters
