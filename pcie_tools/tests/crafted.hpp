// Test helper: crafted config spaces (well-formed and broken) built with ConfigBuilder.
#pragma once

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

}  // namespace pcie::test
