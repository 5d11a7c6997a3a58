// Configuration-space registers and fields come from the kernel's UAPI header <linux/pci_regs.h>
// (PCI_* names; offsets of capability registers are relative to the capability). This file adds
// only what that header (linux-libc-dev 6.1) does not define, named in its spelling.
#pragma once

#include <linux/pci_regs.h>

#include <cstdint>

// Header Type's layout field: the mask came to the header with Linux 6.7 (Debian 12's 6.1 headers
// carry it as a backport); older headers name only the register.
#ifndef PCI_HEADER_TYPE_MASK
#define PCI_HEADER_TYPE_MASK 0x7f
#endif

namespace pcie::reg {

// Status bits that software clears by writing 1 (RW1C): Master Data Parity Error and bits 11-15.
inline constexpr uint16_t STATUS_RW1C = 0xf900;

// Size of a version 2 PCI Express capability including the Slot 2 registers (the header's
// PCI_CAP_EXP_ENDPOINT_SIZEOF_V2 ends after the Link 2 registers).
inline constexpr uint32_t EXP_V2_SIZE = 0x3c;

// Supported Link Speeds vector of Link Capabilities 2 (the header names its bits one by one).
inline constexpr uint32_t EXP_LNKCAP2_SLS = 0x000000fe;

// Device/Port Type values of PCI_EXP_FLAGS_TYPE.
enum class PortType : uint8_t {
    Endpoint = PCI_EXP_TYPE_ENDPOINT,
    LegacyEndpoint = PCI_EXP_TYPE_LEG_END,
    RootPort = PCI_EXP_TYPE_ROOT_PORT,
    Upstream = PCI_EXP_TYPE_UPSTREAM,
    Downstream = PCI_EXP_TYPE_DOWNSTREAM,
    PciBridge = PCI_EXP_TYPE_PCI_BRIDGE,
    PcieBridge = PCI_EXP_TYPE_PCIE_BRIDGE,
    RcIntegratedEndpoint = PCI_EXP_TYPE_RC_END,
    RcEventCollector = PCI_EXP_TYPE_RC_EC,
};

}  // namespace pcie::reg
