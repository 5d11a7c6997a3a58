// The simulated PCI topology behind --access sim: a writable simulated config space and a
// topology of them. Registers honour their access
// types (read-only, read-write, RW1C) byte by byte and every write is recorded, so tests can
// prove what a tool wrote. A simulated downstream port models link training: Retrain Link sets
// Link Training for a number of Link Status reads, then the link comes up at the highest speed
// that the target, the port and its partner all support; Link Bandwidth Management Status is
// set. A port can refuse target speeds, treat Link Control 2 as read-only, ignore Retrain Link
// (as QEMU 7.2's pcie-root-port does) or never finish training.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/registers.hpp"

// Beside the other simulated devices: sim depends on pcie_tools' config-space seam, never the
// other way round (pcie_tools' open_backend is handed this topology by the tool mains).
namespace sim {

namespace reg = pcie::reg;
using pcie::ConfigBackend;
using pcie::ConfigSpace;
using pcie::MemoryConfigSpace;
using pcie::SystemInfo;
using vfio::PciAddress;
using pdt::Result;

struct ConfigWrite {
    uint32_t offset = 0;
    uint32_t length = 0;
    uint32_t value = 0;
};

class SimConfigSpace : public MemoryConfigSpace {
public:
    SimConfigSpace(PciAddress address, std::vector<uint8_t> bytes, std::vector<uint8_t> writable,
                   std::vector<uint8_t> rw1c);
    Result<void> write(uint32_t offset, const void* data, uint32_t length) override;
    const std::vector<ConfigWrite>& writes() const { return m_writes; }

    // Direct access for models and tests (no masks, not recorded).
    void poke16(uint32_t offset, uint16_t value);
    uint16_t peek16(uint32_t offset) const;
    uint32_t peek32(uint32_t offset) const;
    uint16_t express_offset() const;  // 0 when the space has no PCI Express capability

protected:
    virtual void after_write(uint32_t offset, uint32_t length) { (void)offset, (void)length; }

private:
    std::vector<uint8_t> m_writable;
    std::vector<uint8_t> m_rw1c;
    std::vector<ConfigWrite> m_writes;
};

struct PortModel {
    uint8_t refused_speeds = 0;     // bit n set: a Target Link Speed of n is not accepted
    bool lnkctl2_read_only = false;
    uint8_t latch_max_speed = 0;    // > 0: a larger Target Link Speed written latches as this one
    bool ignore_retrain = false;
    int training_reads = 3;         // Link Status reads with Link Training set; < 0: forever
};

class SimDownstreamPort : public SimConfigSpace {
public:
    SimDownstreamPort(PciAddress address, std::vector<uint8_t> bytes, std::vector<uint8_t> writable,
                      std::vector<uint8_t> rw1c, PortModel model);
    void connect(SimConfigSpace* partner) { m_partner = partner; }
    Result<void> read(uint32_t offset, void* data, uint32_t length) override;
    int retrains() const { return m_retrains; }

protected:
    void after_write(uint32_t offset, uint32_t length) override;

private:
    void finish_training();
    PortModel m_model;
    SimConfigSpace* m_partner = nullptr;
    uint16_t m_committed_lnkctl2 = 0;
    int m_training_left = 0;
    int m_retrains = 0;
};

// Registers of a PCI Express capability (version 2 layout).
struct ExpressRegs {
    reg::PortType type = reg::PortType::Endpoint;
    uint8_t version = 2;
    bool slot = false;
    uint32_t devcap = 0, lnkcap = 0, sltcap = 0, devcap2 = 0, lnkcap2 = 0;
    uint16_t devctl = 0, devsta = 0, lnkctl = 0, lnksta = 0, devctl2 = 0, lnkctl2 = 0, lnksta2 = 0;
};

// Builds a config space capability by capability; raw setters allow broken layouts.
class ConfigBuilder {
public:
    ConfigBuilder(uint16_t vendor, uint16_t device, uint32_t class_code, uint8_t header_type = 0);
    ConfigBuilder& set8(uint32_t offset, uint8_t value);
    ConfigBuilder& set16(uint32_t offset, uint16_t value);
    ConfigBuilder& set32(uint32_t offset, uint32_t value);
    ConfigBuilder& bridge_buses(uint8_t primary, uint8_t secondary, uint8_t subordinate);

    uint16_t add_capability(uint8_t id, const std::vector<uint8_t>& body);
    uint16_t add_pm(uint16_t pmc, uint16_t pmcsr);
    uint16_t add_msi(uint16_t flags);
    uint16_t add_msix(uint16_t flags, uint32_t table, uint32_t pba);
    uint16_t add_express(const ExpressRegs& regs);
    uint16_t add_extended(uint16_t id, uint8_t version, const std::vector<uint8_t>& body);
    uint16_t add_aer(uint32_t uncor_status, uint32_t uncor_mask, uint32_t uncor_sever,
                     uint32_t cor_status, uint32_t cor_mask, uint32_t cap_control);
    uint16_t add_dsn(uint64_t serial);

    const std::vector<uint8_t>& bytes() const { return m_bytes; }
    std::unique_ptr<SimConfigSpace> build(PciAddress address) const;
    std::unique_ptr<SimDownstreamPort> build_port(PciAddress address, PortModel model) const;

private:
    void writable16(uint32_t offset, uint16_t mask);
    void rw1c16(uint32_t offset, uint16_t mask);
    std::vector<uint8_t> m_bytes, m_writable, m_rw1c;
    uint16_t m_next_cap = 0x40;
    uint16_t m_last_cap = 0;
    uint16_t m_next_ext = 0;
    uint16_t m_last_ext = 0;
};

// Link Capabilities / Link Status values from a speed code and width.
uint32_t lnkcap_value(uint8_t speed, uint8_t width, uint8_t port_number = 0, uint32_t other = 0);
uint16_t lnksta_value(uint8_t speed, uint8_t width, uint16_t flags = 0);
// Supported Link Speeds vector for codes 1..max.
uint32_t lnkcap2_upto(uint8_t max_speed);

class ConfigTopology : public ConfigBackend {
public:
    std::string name() const override { return "simulated"; }
    SimConfigSpace* add(std::unique_ptr<SimConfigSpace> space, std::string vendor_name = {},
                        std::string device_name = {});
    // Links a port to the device below it: training updates both Link Status registers.
    void connect(const PciAddress& port, const PciAddress& device);
    SimConfigSpace* find(const PciAddress& address);
    Result<std::vector<PciAddress>> devices() override;
    Result<ConfigSpace*> open(const PciAddress& address) override;
    SystemInfo system_info(const PciAddress& address) override;

private:
    std::map<PciAddress, std::unique_ptr<SimConfigSpace>> m_spaces;
    std::map<PciAddress, std::pair<std::string, std::string>> m_names;
};

// The simulated topology behind --access sim:
//   0000:00:01.0 root port, 5 GT/s x16 (as seed 004) -> 0000:01:00.0 FPGA 5 GT/s x4 trained at 2.5 GT/s
//   0000:00:02.0 root port, 8 GT/s x4, refuses 8 GT/s -> 0000:02:00.0 8 GT/s x4 trained at 2.5 GT/s
//   0000:00:03.0 root port, 16 GT/s x16 -> 0000:03:00.0 8 GT/s x8 at 8 GT/s x8 (not downgraded)
std::unique_ptr<ConfigTopology> make_demo_topology();
// The same, as what pcie::open_backend takes for --access sim.
std::unique_ptr<ConfigBackend> open_demo_topology();

}  // namespace sim
