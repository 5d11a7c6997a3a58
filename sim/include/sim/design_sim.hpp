// Simulated instances of known designs: a SimDevice built from a design description (config
// IDs, BAR sizes, peripheral register blocks, the user-access timestamp, an AXI4-Stream Switch,
// the CMAC ports and the XDMA model in the DMA BAR), and a simulated bus of such devices.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "designs/registry.hpp"
#include "sim/bar_memory.hpp"
#include "sim/die_thermal.hpp"
#include "sim/gpio_models.hpp"
#include "sim/peripheral_blocks.hpp"
#include "sim/sim_device.hpp"

namespace sim {

class XdmaModel;
class QdmaModel;
class CmacModel;
class AxiDmaModel;

// The device and handles on its models, for tests and tools that drive the models directly.
struct DesignInstance {
    std::unique_ptr<SimDevice> device;
    std::shared_ptr<XdmaModel> xdma;                 // null when the design has no DMA bridge
    std::shared_ptr<QdmaModel> qdma;                 // null when the design has no QDMA
    std::shared_ptr<AxiStreamSwitchBlock> axi_switch;  // null unless the fabric has a switch
    std::shared_ptr<DieThermal> die;  // what the sensor blocks (XADC, SYSMON, CMS) read
    std::vector<std::shared_ptr<CmacModel>> cmacs;  // the design's CMAC ports, in its order
    std::vector<std::shared_ptr<AxiDmaModel>> axi_dmas;  // the design's AXI DMAs (PG021), in its order
    std::vector<std::shared_ptr<AxiGpioModel>> gpios;  // its DDR reset and M.2 LED GPIOs, in its order
    std::vector<std::shared_ptr<BarMemoryBlock>> bar_memories;  // simulation.bar_memory's regions
};

// The link every simulated XDMA instance has (XdmaConfig::link_bytes_per_second and
// link_latency: a rate per direction and a fixed latency per descriptor); zero: unthrottled.
// Tools set it from --sim_rate_gbps and --sim_latency_us (pcie_link_measure).
struct SimulatedLink {
    double bytes_per_second = 0;
    std::chrono::microseconds latency{0};
};

// The PCI identity a simulated instance of `design` has at `address`.
vfio::DeviceIdentity simulated_identity(const designs::Design& design, const vfio::PciAddress& address,
                                        int iommu_group);
// Size of each BAR of the simulated design (index -> bytes): the design's bar_sizes, else the
// smallest power of two holding everything placed in it (at least 4 KiB; 64 KiB for the DMA BAR).
std::map<unsigned, uint64_t> simulated_bar_sizes(const designs::Design& design);

// Builds the simulated device. Unclaimed BAR space reads all-ones (bit 31 set), as undefined
// AXI reads did on the measured designs. xdma_stepped: the XDMA engines advance only in
// XdmaModel::step() (deterministic tests) instead of on their own thread; so do the QDMA's. `link`: the XDMA
// model's link rate and latency. Fails when PDT_SIM_TEMPERATURE does not parse, or when a file
// that PDT_SIM_BAR_MEMORY_DIR or PDT_SIM_CARD_MEMORY_DIR asks for (<dir>/<design>-<address>-...
// .mem) cannot be opened or mapped.
pdt::Result<DesignInstance> instantiate_design(const designs::Design& design, const vfio::DeviceIdentity& identity,
                                               bool xdma_stepped = false, const SimulatedLink& link = {});

// Where make_design_bus places the n-th design: seed 004's 0000:15:00.0, 0000:2d:00.0,
// 0000:36:00.0 with IOMMU groups 41, 85, 86, then further buses.
vfio::PciAddress simulated_address(size_t index);
int simulated_iommu_group(size_t index);

// One device per named design (a name may repeat), in order. Each open() builds a fresh
// instance: the state a VFIO open leaves after its function reset. ENOENT for an unknown name.
// With lock.directory set, each open() first takes the advisory lock of the simulated address
// (file name prefix "sim-": never a real device's lock), as the kernel bus does; by default
// simulated devices take no lock. `link`: every instance's XDMA link (default unthrottled).
pdt::Result<std::unique_ptr<DesignBus>> make_design_bus(const std::vector<std::string>& design_names,
                                                        const designs::Registry& registry,
                                                        const vfio::LockOptions& lock = {},
                                                        const SimulatedLink& link = {});

}  // namespace sim
