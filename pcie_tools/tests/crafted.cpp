#include "crafted.hpp"

#include "pcie_tools/dump_file.hpp"

namespace pcie::test {
namespace {

ExpressRegs express(reg::PortType type, uint32_t devcap, uint16_t devctl, uint32_t lnkcap, uint16_t lnkctl,
                    uint16_t lnksta) {
    ExpressRegs r;
    r.type = type;
    r.devcap = devcap;
    r.devctl = devctl;
    r.lnkcap = lnkcap;
    r.lnkctl = lnkctl;
    r.lnksta = lnksta;
    return r;
}

}  // namespace

std::vector<Crafted> crafted_devices() {
    std::vector<Crafted> out;
    {  // H200-like Gen5 x16 endpoint idling at 2.5 GT/s, AER errors logged, ASPM L1
        ConfigBuilder b(0x10de, 0x2335, 0x030200);
        b.add_pm(0x0603, 0x0008);
        b.add_msi(0x0180);
        ExpressRegs r = express(reg::PortType::Endpoint, 0x10008fe5u | (0xfa << 18), 0x5957,
                                lnkcap_value(5, 16, 0, 0x00478c00), 0x0042, lnksta_value(1, 16, 0x1000));
        r.devcap2 = 0x0073191f;
        r.devctl2 = 0x0406;
        r.lnkcap2 = lnkcap2_upto(5) | (1u << 23);
        r.lnkctl2 = 0x0045;
        r.lnksta2 = 0x001f;
        b.add_express(r);
        b.add_msix(0x8005, 0x00b90000, 0x00ba0000);
        b.add_aer(0x00104010, 0x00400000, 0x00462030, 0x00002041, 0x00002000, 0x000001e0);
        b.add_dsn(0x48b02d0000f01234ull);
        b.add_extended(0x0027, 1, std::vector<uint8_t>(12, 0));
        b.add_extended(0x0077, 1, std::vector<uint8_t>(4, 0));  // unknown extended ID
        out.push_back({"gen5_endpoint", at(0x41, 0), b.bytes()});
    }
    {  // root port with slot, 64 GT/s capable, trained x8 of x16
        ConfigBuilder b(0x8086, 0x1bb1, 0x060400, PCI_HEADER_TYPE_BRIDGE);
        b.bridge_buses(0x40, 0x41, 0x41);
        ExpressRegs r = express(reg::PortType::RootPort, 0x00008002, 0x0037, lnkcap_value(6, 16, 7, 0x007fcc00),
                                0x0143, lnksta_value(6, 8, 0x7000));
        r.slot = true;
        r.sltcap = 0x0050007f | (0xfa << 7);
        r.devcap2 = 0x001f0fdf;
        r.devctl2 = 0x7ff5;
        r.lnkcap2 = lnkcap2_upto(5);
        r.lnkctl2 = 0x0025;
        r.lnksta2 = 0x0301;
        b.add_express(r);
        b.add_aer(0, 0, 0x00462030, 0, 0x00002000, 0x000000a0);
        out.push_back({"root_port", at(0x40, 1), b.bytes()});
    }
    {  // switch downstream port, speed codes outside the table
        ConfigBuilder b(0x10b5, 0x9797, 0x060400, PCI_HEADER_TYPE_BRIDGE);
        b.bridge_buses(0x42, 0x43, 0x43);
        ExpressRegs r = express(reg::PortType::Downstream, 0x00000001, 0x0020, lnkcap_value(7, 4, 9, 0x00000800), 0x0002,
                                lnksta_value(0, 0, 0));
        r.devcap2 = 0x00000060;
        r.lnkcap2 = 0x00000002;
        r.lnkctl2 = 0x0040;
        b.add_express(r);
        out.push_back({"downstream_odd", at(0x42, 2), b.bytes()});
    }
    {  // switch upstream port, slot power special value
        ConfigBuilder b(0x10b5, 0x9796, 0x060400, PCI_HEADER_TYPE_BRIDGE);
        b.bridge_buses(0x41, 0x42, 0x43);
        ExpressRegs r = express(reg::PortType::Upstream, 0x0000f023u | (0xf1u << 18), 0x2000,
                                lnkcap_value(4, 8, 0, 0x00000400), 0x0001, lnksta_value(4, 8, 0x2000));
        r.devctl2 = 0x0080;
        r.lnkctl2 = 0x0004;
        b.add_express(r);
        out.push_back({"upstream_port", at(0x42, 0), b.bytes()});
    }
    {  // legacy endpoint with a version 1 capability
        ConfigBuilder b(0x1172, 0xe001, 0x118000);
        b.add_msi(0x018a);
        ExpressRegs r = express(reg::PortType::LegacyEndpoint, 0x0000020c, 0xffff, lnkcap_value(1, 1, 1, 0x00015c00),
                                0x0ffb, lnksta_value(1, 1, 0xf400));
        r.version = 1;
        b.add_express(r);
        out.push_back({"legacy_v1", at(0x05, 0), b.bytes()});
    }
    return out;
}

std::vector<Crafted> broken_devices() {
    std::vector<Crafted> out;
    {  // standard capability list that loops back to itself
        ConfigBuilder b(0x1234, 0x0001, 0x058000);
        const uint16_t pm = b.add_pm(0x0003, 0);
        const uint16_t msi = b.add_msi(0x0000);
        b.set8(msi + 1u, static_cast<uint8_t>(pm));
        out.push_back({"cap_loop", at(0x10, 0), b.bytes()});
    }
    {  // chain ends in an all-ones capability, and an ID nobody knows
        ConfigBuilder b(0x1234, 0x0002, 0x058000);
        b.add_capability(0x3e, {0, 0});
        const uint16_t pm = b.add_pm(0x0003, 0);
        b.set8(pm + 1u, 0xf0).set8(0xf0, 0xff).set8(0xf1, 0xff);
        out.push_back({"chain_broken", at(0x11, 0), b.bytes()});
    }
    {  // pointer into the header
        ConfigBuilder b(0x1234, 0x0003, 0x058000);
        const uint16_t pm = b.add_pm(0x0003, 0);
        b.set8(pm + 1u, 0x10);
        out.push_back({"pointer_into_header", at(0x12, 0), b.bytes()});
    }
    {  // extended capabilities that loop
        ConfigBuilder b(0x1234, 0x0004, 0x058000);
        b.add_express(express(reg::PortType::Endpoint, 0, 0, lnkcap_value(2, 1), 0, lnksta_value(2, 1)));
        const uint16_t first = b.add_dsn(1);
        const uint16_t second = b.add_extended(0x0018, 1, {0, 0, 0, 0});
        b.set32(second, 0x0018u | 1u << 16 | static_cast<uint32_t>(first) << 20);
        out.push_back({"ext_loop", at(0x13, 0), b.bytes()});
    }
    {  // PCIe device captured with -xxx only (256 bytes): no extended space
        ConfigBuilder b(0x1234, 0x0005, 0x058000);
        b.add_express(express(reg::PortType::Endpoint, 0, 0, lnkcap_value(3, 8), 0, lnksta_value(3, 8)));
        b.add_aer(1, 0, 0, 0, 0, 0);
        std::vector<uint8_t> bytes(b.bytes().begin(), b.bytes().begin() + 256);
        out.push_back({"truncated_256", at(0x14, 0), bytes});
    }
    {  // capture that ends inside the PCI Express capability
        ConfigBuilder b(0x1234, 0x0006, 0x058000);
        b.add_express(express(reg::PortType::Endpoint, 0, 0, lnkcap_value(3, 8), 0, lnksta_value(3, 8)));
        std::vector<uint8_t> bytes(b.bytes().begin(), b.bytes().begin() + 0x50);
        out.push_back({"truncated_in_cap", at(0x15, 0), bytes});
    }
    return out;
}

std::string crafted_dump(const std::vector<Crafted>& devices) {
    std::string text;
    for (const Crafted& c : devices)
        text += format_lspci_dump(c.address, c.bytes, "Crafted " + c.name);
    return text;
}

}  // namespace pcie::test
