// The registry of copy endpoints: what pcie_link_measure's command line names (--endpoint NAME
// and its options), opened as streams::CopyEndpoint in one call. The model (sim), the card memory
// of an XDMA design (dma_bridge, real or --sim_design) or of a QDMA design (qdma), QEMU's edu
// (edu, real or simulated), a GPU (cuda) and an ET-SoC-1 card (etsoc1): the rows of the adapter
// table (adapters/adapter_table.hpp), whose settings are below. The stream devices' registry is
// adapters/stream_devices.hpp.
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cli/device_options.hpp"
#include "etsoc1/card.hpp"
#include "streams/copy_endpoint.hpp"
#include "sim/model_copy_endpoint.hpp"
#include "tool_support/open_designs.hpp"

namespace adapters {

// --endpoint model: the model of a link and its card (sim::ModelCopyEndpoint).
struct ModelEndpointCli {
    sim::ModelCopyParameters parameters;  // --model_h2c_gbps ... --model_pci_address
    std::string memory;                   // --model_memory (empty: the model's default)
    std::string lie;                      // --model_lie (test only): the model's, or with --edu_sim the edu's
};
// --endpoint xdma: the card memory of an XDMA design (real or --sim_design) through its
// memory-mapped engines. Its design selection (--sim_design, --device, --design_file,
// --lock_timeout, --no_iommu) is qdma's too, and edu takes its --device and --lock_timeout.
struct XdmaEndpointCli {
    std::vector<std::string> sim_designs;   // --sim_design
    std::vector<std::string> devices;       // --device
    std::vector<std::string> design_files;  // --design_file
    std::string lock_timeout;
    bool no_iommu = false;        // --no_iommu (xdma, qdma, edu)
    cli::XdmaModeText modes;      // --engine_mode, --completion
    unsigned queues = 4;          // --xdma_queues: engine pairs used at most
    double sim_rate_gbps = 0;     // --sim_rate_gbps: the simulated design's link rate per direction (0: unthrottled)
    double sim_latency_us = 0;    // --sim_latency_us: its latency per descriptor, whole microseconds
};
// --endpoint qdma: the card memory of a QDMA design (real or --sim_design) through its
// memory-mapped queue pairs; the design is chosen with XdmaEndpointCli's --sim_design, --device,
// --design_file and --lock_timeout.
struct QdmaEndpointCli {
    unsigned queues = 2;           // --qdma_queues: H2C/C2H MM queue pairs
    uint32_t ring_entries = 65;    // --qdma_ring_entries: one of the IP's QDMA_GLBL_RNG_SZ values
    bool interrupts = false;       // --qdma_interrupts: completion by MSI-X through an aggregation ring
};
// --endpoint edu: QEMU's edu bound to vfio-pci, or the simulated edu (--edu_sim), whose lie is
// --model_lie.
struct EduEndpointCli {
    bool sim = false;           // --edu_sim
    double sim_delay_ms = 100;  // --edu_sim_delay_ms: the model's delay from command to transfer
};
// --endpoint cuda: a GPU (built when CMake finds CUDA).
struct CudaEndpointCli {
    std::vector<int> gpus;             // --cuda_device: one GPU (none given: 0)
    unsigned queues = 4;               // --cuda_queues
    std::string memory = "1GiB";       // --cuda_memory: the device allocation copies address
    std::string lie;                   // --cuda_lie (add_cuda_lie_option): a test fault
};
// --endpoint etsoc1: one card of the runtime's (index) or the fake (named: --etsoc1_device fake).
struct Etsoc1EndpointCli : cli::Etsoc1Selection {
    unsigned queues = 4;  // --etsoc1_queues
    std::string memory;   // --etsoc1_memory (empty: 256 MiB)
    std::string window;   // --etsoc1_window (add_etsoc1_window_option)
};

// Every adapter's endpoint options as given, and the tool's transfer timeout.
struct EndpointSettings {
    ModelEndpointCli model;
    XdmaEndpointCli xdma;
    QdmaEndpointCli qdma;
    EduEndpointCli edu;
    CudaEndpointCli cuda;
    Etsoc1EndpointCli etsoc1;
    std::chrono::milliseconds transfer_timeout{5000};  // an ET-SoC-1 endpoint's aborts take no longer
};

// What an opened endpoint copies through besides what it owns, held while it lives.
struct EndpointHolds {
    std::vector<tool_support::DesignUnderTest> designs;  // xdma, qdma: the design (its sensors are watched)
    std::shared_ptr<etsoc1::Card> etsoc1_card;           // etsoc1: the card, which outlives the endpoint
};

class CopyEndpoints {
public:
    // The options of every row of the adapter table, in its order.
    CopyEndpoints();
    const boost::program_options::options_description& options() const { return m_options; }
    // The row named `endpoint` opens it; `adapter` receives the row's name, recorded in the
    // result. a usage error for an unknown endpoint (naming the known ones) or a bad endpoint option.
    pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open(const std::string& endpoint, std::string& adapter);
    // The tool's transfer timeout, before open(): an ET-SoC-1 endpoint's aborts take no longer.
    void set_transfer_timeout(std::chrono::milliseconds timeout) { m_settings.transfer_timeout = timeout; }
    // The design open() opened for --endpoint xdma or qdma (its sensors are watched); valid while the
    // endpoint lives. Empty for the other endpoints.
    const std::vector<tool_support::DesignUnderTest>& designs_under_test() const { return m_holds.designs; }

private:
    boost::program_options::options_description m_options{"Endpoint options"};
    EndpointSettings m_settings;
    EndpointHolds m_holds;
};

}  // namespace adapters
