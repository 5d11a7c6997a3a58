// The config-space seam: read (and, for pcie_set_speed only, write) the configuration space of
// a PCI function by address. Backends: libpci (pciutils), libpciaccess, the VFIO config region,
// an `lspci -xxxx` dump file, and a writable simulated space that models link training.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/device_lock.hpp"
#include "vfio_access/pci_address.hpp"

namespace pcie {

using pdt::Error;
using vfio::PciAddress;
using pdt::Result;

// One function's configuration space. Reads outside size() fail; so do writes on read-only
// backends (dump files, backends opened without write access).
class ConfigSpace {
public:
    virtual ~ConfigSpace() = default;
    virtual const PciAddress& address() const = 0;
    // Bytes readable: 64 (unprivileged sysfs), 256 (conventional) or 4096 (extended).
    virtual uint32_t size() const = 0;
    virtual Result<void> read(uint32_t offset, void* data, uint32_t length) = 0;
    virtual Result<void> write(uint32_t offset, const void* data, uint32_t length);

    Result<uint8_t> read8(uint32_t offset);
    Result<uint16_t> read16(uint32_t offset);
    Result<uint32_t> read32(uint32_t offset);
    // A 16-bit write: the only width pcie_set_speed uses, so a write to Link Control never
    // touches the RW1C bits of Link Status in the same dword.
    Result<void> write16(uint32_t offset, uint16_t value);

    // "read config 0000:01:00.0 offset 0x12 (2 bytes)"-style error.
    Error access_error(const char* operation, uint32_t offset, uint32_t length, int code,
                       std::string hint = {}) const;
};

// What the operating system knows about a function beyond config space (sysfs). Empty for
// backends that have no system behind them (dump files, simulation).
struct SystemInfo {
    int iommu_group = -1;
    std::string driver;         // empty: no driver bound
    std::string module;
    std::string physical_slot;  // empty: not in a slot
    int numa_node = -1;
    std::string vendor_name;    // from the PCI ID database; empty when unknown
    std::string device_name;
    std::optional<uint64_t> bar_size[6];  // from the OS (sizing a BAR would need a write)
};

// A config-space access method: a set of functions whose config spaces can be opened -- the
// machine's through libpci or libpciaccess, a dump file, or a simulated topology. (Not to be
// confused with vfio::DeviceBus, the device seam, nor sim::DesignBus, the simulated designs.)
class ConfigBackend {
public:
    virtual ~ConfigBackend() = default;
    virtual std::string name() const = 0;
    virtual Result<std::vector<PciAddress>> devices() = 0;
    // The space stays owned by the backend and valid while the backend lives.
    virtual Result<ConfigSpace*> open(const PciAddress& address) = 0;
    // The bridge above `address` (the type-1 header whose secondary bus is the device's bus),
    // or nullopt for a device on a root bus. The default scans devices().
    virtual Result<std::optional<PciAddress>> parent(const PciAddress& address);
    virtual SystemInfo system_info(const PciAddress& address);
};

// devices() of a backend that keeps its spaces in a map keyed by address: the keys, in order.
template <typename Map>
std::vector<PciAddress> addresses_of(const Map& spaces) {
    std::vector<PciAddress> list;
    for (const auto& [address, space] : spaces)
        list.push_back(address);
    return list;
}

// Parses "dddd:bb:dd.f" or lspci's short "bb:dd.f" (domain 0).
Result<PciAddress> parse_bdf(const std::string& text);

// What --access sim opens: the simulated topology lives in sim/ (sim::open_demo_topology),
// above pcie_tools, so the tool mains hand it in.
using SimulatedTopology = std::function<std::unique_ptr<ConfigBackend>()>;

// The topology --access sim opens when the caller hands none (none unless a program sets one:
// the tool mains hand sim::open_demo_topology to open_backend instead).
void set_default_simulated_topology(SimulatedTopology topology);

// Opens a backend from an --access value: "libpci", "pciaccess", "dump:<file>", "sim" (the
// simulated topology `simulated` makes, else the default one; a usage error when there is none, as for an unknown access).
// `writable` opens the backend for writes (pcie_set_speed only). "vfio" takes the advisory
// device lock of each function it opens (vfio_access/device_lock.hpp).
Result<std::unique_ptr<ConfigBackend>> open_backend(const std::string& access, bool writable,
                                                    const vfio::LockOptions& lock = {},
                                                    const SimulatedTopology& simulated = {});

// The names before F11, for branches written against them; new code uses the names above.
using ConfigBus = ConfigBackend;
inline Result<std::unique_ptr<ConfigBackend>> open_bus(const std::string& access, bool writable,
                                                       const vfio::LockOptions& lock = {}) {
    return open_backend(access, writable, lock);
}

// The chain of bridges from `address` up to its root port, device first.
Result<std::vector<PciAddress>> path_to_root(ConfigBackend& bus, const PciAddress& address);

}  // namespace pcie
