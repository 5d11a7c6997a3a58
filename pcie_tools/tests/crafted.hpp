// Test helper: crafted config spaces (well-formed and broken) built with ConfigBuilder.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "sim/config_topology.hpp"

namespace pcie::test {

using namespace ::sim;  // ConfigBuilder and the simulated config spaces

struct Crafted {
    std::string name;
    PciAddress address;
    std::vector<uint8_t> bytes;
};

// Well-formed functions of every port type with unusual register values.
std::vector<Crafted> crafted_devices();
// Broken layouts: capability loop, chain to 0xff, pointer into the header, extended loop,
// truncated (256-byte) capture of a PCIe device, unknown IDs.
std::vector<Crafted> broken_devices();
// Capabilities and function kinds QEMU cannot make: DPC, L1 PM Substates, SR-IOV, PCI-X, ...
std::vector<Crafted> crafted_capability_devices();
// CXL DVSECs, Multicast, Root Complex Link Declaration, Enhanced Allocation and VPD.
std::vector<Crafted> crafted_cxl_devices();
// All of them as one lspci -xxxx text.
std::string crafted_dump(const std::vector<Crafted>& devices);

// Function `fn` of device `dev` on bus `bus`, domain 0.
inline PciAddress at(uint8_t bus, uint8_t dev, uint8_t fn = 0) { return PciAddress{0, bus, dev, fn}; }

// A capability body from little-endian dwords.
inline std::vector<uint8_t> dwords(std::initializer_list<uint32_t> values) {
    std::vector<uint8_t> out;
    for (uint32_t v : values)
        for (int i = 0; i < 4; ++i)
            out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return out;
}

}  // namespace pcie::test
