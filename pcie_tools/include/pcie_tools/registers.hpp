// Configuration-space register offsets and fields, named as in the PCI Local Bus and PCI Express
// Base specifications (Linux pci_regs.h spelling). Offsets of capability registers are relative
// to the capability.
#pragma once

#include <cstdint>

namespace pcie::reg {

// Type 0/1 header.
inline constexpr uint32_t VENDOR_ID = 0x00;
inline constexpr uint32_t DEVICE_ID = 0x02;
inline constexpr uint32_t COMMAND = 0x04;
inline constexpr uint32_t STATUS = 0x06;
inline constexpr uint32_t REVISION_ID = 0x08;
inline constexpr uint32_t CLASS_PROG = 0x09;
inline constexpr uint32_t HEADER_TYPE = 0x0e;
inline constexpr uint32_t BASE_ADDRESS_0 = 0x10;
inline constexpr uint32_t PRIMARY_BUS = 0x18;    // type 1
inline constexpr uint32_t SECONDARY_BUS = 0x19;  // type 1
inline constexpr uint32_t SUBORDINATE_BUS = 0x1a;
inline constexpr uint32_t SUBSYSTEM_VENDOR_ID = 0x2c;  // type 0
inline constexpr uint32_t SUBSYSTEM_ID = 0x2e;
inline constexpr uint32_t CAPABILITY_LIST = 0x34;
inline constexpr uint32_t INTERRUPT_PIN = 0x3d;

inline constexpr uint16_t COMMAND_IO = 0x0001;
inline constexpr uint16_t COMMAND_MEMORY = 0x0002;
inline constexpr uint16_t COMMAND_MASTER = 0x0004;
inline constexpr uint16_t COMMAND_PARITY = 0x0040;
inline constexpr uint16_t COMMAND_SERR = 0x0100;
inline constexpr uint16_t COMMAND_INTX_DISABLE = 0x0400;

inline constexpr uint16_t STATUS_INTERRUPT = 0x0008;
inline constexpr uint16_t STATUS_CAP_LIST = 0x0010;
inline constexpr uint16_t STATUS_PARITY = 0x0100;          // Master Data Parity Error
inline constexpr uint16_t STATUS_SIG_TARGET_ABORT = 0x0800;
inline constexpr uint16_t STATUS_REC_TARGET_ABORT = 0x1000;
inline constexpr uint16_t STATUS_REC_MASTER_ABORT = 0x2000;
inline constexpr uint16_t STATUS_SIG_SYSTEM_ERROR = 0x4000;
inline constexpr uint16_t STATUS_DETECTED_PARITY = 0x8000;
// Status bits that software clears by writing 1 (RW1C).
inline constexpr uint16_t STATUS_RW1C = 0xf900;

inline constexpr uint8_t HEADER_TYPE_MASK = 0x7f;
inline constexpr uint8_t HEADER_TYPE_NORMAL = 0;
inline constexpr uint8_t HEADER_TYPE_BRIDGE = 1;
inline constexpr uint8_t HEADER_TYPE_CARDBUS = 2;

// Capability IDs.
inline constexpr uint8_t CAP_ID_PM = 0x01;
inline constexpr uint8_t CAP_ID_MSI = 0x05;
inline constexpr uint8_t CAP_ID_VNDR = 0x09;
inline constexpr uint8_t CAP_ID_SSVID = 0x0d;
inline constexpr uint8_t CAP_ID_EXP = 0x10;
inline constexpr uint8_t CAP_ID_MSIX = 0x11;

// Extended capability IDs.
inline constexpr uint16_t EXT_CAP_ID_ERR = 0x0001;  // Advanced Error Reporting
inline constexpr uint16_t EXT_CAP_ID_DSN = 0x0003;  // Device Serial Number
inline constexpr uint32_t EXT_CAP_START = 0x100;

// Power Management capability.
inline constexpr uint32_t PM_PMC = 0x02;
inline constexpr uint32_t PM_CTRL = 0x04;

// MSI capability.
inline constexpr uint32_t MSI_FLAGS = 0x02;
inline constexpr uint16_t MSI_FLAGS_ENABLE = 0x0001;
inline constexpr uint16_t MSI_FLAGS_64BIT = 0x0080;
inline constexpr uint16_t MSI_FLAGS_MASKBIT = 0x0100;
inline constexpr uint32_t MSI_ADDRESS_LO = 0x04;

// MSI-X capability.
inline constexpr uint32_t MSIX_FLAGS = 0x02;
inline constexpr uint32_t MSIX_TABLE = 0x04;
inline constexpr uint32_t MSIX_PBA = 0x08;
inline constexpr uint16_t MSIX_FLAGS_QSIZE = 0x07ff;
inline constexpr uint16_t MSIX_FLAGS_MASKALL = 0x4000;
inline constexpr uint16_t MSIX_FLAGS_ENABLE = 0x8000;

// PCI Express capability.
inline constexpr uint32_t EXP_FLAGS = 0x02;
inline constexpr uint32_t EXP_DEVCAP = 0x04;
inline constexpr uint32_t EXP_DEVCTL = 0x08;
inline constexpr uint32_t EXP_DEVSTA = 0x0a;
inline constexpr uint32_t EXP_LNKCAP = 0x0c;
inline constexpr uint32_t EXP_LNKCTL = 0x10;
inline constexpr uint32_t EXP_LNKSTA = 0x12;
inline constexpr uint32_t EXP_SLTCAP = 0x14;
inline constexpr uint32_t EXP_SLTCTL = 0x18;
inline constexpr uint32_t EXP_SLTSTA = 0x1a;
inline constexpr uint32_t EXP_RTCTL = 0x1c;
inline constexpr uint32_t EXP_RTCAP = 0x1e;
inline constexpr uint32_t EXP_RTSTA = 0x20;
inline constexpr uint32_t EXP_DEVCAP2 = 0x24;
inline constexpr uint32_t EXP_DEVCTL2 = 0x28;
inline constexpr uint32_t EXP_DEVSTA2 = 0x2a;
inline constexpr uint32_t EXP_LNKCAP2 = 0x2c;
inline constexpr uint32_t EXP_LNKCTL2 = 0x30;
inline constexpr uint32_t EXP_LNKSTA2 = 0x32;
inline constexpr uint32_t EXP_V1_SIZE = 0x14;  // capability size without slot registers
inline constexpr uint32_t EXP_V2_SIZE = 0x3c;

inline constexpr uint16_t EXP_FLAGS_VERS = 0x000f;
inline constexpr uint16_t EXP_FLAGS_TYPE = 0x00f0;
inline constexpr uint16_t EXP_FLAGS_SLOT = 0x0100;
inline constexpr uint16_t EXP_FLAGS_IRQ = 0x3e00;

// Device/Port Type values of EXP_FLAGS_TYPE.
enum class PortType : uint8_t {
    Endpoint = 0x0,
    LegacyEndpoint = 0x1,
    RootPort = 0x4,
    Upstream = 0x5,
    Downstream = 0x6,
    PciBridge = 0x7,
    PcieBridge = 0x8,
    RcIntegratedEndpoint = 0x9,
    RcEventCollector = 0xa,
};

inline constexpr uint16_t EXP_LNKCTL_ASPMC = 0x0003;
inline constexpr uint16_t EXP_LNKCTL_RCB = 0x0008;
inline constexpr uint16_t EXP_LNKCTL_LD = 0x0010;   // Link Disable
inline constexpr uint16_t EXP_LNKCTL_RL = 0x0020;   // Retrain Link
inline constexpr uint16_t EXP_LNKCTL_CCC = 0x0040;  // Common Clock Configuration
inline constexpr uint16_t EXP_LNKCTL_ES = 0x0080;
inline constexpr uint16_t EXP_LNKCTL_CLKREQ_EN = 0x0100;
inline constexpr uint16_t EXP_LNKCTL_HAWD = 0x0200;
inline constexpr uint16_t EXP_LNKCTL_LBMIE = 0x0400;
inline constexpr uint16_t EXP_LNKCTL_LABIE = 0x0800;

inline constexpr uint16_t EXP_LNKSTA_CLS = 0x000f;   // Current Link Speed
inline constexpr uint16_t EXP_LNKSTA_NLW = 0x03f0;   // Negotiated Link Width
inline constexpr uint16_t EXP_LNKSTA_LT = 0x0800;    // Link Training
inline constexpr uint16_t EXP_LNKSTA_SLC = 0x1000;   // Slot Clock Configuration
inline constexpr uint16_t EXP_LNKSTA_DLLLA = 0x2000; // Data Link Layer Link Active
inline constexpr uint16_t EXP_LNKSTA_LBMS = 0x4000;  // Link Bandwidth Management Status (RW1C)
inline constexpr uint16_t EXP_LNKSTA_LABS = 0x8000;  // Link Autonomous Bandwidth Status (RW1C)

inline constexpr uint32_t EXP_LNKCAP_SLS = 0x0000000f;
inline constexpr uint32_t EXP_LNKCAP_MLW = 0x000003f0;
inline constexpr uint32_t EXP_LNKCAP2_SLS = 0x000000fe;  // Supported Link Speeds vector
inline constexpr uint16_t EXP_LNKCTL2_TLS = 0x000f;      // Target Link Speed
inline constexpr uint16_t EXP_LNKCTL2_HASD = 0x0020;     // Hardware Autonomous Speed Disable

// Advanced Error Reporting extended capability.
inline constexpr uint32_t ERR_UNCOR_STATUS = 0x04;
inline constexpr uint32_t ERR_UNCOR_MASK = 0x08;
inline constexpr uint32_t ERR_UNCOR_SEVER = 0x0c;
inline constexpr uint32_t ERR_COR_STATUS = 0x10;
inline constexpr uint32_t ERR_COR_MASK = 0x14;
inline constexpr uint32_t ERR_CAP = 0x18;
inline constexpr uint32_t ERR_HEADER_LOG = 0x1c;
inline constexpr uint32_t ERR_ROOT_COMMAND = 0x2c;
inline constexpr uint32_t ERR_ROOT_STATUS = 0x30;
inline constexpr uint32_t ERR_ROOT_COR_SRC = 0x34;  // ERR_COR Source ID; ERR_FATAL/NONFATAL at 0x36

}  // namespace pcie::reg
