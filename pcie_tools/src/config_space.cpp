#include "pcie_tools/config_space.hpp"

#include <cstdio>
#include <cstring>
#include <set>

#include "pcie_tools/backends.hpp"
#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/registers.hpp"

namespace pcie {

Error ConfigSpace::access_error(const char* operation, uint32_t offset, uint32_t length, int code,
                                std::string hint) const {
    char object[96];
    std::snprintf(object, sizeof object, "%s offset 0x%03x (%u bytes)", address().to_string().c_str(),
                  offset, length);
    return pdt::make_error(operation, object, code, std::move(hint));
}

Result<void> ConfigSpace::write(uint32_t offset, const void*, uint32_t length) {
    return access_error("write config", offset, length, EROFS,
                        "this backend is read-only; only pcie_set_speed opens config space for writing");
}

Result<uint8_t> ConfigSpace::read8(uint32_t offset) {
    uint8_t value = 0;
    PDT_CHECK(read(offset, &value, 1));
    return value;
}

Result<uint16_t> ConfigSpace::read16(uint32_t offset) {
    uint8_t bytes[2] = {};
    PDT_CHECK(read(offset, bytes, 2));
    return static_cast<uint16_t>(bytes[0] | bytes[1] << 8);
}

Result<uint32_t> ConfigSpace::read32(uint32_t offset) {
    uint8_t b[4] = {};
    PDT_CHECK(read(offset, b, 4));
    return static_cast<uint32_t>(b[0] | b[1] << 8 | b[2] << 16 | static_cast<uint32_t>(b[3]) << 24);
}

Result<void> ConfigSpace::write16(uint32_t offset, uint16_t value) {
    const uint8_t bytes[2] = {static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8)};
    return write(offset, bytes, 2);
}

Result<std::optional<PciAddress>> ConfigBackend::parent(const PciAddress& address) {
    const auto all = PDT_TRY(devices());
    for (const PciAddress& candidate : all) {
        if (candidate.domain != address.domain || candidate == address)
            continue;
        ConfigSpace* space = PDT_TRY(open(candidate));
        const uint8_t header = PDT_TRY(space->read8(PCI_HEADER_TYPE));
        if ((header & PCI_HEADER_TYPE_MASK) != PCI_HEADER_TYPE_BRIDGE)
            continue;
        const uint8_t secondary = PDT_TRY(space->read8(PCI_SECONDARY_BUS));
        if (secondary == address.bus && secondary != candidate.bus)
            return std::optional<PciAddress>(candidate);
    }
    return std::optional<PciAddress>();
}

SystemInfo ConfigBackend::system_info(const PciAddress&) { return {}; }

Result<PciAddress> parse_bdf(const std::string& text) {
    if (text.size() == 7)  // bb:dd.f as lspci prints it
        return PciAddress::parse("0000:" + text);
    return PciAddress::parse(text);
}

Result<std::vector<PciAddress>> path_to_root(ConfigBackend& bus, const PciAddress& address) {
    std::vector<PciAddress> chain{address};
    std::set<PciAddress> seen{address};
    for (;;) {
        const auto up = PDT_TRY(bus.parent(chain.back()));
        if (!up)
            return chain;
        if (!seen.insert(*up).second)
            return pdt::make_error("walk bridges above", address.to_string(), ELOOP,
                                   "bridge bus numbers form a loop");
        chain.push_back(*up);
    }
}

namespace {
SimulatedTopology& default_simulated_topology() {
    static SimulatedTopology topology;
    return topology;
}
}  // namespace

void set_default_simulated_topology(SimulatedTopology topology) { default_simulated_topology() = std::move(topology); }

Result<std::unique_ptr<ConfigBackend>> open_backend(const std::string& access, bool writable, const vfio::LockOptions& lock,
                                            const SimulatedTopology& simulated) {
    if (access == "libpci")
        return open_libpci_backend(writable);
    if (access == "pciaccess")
        return open_pciaccess_backend(writable);
    if (access.rfind("dump:", 0) == 0) {
        auto bus = PDT_TRY(DumpBackend::load(access.substr(5)));
        return std::unique_ptr<ConfigBackend>(std::move(bus));
    }
    if (access == "sim") {
        const SimulatedTopology& topology = simulated ? simulated : default_simulated_topology();
        if (!topology)
            return pdt::usage_error("choose config-space access", "\"sim\"",
                                    "this program has no simulated topology (sim::open_demo_topology)");
        return topology();
    }
    if (access == "vfio")
        return open_vfio_backend(lock, writable);
    return pdt::usage_error("choose config-space access", "\"" + access + "\"",
                            "expected libpci, pciaccess, vfio, dump:<file> or sim");
}

}  // namespace pcie
