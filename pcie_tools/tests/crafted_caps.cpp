// Crafted config spaces for the capabilities and function kinds QEMU 7.2 cannot make: DPC,
// L1 PM Substates, LTR, Resizable BAR, PTM, Virtual Channel, DVSEC, Data Link Feature, the 16
// and 32 GT/s physical layer, Lane Margining, Advanced Features, PRI, PASID, SR-IOV, ATS, ACS,
// Subsystem, PCI-X bridge and device, a Root Complex Event Collector and an integrated endpoint.
// Register values are ones the PCIe 6.0 base specification allows (chapter 7 layouts).
#include "crafted.hpp"

namespace pcie::test {
namespace {

ExpressRegs gen4_endpoint() {
    ExpressRegs r;
    r.type = reg::PortType::Endpoint;
    r.devcap = 0x10008fe2;  // MPS 512, ExtTag, L0s/L1 latency, RBE, FLR
    r.devctl = 0x2936;      // MPS 256, MRRS 512, RlxdOrd, ExtTag, NoSnoop
    r.lnkcap = lnkcap_value(4, 8, 0, 0x00437c00);
    r.lnkctl = 0x0042;
    r.lnksta = lnksta_value(4, 8, 0x1000);
    r.devcap2 = 0x0073099f;  // ranges ABCD, TimeoutDis, LTR, 10-bit tags, OBFF, 32/64-bit AtomicOp completer
    r.devctl2 = 0x0445;
    r.lnkcap2 = lnkcap2_upto(4);
    r.lnkctl2 = 0x1004;      // target 16 GT/s, compliance preset 1
    r.lnksta2 = 0x001f;
    return r;
}

Crafted endpoint_with_every_capability() {
    ConfigBuilder b(0x10ee, 0x903f, 0x058000);
    b.set32(PCI_BASE_ADDRESS_0, 0xfb000000).set16(PCI_COMMAND, 0x0406);
    b.add_pm(0x0003, 0x0008);
    b.add_express(gen4_endpoint());
    b.add_capability(0x13, {0x06, 0x03, 0x00, 0x00});  // Advanced Features: TP, FLR capable
    b.add_capability(0x09, {0x08, 0x01, 0x02, 0x03, 0x04, 0x05});
    b.add_aer(0, 0x00400000, 0x00462030, 0, 0x00002000, 0x000001e0);
    b.add_extended(0x000e, 1, dwords({0x00000100}));  // ARI: next function 1
    b.add_extended(0x000f, 1, dwords({0x80050020}));  // ATS: queue depth 0 (32), enabled, STU 5
    b.add_extended(0x0013, 1, dwords({0x01000001, 0x00000200, 0x00000080}));  // PRI enabled, stopped
    b.add_extended(0x001b, 1, dwords({0x00071406}));  // PASID: 20 bits, exec, priv; enabled
    b.add_extended(0x0018, 1, dwords({0x0c451003}));  // LTR: 3 us snoop, 0.5 ms no-snoop
    b.add_extended(0x001e, 1, dwords({0x0028281f, 0x40a0280f, 0x00000028}));  // L1 PM Substates
    b.add_extended(0x001f, 1, dwords({0x00000401, 0x00000801}));  // PTM requester, 4 ns
    b.add_extended(0x0010, 1, dwords({0x00000002, 0x00000019, 0x00080004, 0x00000002, 0x00010001, 0x903f0000,
                                      0x00000553, 0x00000001, 0xfc00000c, 0x00000000, 0xfd000000, 0, 0, 0,
                                      0x00000000}));  // SR-IOV: 4 of 8 VFs, 2 enabled, a 64-bit and a 32-bit BAR
    b.add_extended(0x0015, 1, dwords({0x0000fff0, 0x00000520}));  // Resizable BAR 0: 1 MB..2 GB, 32 MB now
    b.add_extended(0x0024, 1, dwords({0x000000f0, 0x00000020}));  // VF Resizable BAR
    b.add_extended(0x0023, 1, dwords({0x01810ee1, 0x00000005}));  // DVSEC vendor 10ee, ID 5
    b.add_extended(0x0017, 1, dwords({0x00000206, 0}));          // TPH: vector and device modes
    b.add_extended(0x000b, 1, dwords({0x01810ee1, 0}));          // vendor-specific
    b.add_extended(0x0025, 1, dwords({0x80000001, 0x00000001}));  // Data Link Feature: scaled flow control
    b.add_extended(0x0026, 1, dwords({0, 0, 0x0000000f, 0, 0, 0, 0}));  // 16.0 GT/s, 8 lanes of parity
    b.add_extended(0x0027, 1, dwords({0x00010001, 0x00030000}));        // Lane Margining
    b.add_extended(0x002a, 1, dwords({0x00000301, 0x00000002, 0x000000e5, 0, 0}));  // 32.0 GT/s
    b.add_dsn(0x0123456789abcdefull);
    return {"endpoint_every_capability", at(0x20, 0), b.bytes()};
}

Crafted root_port_with_dpc() {
    ConfigBuilder b(0x8086, 0x352a, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    b.bridge_buses(0x00, 0x21, 0x21);
    b.set16(0x1c, 0x2020).set16(0x20, 0xfd00).set16(0x22, 0xfd10).set16(0x24, 0x0001).set16(0x26, 0xfff1);
    b.set16(PCI_COMMAND, 0x0407).set16(0x3e, 0x0012);
    ExpressRegs r;
    r.type = reg::PortType::RootPort;
    r.slot = true;
    r.devcap = 0x00008002;
    r.devctl = 0x502f;
    r.lnkcap = lnkcap_value(5, 16, 3, 0x00f7c800);
    r.lnkctl = 0x0040;
    r.lnksta = lnksta_value(4, 8, 0x3000);
    r.sltcap = 0x0018007b | (0x4b << 7);  // slot 3, 75 W, hot-plug with attention button
    r.devcap2 = 0x007f1bef;
    r.devctl2 = 0x0425;
    r.lnkcap2 = lnkcap2_upto(5) | (1u << 31);  // DRS supported
    r.lnkctl2 = 0x0005;
    r.lnksta2 = 0x501f;                         // DRS message received, link up
    const uint16_t exp = b.add_express(r);
    b.set16(exp + PCI_EXP_SLTCTL, 0x12f1).set16(exp + PCI_EXP_SLTSTA, 0x0148);
    b.set16(exp + PCI_EXP_RTCTL, 0x0008).set16(exp + PCI_EXP_RTCAP, 0x0001).set32(exp + PCI_EXP_RTSTA, 0x00010300);
    b.add_msi(0x0081);
    b.add_capability(0x0d, {0x00, 0x00, 0x86, 0x80, 0x00, 0x00});  // Subsystem: 8086:0000
    const uint16_t aer = b.add_aer(0, 0, 0x00462030, 0x00000041, 0x00002000, 0x000000a0);
    b.set32(aer + PCI_ERR_ROOT_COMMAND, 0x7).set32(aer + PCI_ERR_ROOT_STATUS, 0x08000011);
    b.set16(aer + PCI_ERR_ROOT_ERR_SRC, 0x2100).set16(aer + PCI_ERR_ROOT_ERR_SRC + 2u, 0x2100);
    b.add_extended(0x000d, 1, dwords({0x005f005f}));  // ACS, all but egress control
    b.add_extended(0x001d, 1, dwords({0x00411fe4, 0x01000001, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));  // DPC
    b.add_extended(0x0019, 1, dwords({0x00000002, 0x00000005, 0, 0, 0, 0, 0, 0, 0, 0}));  // Secondary PCIe
    b.add_extended(0x001f, 1, dwords({0x00000a07, 0x00000a03}));  // PTM root, 10 ns
    b.add_extended(0x001e, 1, dwords({0x0014f01f, 0x6064281f, 0x00000051}));
    b.add_extended(0x0002, 1, dwords({0x00000c01, 0x02000003, 0x00000002, 0x0307ff3f, 0x800000ff, 0x00020000,
                                      0x00000001, 0x81000000, 0x00000000}));  // Virtual Channel: VC0, VC1
    return {"root_port_dpc", at(0x00, 3), b.bytes()};
}

Crafted event_collector() {
    ConfigBuilder b(0x8086, 0x0b23, 0x088000);
    ExpressRegs r;
    r.type = reg::PortType::RcEventCollector;
    r.devcap = 0x00008000;
    r.devcap2 = 0x00000010;
    const uint16_t exp = b.add_express(r);
    b.set16(exp + PCI_EXP_RTCTL, 0x0007).set16(exp + PCI_EXP_RTCAP, 0x0000).set32(exp + PCI_EXP_RTSTA, 0x00020000);
    const uint16_t aer = b.add_aer(0, 0, 0x00462030, 0, 0x00002000, 0x000000a0);
    b.set32(aer + PCI_ERR_ROOT_COMMAND, 0x1).set32(aer + PCI_ERR_ROOT_STATUS, 0x00000001);
    b.add_extended(0x0007, 2, dwords({0x00000005, 0x00030201}));  // RCEC: devices 0 and 2, buses 2-3
    return {"event_collector", at(0x00, 0x1e), b.bytes()};
}

Crafted integrated_endpoint() {
    ConfigBuilder b(0x8086, 0x0b25, 0x088000);
    b.set32(PCI_BASE_ADDRESS_0, 0xfe000004).set32(PCI_BASE_ADDRESS_0 + 4, 0x00000020);
    ExpressRegs r;
    r.type = reg::PortType::RcIntegratedEndpoint;
    r.devcap = 0x10008000;
    r.devctl = 0x8010;
    r.devcap2 = 0x000f0390;
    r.devctl2 = 0x0040;
    b.add_express(r);
    b.add_msix(0x8007, 0x00002000, 0x00003000);
    b.add_extended(0x0007, 1, dwords({0}));
    return {"integrated_endpoint", at(0x00, 0x1d), b.bytes()};
}

Crafted pcix_bridge() {
    ConfigBuilder b(0x8086, 0x0329, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    b.bridge_buses(0x30, 0x31, 0x31);
    b.add_pm(0x0002, 0);
    b.add_capability(0x07, {0xc3, 0x00, 0x00, 0x30, 0x30, 0x00, 0xff, 0xff, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00});
    return {"pcix_bridge", at(0x30, 0), b.bytes()};
}

Crafted pcix_device() {
    ConfigBuilder b(0x1077, 0x2312, 0x0c0400);
    b.set32(PCI_BASE_ADDRESS_0, 0x0000e001).set16(PCI_COMMAND, 0x0007);
    b.add_capability(0x07, {0x03, 0x00, 0x08, 0x31, 0x83, 0x41});
    return {"pcix_device", at(0x31, 1), b.bytes()};
}

Crafted pcie_to_pci_bridge() {
    ConfigBuilder b(0x12d8, 0xe130, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    b.bridge_buses(0x21, 0x22, 0x22);
    ExpressRegs r;
    r.type = reg::PortType::PciBridge;
    r.devcap = 0x00008001;
    r.devctl = 0x8010;
    r.lnkcap = lnkcap_value(1, 1, 0, 0x00003c00);
    r.lnksta = lnksta_value(1, 1, 0x1000);
    b.add_express(r);
    b.add_capability(0x0d, {0x00, 0x00, 0xd8, 0x12, 0x30, 0xe1});
    return {"pcie_to_pci_bridge", at(0x21, 0), b.bytes()};
}

}  // namespace

std::vector<Crafted> crafted_capability_devices() {
    return {endpoint_with_every_capability(), root_port_with_dpc(), event_collector(), integrated_endpoint(),
            pcix_bridge(), pcix_device(), pcie_to_pci_bridge()};
}

}  // namespace pcie::test
