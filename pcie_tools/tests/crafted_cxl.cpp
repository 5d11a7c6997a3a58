// Crafted config spaces for the capabilities lspci 3.9 decodes that QEMU cannot make: CXL's
// DVSECs (CXL 2.0/3.0 chapter 8.1), Multicast, Root Complex Link Declaration, Enhanced
// Allocation and Vital Product Data, on a CXL memory device, a CXL root port, a switch
// downstream port, an integrated endpoint and a legacy endpoint. Values stay within what the
// specifications define (lspci 3.9 indexes its tables with some fields unchecked).
#include "crafted.hpp"

namespace pcie::test {
namespace {

// A CXL DVSEC body (after the extended capability header): DVSEC Header 1 and 2, then the
// registers from offset 0Ah, given as dwords from offset 08h whose low half is the DVSEC ID.
std::vector<uint8_t> cxl_dvsec(uint16_t id, unsigned rev, unsigned length, std::initializer_list<uint32_t> from_08) {
    std::vector<uint8_t> body = dwords({0x1e98u | rev << 16 | length << 20});
    std::vector<uint8_t> rest = dwords(from_08);
    if (rest.empty())
        rest.resize(4, 0);
    rest[0] = static_cast<uint8_t>(id);
    rest[1] = static_cast<uint8_t>(id >> 8);
    body.insert(body.end(), rest.begin(), rest.end());
    body.resize(length - 4, 0);
    return body;
}

ExpressRegs express(reg::PortType type) {
    ExpressRegs r;
    r.type = type;
    r.devcap = 0x00008002;
    r.lnkcap = lnkcap_value(5, 16, 0, 0x00400c00);
    r.lnksta = lnksta_value(5, 16, 0x1000);
    r.lnkcap2 = lnkcap2_upto(5);
    return r;
}

Crafted cxl_memory_device() {
    ConfigBuilder b(0x8086, 0x0d93, 0x050210);
    b.add_capability(0x03, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00});  // VPD, never read
    b.add_express(express(reg::PortType::Endpoint));
    // Multicast, endpoint form: 32 groups, 4 KB window, 16 groups enabled
    b.add_extended(0x0012, 1, dwords({0x800f0c1f, 0xe000000c, 0x00000020, 0x0000ffff, 0, 0, 0, 0x00000001, 0}));
    // PCIe DVSEC for CXL Devices: Mem, HW init, 1 HDM, viral; 4 GB at 64 GB; 256 KB cache
    b.add_extended(0x0023, 1, cxl_dvsec(0, 1, 0x38, {0x401c0000, 0x00000006, 0x80020000, 0x04010000, 0x00000001,
                                                      0x00002003, 0x00000010, 0x00000000, 0, 0, 0, 0}));
    b.add_extended(0x0023, 1, cxl_dvsec(5, 0, 0x10, {0x05020000, 1500}));  // GPF for devices: 200 ms, 1.5 W
    b.add_extended(0x0023, 1, cxl_dvsec(8, 0, 0x24, {0, 0x00000100, 0, 0x00010302, 0, 0, 0}));  // Register Locator
    b.add_extended(0x0023, 1, cxl_dvsec(7, 1, 0x20, {0x00670000, 0x00260026, 0x00100003, 0, 0, 0}));  // Flex Bus
    b.add_extended(0x0023, 1, cxl_dvsec(9, 0, 0x10, {0x00040000, 0}));  // MLD: 4 logical devices
    b.add_extended(0x0023, 1, cxl_dvsec(2, 0, 0x2c, {0, 0x00000006, 0, 0x00000001, 0, 0, 0, 0, 0x0000ff00}));
    b.add_extended(0x0023, 1, cxl_dvsec(6, 0, 0x10, {0, 0}));  // a DVSEC ID lspci does not know
    return {"cxl_memory_device", at(0x51, 0), b.bytes()};
}

Crafted cxl_root_port() {
    ConfigBuilder b(0x8086, 0x347a, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    b.bridge_buses(0x50, 0x51, 0x51);
    b.add_express(express(reg::PortType::RootPort));
    // Multicast, port form: 64 groups, ECRC regeneration, a 4 KB overlay
    b.add_extended(0x0012, 1, dwords({0x0000803f, 0, 0, 0x00000003, 0, 0, 0, 0, 0, 0xf000000c, 0x00000001}));
    // Root Complex Link Declaration: egress port 2 of component 1, a memory-mapped and a config link
    b.add_extended(0x0005, 1, dwords({0x02010201, 0, 0, 0x00010001, 0, 0xfed1c000, 0, 0x00010003, 0, 0x005e2003, 0}));
    b.add_extended(0x0023, 1, cxl_dvsec(3, 0, 0x28, {0x00000000, 0x3f300005, 0xd0f0d000, 0, 0, 0, 0, 0}));
    b.add_extended(0x0023, 1, cxl_dvsec(4, 0, 0x10, {0, 0x03020401}));  // GPF for ports: 10 ms, 2 ms
    b.add_extended(0x0023, 1, cxl_dvsec(7, 2, 0x20, {0x60670000, 0x20272027, 0x00000003, 1, 0, 2}));
    b.add_extended(0x0023, 1, cxl_dvsec(8, 0, 0x14, {0, 0x00200204, 0}));
    return {"cxl_root_port", at(0x50, 1), b.bytes()};
}

Crafted ea_downstream_port() {
    ConfigBuilder b(0x10b5, 0x8796, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    b.bridge_buses(0x52, 0x53, 0x54);
    b.add_express(express(reg::PortType::Downstream));
    std::vector<uint8_t> ea = {0x01, 0x00};  // one entry, then the fixed bus numbers
    const auto rest = dwords({0x00005453, 0x80ff0562, 0xc0000000, 0x00fffffc});
    ea.insert(ea.end(), rest.begin(), rest.end());
    b.add_capability(0x14, ea);
    b.add_extended(0x0012, 1, dwords({0x00000007, 0x00008003, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    return {"ea_downstream_port", at(0x53, 0), b.bytes()};
}

Crafted integrated_endpoint_ea() {
    ConfigBuilder b(0x8086, 0x0b26, 0x088000);
    std::vector<uint8_t> ea = {0x03, 0x00};
    const auto entries = dwords({0x80ff0002, 0xfe100000, 0x0000fffc,                       // BAR 0, 64 KB
                                 0x80ff0124, 0x00000002, 0x00fffffe, 0x00000040, 0x00000000,  // BAR 2, 64-bit
                                 0x00fffd82, 0x00000000, 0x000007fc});                      // ROM, unavailable
    ea.insert(ea.end(), entries.begin(), entries.end());
    b.add_capability(0x14, ea);
    b.add_express(express(reg::PortType::RcIntegratedEndpoint));
    b.add_extended(0x0012, 1, dwords({0x00000200, 0xd0000000, 0, 0x00000001, 0, 0x00000001, 0, 0, 0}));
    b.add_extended(0x0005, 1, dwords({0x00010102, 0, 0, 0x00000001, 0, 0xfed19000, 0}));  // internal element
    b.add_extended(0x0023, 1, cxl_dvsec(0, 2, 0x38, {0x00370000, 0x00000001, 0x00000002, 0x08020000, 0, 0x40004327,
                                                      0, 0x40000000, 0, 0, 0, 0}));
    return {"integrated_endpoint_ea", at(0x00, 0x1c), b.bytes()};
}

Crafted legacy_endpoint_multicast() {
    ConfigBuilder b(0x1172, 0xe002, 0x118000);
    b.add_express(express(reg::PortType::LegacyEndpoint));
    b.add_extended(0x0012, 1, dwords({0x80000003, 0, 0, 0, 0, 0, 0, 0, 0, 0x00000005, 0}));
    return {"legacy_endpoint_multicast", at(0x55, 0), b.bytes()};
}

}  // namespace

std::vector<Crafted> crafted_cxl_devices() {
    return {cxl_memory_device(), cxl_root_port(), ea_downstream_port(), integrated_endpoint_ea(),
            legacy_endpoint_multicast()};
}

}  // namespace pcie::test
