// The simulated topology behind --access sim (see config_topology.hpp).
#include "sim/config_topology.hpp"

namespace sim {
namespace {

PciAddress at(uint8_t bus, uint8_t device) { return PciAddress{0, bus, device, 0}; }

std::unique_ptr<SimDownstreamPort> root_port(uint16_t device_id, uint8_t secondary, uint32_t lnkcap, uint16_t lnksta,
                                             uint16_t lnkctl2, PortModel model, uint8_t dev_number) {
    ConfigBuilder b(0x8086, device_id, 0x060400, PCI_HEADER_TYPE_BRIDGE);
    b.bridge_buses(0, secondary, secondary).set16(PCI_COMMAND, 0x0407);
    ExpressRegs r;
    r.type = reg::PortType::RootPort;
    r.slot = true;
    r.devcap = 0x00008000;
    r.devctl = 0x0006;
    r.lnkcap = lnkcap;
    r.lnkctl = PCI_EXP_LNKCTL_CCC;
    r.lnksta = lnksta;
    r.sltcap = 0x00180000u | (dev_number + 2u) << 19;
    r.devcap2 = 0x00000080;
    r.lnkcap2 = lnkcap2_upto(lnkcap & 0xf);
    r.lnkctl2 = lnkctl2;
    b.add_express(r);
    b.add_msi(0x0080);
    b.add_pm(0xc803, 0x0000);
    b.add_aer(0, 0, 0x00462030, 0, 0x00002000, 0x000000a0);
    return b.build_port(at(0, dev_number), model);
}

std::unique_ptr<SimConfigSpace> endpoint(uint16_t vendor, uint16_t device_id, uint8_t bus, uint32_t lnkcap,
                                         uint16_t lnksta, uint16_t devctl) {
    ConfigBuilder b(vendor, device_id, 0x058000);
    b.set8(PCI_REVISION_ID, 0x01).set16(PCI_SUBSYSTEM_VENDOR_ID, 0x0002).set16(PCI_SUBSYSTEM_ID, 0x0009);
    b.set16(PCI_COMMAND, 0x0146).set32(PCI_BASE_ADDRESS_0, 0x94300000).set32(PCI_BASE_ADDRESS_2, 0x94400004);
    b.add_pm(0x0003, 0x0008);
    b.add_msi(0x0086);
    ExpressRegs r;
    r.type = reg::PortType::Endpoint;
    r.devcap = 0x00008fc2u | 0x19u << 18;  // MaxPayload 512, ExtTag, RBE, 25 W
    r.devctl = devctl;
    r.lnkcap = lnkcap;
    r.lnkctl = PCI_EXP_LNKCTL_CCC;
    r.lnksta = lnksta;
    r.devcap2 = 0x0000001f;
    r.lnkcap2 = lnkcap2_upto(lnkcap & 0xf);
    r.lnkctl2 = static_cast<uint16_t>(lnkcap & 0xf);
    b.add_express(r);
    b.add_aer(0, 0x00400000, 0x00462030, 0, 0x00002000, 0x000001e0);
    b.add_dsn(0x0a35000000000001ull + bus);
    return b.build(at(bus, 0));
}

}  // namespace

std::unique_ptr<ConfigTopology> make_demo_topology() {
    auto bus = std::make_unique<ConfigTopology>();
    ConfigBuilder host(0x8086, 0x0100, 0x060000);
    bus->add(host.build(at(0, 0)), "Intel Corporation", "Simulated host bridge");

    // Seed 004: root port LnkCap 02212D02 (5 GT/s x16), the x4 card trained at 2.5 GT/s.
    bus->add(root_port(0x0101, 1, 0x02212d02, 0x5041, 0x0002, PortModel{}, 1), "Intel Corporation",
             "Simulated PCI Express Root Port (5 GT/s x16)");
    bus->add(endpoint(0x10ee, 0x7024, 1, lnkcap_value(2, 4, 0, 0x00035c00), lnksta_value(1, 4, PCI_EXP_LNKSTA_SLC),
                      0x2937),
             "Xilinx Corporation", "Simulated FPGA 5 GT/s x4");
    bus->connect(at(0, 1), at(1, 0));

    // A port whose 8 GT/s setting is refused (a marginal channel), device trained at 2.5 GT/s.
    PortModel refusing;
    refusing.refused_speeds = 1u << 3;
    bus->add(root_port(0x0102, 2, lnkcap_value(3, 4, 2, 0x00035c00), lnksta_value(1, 4, PCI_EXP_LNKSTA_SLC), 0x0001,
                       refusing, 2),
             "Intel Corporation", "Simulated PCI Express Root Port (8 GT/s x4, refuses 8 GT/s)");
    bus->add(endpoint(0x10ee, 0x9038, 2, lnkcap_value(3, 4, 0, 0x00035c00), lnksta_value(1, 4, PCI_EXP_LNKSTA_SLC),
                      0x2937),
             "Xilinx Corporation", "Simulated FPGA 8 GT/s x4");
    bus->connect(at(0, 2), at(2, 0));

    // A 16 GT/s x16 port carrying an 8 GT/s x8 card at its best: not downgraded.
    bus->add(root_port(0x0103, 3, lnkcap_value(4, 16, 3, 0x00035c00),
                       lnksta_value(3, 8, PCI_EXP_LNKSTA_SLC | PCI_EXP_LNKSTA_DLLLA), 0x0004, PortModel{}, 3),
             "Intel Corporation", "Simulated PCI Express Root Port (16 GT/s x16)");
    bus->add(endpoint(0x10ee, 0x903f, 3, lnkcap_value(3, 8, 0, 0x00035c00), lnksta_value(3, 8, PCI_EXP_LNKSTA_SLC),
                      0x5937),
             "Xilinx Corporation", "Simulated FPGA 8 GT/s x8");
    bus->connect(at(0, 3), at(3, 0));
    return bus;
}

std::unique_ptr<ConfigBackend> open_demo_topology() { return make_demo_topology(); }

}  // namespace sim
