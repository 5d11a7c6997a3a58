#include "pcie_tools/decode.hpp"

#include <cstdio>

namespace pcie {

bool ExpressInfo::has_link() const {
    return type() != reg::PortType::RcIntegratedEndpoint && type() != reg::PortType::RcEventCollector;
}

bool ExpressInfo::is_downstream_side() const {
    return type() == reg::PortType::RootPort || type() == reg::PortType::Downstream;
}

uint32_t ExpressInfo::supported_speeds() const {
    const uint32_t vector = lnkcap2 & reg::EXP_LNKCAP2_SLS;
    if (has_v2() && vector)
        return vector;
    uint32_t upto = 0;
    for (uint8_t s = 1; s <= max_speed() && s < 8; ++s)
        upto |= 1u << s;
    return upto;
}

std::string speed_name(uint8_t code) {
    static const char* names[] = {"2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s", "32 GT/s", "64 GT/s"};
    if (code >= 1 && code <= 6)
        return names[code - 1];
    return "unknown (code " + std::to_string(code) + ")";
}

std::string speed_name_lspci(uint8_t code) {
    static const char* names[] = {"2.5GT/s", "5GT/s", "8GT/s", "16GT/s", "32GT/s", "64GT/s"};
    if (code >= 1 && code <= 6)
        return names[code - 1];
    return "unknown";
}

double speed_gts(uint8_t code) {
    static const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    return code >= 1 && code <= 6 ? rates[code - 1] : 0.0;
}

const char* port_type_name(reg::PortType type) {
    switch (type) {
        case reg::PortType::Endpoint: return "Endpoint";
        case reg::PortType::LegacyEndpoint: return "Legacy Endpoint";
        case reg::PortType::RootPort: return "Root Port";
        case reg::PortType::Upstream: return "Upstream Port";
        case reg::PortType::Downstream: return "Downstream Port";
        case reg::PortType::PciBridge: return "PCI-Express to PCI/PCI-X Bridge";
        case reg::PortType::PcieBridge: return "PCI/PCI-X to PCI-Express Bridge";
        case reg::PortType::RcIntegratedEndpoint: return "Root Complex Integrated Endpoint";
        case reg::PortType::RcEventCollector: return "Root Complex Event Collector";
    }
    return "Unknown type";
}

namespace {

// Reads a register into `out`; an unreadable one is recorded as a problem and left 0.
template <typename T>
void read_into(ConfigSpace& space, uint32_t offset, T& out, std::vector<std::string>& problems, const char* name) {
    Result<T> r = [&]() -> Result<T> {
        if constexpr (sizeof(T) == 1)
            return space.read8(offset);
        else if constexpr (sizeof(T) == 2)
            return space.read16(offset);
        else
            return space.read32(offset);
    }();
    if (r)
        out = *r;
    else
        problems.push_back(std::string("<access denied> ") + name + ": " + r.error().message());
}

void decode_bars(ConfigSpace& space, HeaderInfo& h, std::vector<std::string>& problems) {
    const unsigned count = h.header_type == PCI_HEADER_TYPE_NORMAL ? 6 : h.header_type == PCI_HEADER_TYPE_BRIDGE ? 2 : 0;
    for (unsigned i = 0; i < count; ++i) {
        uint32_t low = 0;
        read_into(space, PCI_BASE_ADDRESS_0 + 4 * i, low, problems, "BAR");
        if (low == 0 || low == 0xffffffffu)
            continue;
        BarInfo bar;
        bar.index = i;
        bar.io = low & 1;
        if (bar.io) {
            bar.base = low & ~3u;
        } else {
            bar.prefetchable = low & 8;
            bar.is_64 = ((low >> 1) & 3) == 2;
            bar.base = low & ~0xfu;
            if (bar.is_64 && i + 1 < count) {
                uint32_t high = 0;
                read_into(space, PCI_BASE_ADDRESS_0 + 4 * (i + 1), high, problems, "BAR");
                bar.base |= static_cast<uint64_t>(high) << 32;
                ++i;
            }
        }
        h.bars.push_back(bar);
    }
}

MsiInfo decode_msi(ConfigSpace& space, uint16_t offset, std::vector<std::string>& problems) {
    MsiInfo msi{offset, 0};
    read_into(space, offset + PCI_MSI_FLAGS, msi.flags, problems, "MSI Message Control");
    const bool is64 = msi.flags & PCI_MSI_FLAGS_64BIT;
    uint32_t low = 0, high = 0;
    read_into(space, offset + PCI_MSI_ADDRESS_LO, low, problems, "MSI Message Address");
    if (is64)
        read_into(space, offset + PCI_MSI_ADDRESS_LO + 4u, high, problems, "MSI Message Upper Address");
    msi.address = static_cast<uint64_t>(high) << 32 | low;
    const uint32_t data = offset + (is64 ? 0x0cu : 0x08u);
    read_into(space, data, msi.data, problems, "MSI Message Data");
    if (msi.flags & PCI_MSI_FLAGS_MASKBIT) {
        read_into(space, data + 4u, msi.mask, problems, "MSI Mask Bits");
        read_into(space, data + 8u, msi.pending, problems, "MSI Pending Bits");
    }
    return msi;
}

// Any BAR register reading as memory space with a non-zero value (lspci's test, on the raw
// registers: the upper half of a 64-bit BAR does not count).
bool has_memory_bar(const HeaderInfo& h) {
    for (const BarInfo& b : h.bars)
        if (!b.io)
            return true;
    return false;
}

// The PCI Express Capability's register sets (PCIe Base 7.5.3): Device, Link, Slot, Device 2 and
// Link 2 each lay out a 32-bit Capabilities register, then 16-bit Control and Status registers.
static_assert(PCI_EXP_DEVCTL == PCI_EXP_DEVCAP + 4 && PCI_EXP_DEVSTA == PCI_EXP_DEVCAP + 6);
static_assert(PCI_EXP_LNKCTL == PCI_EXP_LNKCAP + 4 && PCI_EXP_LNKSTA == PCI_EXP_LNKCAP + 6);
static_assert(PCI_EXP_SLTCTL == PCI_EXP_SLTCAP + 4 && PCI_EXP_SLTSTA == PCI_EXP_SLTCAP + 6);
static_assert(PCI_EXP_DEVCTL2 == PCI_EXP_DEVCAP2 + 4 && PCI_EXP_DEVSTA2 == PCI_EXP_DEVCAP2 + 6);
static_assert(PCI_EXP_LNKCTL2 == PCI_EXP_LNKCAP2 + 4 && PCI_EXP_LNKSTA2 == PCI_EXP_LNKCAP2 + 6);

// One register set of the capability, its Capabilities register at `at`.
Result<void> read_register_set(ConfigSpace& space, uint16_t at, uint32_t& cap, uint16_t& control, uint16_t& status) {
    cap = PDT_TRY(space.read32(at));
    control = PDT_TRY(space.read16(at + 4));
    status = PDT_TRY(space.read16(at + 6));
    return {};
}

}  // namespace

Result<ExpressInfo> decode_express(ConfigSpace& space, uint16_t offset) {
    ExpressInfo e;
    e.offset = offset;
    e.flags = PDT_TRY(space.read16(offset + PCI_EXP_FLAGS));
    PDT_CHECK(read_register_set(space, offset + PCI_EXP_DEVCAP, e.devcap, e.devctl, e.devsta));
    PDT_CHECK(read_register_set(space, offset + PCI_EXP_LNKCAP, e.lnkcap, e.lnkctl, e.lnksta));
    if (e.slot())
        PDT_CHECK(read_register_set(space, offset + PCI_EXP_SLTCAP, e.sltcap, e.sltctl, e.sltsta));
    if (e.type() == reg::PortType::RootPort || e.type() == reg::PortType::RcEventCollector) {
        e.rootctl = PDT_TRY(space.read16(offset + PCI_EXP_RTCTL));
        e.rootcap = PDT_TRY(space.read16(offset + PCI_EXP_RTCAP));
        e.rootsta = PDT_TRY(space.read32(offset + PCI_EXP_RTSTA));
    }
    if (e.has_v2()) {
        PDT_CHECK(read_register_set(space, offset + PCI_EXP_DEVCAP2, e.devcap2, e.devctl2, e.devsta2));
        PDT_CHECK(read_register_set(space, offset + PCI_EXP_LNKCAP2, e.lnkcap2, e.lnkctl2, e.lnksta2));
    }
    return e;
}

Result<ExpressInfo> read_express(ConfigSpace& space) {
    const CapabilityList caps = walk_capabilities(space);
    const Capability* exp = caps.find(PCI_CAP_ID_EXP);
    if (!exp)
        return pdt::make_error("find PCI Express capability", space.address().to_string(), ENOENT,
                               space.size() <= 64 ? "only 64 bytes readable: run as root (CAP_SYS_ADMIN)"
                                                  : "conventional PCI function: it has no link registers");
    return decode_express(space, exp->offset);
}

Result<DeviceConfig> decode_device(ConfigSpace& space) {
    DeviceConfig d;
    d.address = space.address();
    d.config_size = space.size();
    HeaderInfo& h = d.header;
    const uint32_t ids = PDT_TRY(space.read32(PCI_VENDOR_ID));
    if (ids == 0xffffffffu)
        return pdt::make_error("read config header", d.address.to_string(), ENODEV,
                               "vendor ID reads 0xffff: no function there, or it fell off the bus");
    h.vendor_id = static_cast<uint16_t>(ids);
    h.device_id = static_cast<uint16_t>(ids >> 16);
    h.command = PDT_TRY(space.read16(PCI_COMMAND));
    h.status = PDT_TRY(space.read16(PCI_STATUS));
    const uint32_t rev_class = PDT_TRY(space.read32(PCI_REVISION_ID));
    h.revision = static_cast<uint8_t>(rev_class);
    h.class_code = rev_class >> 8;
    const uint8_t header_type = PDT_TRY(space.read8(PCI_HEADER_TYPE));
    h.header_type = header_type & PCI_HEADER_TYPE_MASK;
    h.multifunction = header_type & 0x80;
    std::vector<std::string>& problems = d.problems;
    if (h.header_type == PCI_HEADER_TYPE_NORMAL) {
        read_into(space, PCI_SUBSYSTEM_VENDOR_ID, h.subsystem_vendor_id, problems, "Subsystem Vendor ID");
        read_into(space, PCI_SUBSYSTEM_ID, h.subsystem_id, problems, "Subsystem ID");
    } else if (h.header_type == PCI_HEADER_TYPE_BRIDGE) {
        read_into(space, PCI_PRIMARY_BUS, h.primary_bus, problems, "Primary Bus Number");
        read_into(space, PCI_SECONDARY_BUS, h.secondary_bus, problems, "Secondary Bus Number");
        read_into(space, PCI_SUBORDINATE_BUS, h.subordinate_bus, problems, "Subordinate Bus Number");
    }
    decode_bars(space, h, problems);

    d.caps = walk_capabilities(space);
    for (const std::string& p : d.caps.problems)
        problems.push_back(p);
    for (const Capability& c : d.caps.standard) {
        if (c.id == PCI_CAP_ID_PM && !d.pm) {
            PmInfo pm{c.offset, 0, 0};
            read_into(space, c.offset + PCI_PM_PMC, pm.pmc, problems, "PMC");
            read_into(space, c.offset + PCI_PM_CTRL, pm.pmcsr, problems, "PMCSR");
            d.pm = pm;
        } else if (c.id == PCI_CAP_ID_MSI && !d.msi) {
            d.msi = decode_msi(space, c.offset, problems);
        } else if (c.id == PCI_CAP_ID_MSIX && !d.msix) {
            MsixInfo x{c.offset, 0, 0, 0};
            read_into(space, c.offset + PCI_MSIX_FLAGS, x.flags, problems, "MSI-X Message Control");
            read_into(space, c.offset + PCI_MSIX_TABLE, x.table, problems, "MSI-X Table Offset");
            read_into(space, c.offset + PCI_MSIX_PBA, x.pba, problems, "MSI-X PBA Offset");
            d.msix = x;
        } else if (c.id == PCI_CAP_ID_EXP && !d.express) {
            auto e = decode_express(space, c.offset);
            if (e) {
                d.express = *e;
                d.express->function0 = d.address.device == 0 && d.address.function == 0;
                d.express->has_mem_bar = has_memory_bar(h);
            }
            else {
                problems.push_back("<access denied> PCI Express capability: " + e.error().message());
                if (auto flags = space.read16(c.offset + PCI_EXP_FLAGS))
                    d.express_truncated = ExpressInfo{c.offset, *flags};
            }
        }
    }
    for (const Capability& c : d.caps.extended) {
        if (c.id == PCI_EXT_CAP_ID_ERR && !d.aer) {
            AerInfo a;
            a.offset = c.offset;
            a.version = c.version;
            read_into(space, c.offset + PCI_ERR_UNCOR_STATUS, a.uncor_status, problems, "UESta");
            read_into(space, c.offset + PCI_ERR_UNCOR_MASK, a.uncor_mask, problems, "UEMsk");
            read_into(space, c.offset + PCI_ERR_UNCOR_SEVER, a.uncor_sever, problems, "UESvrt");
            read_into(space, c.offset + PCI_ERR_COR_STATUS, a.cor_status, problems, "CESta");
            read_into(space, c.offset + PCI_ERR_COR_MASK, a.cor_mask, problems, "CEMsk");
            read_into(space, c.offset + PCI_ERR_CAP, a.cap_control, problems, "AERCap");
            for (int i = 0; i < 4; ++i)
                read_into(space, c.offset + PCI_ERR_HEADER_LOG + 4 * i, a.header_log[i], problems, "HeaderLog");
            const auto type = d.express ? d.express->type() : reg::PortType::Endpoint;
            a.root = type == reg::PortType::RootPort || type == reg::PortType::RcEventCollector;
            if (a.root) {
                read_into(space, c.offset + PCI_ERR_ROOT_COMMAND, a.root_command, problems, "RootCmd");
                read_into(space, c.offset + PCI_ERR_ROOT_STATUS, a.root_status, problems, "RootSta");
                read_into(space, c.offset + PCI_ERR_ROOT_ERR_SRC, a.cor_source, problems, "ErrorSrc");
                read_into(space, c.offset + PCI_ERR_ROOT_ERR_SRC + 2u, a.uncor_source, problems, "ErrorSrc");
            }
            d.aer = a;
        } else if (c.id == PCI_EXT_CAP_ID_DSN && !d.dsn) {
            uint32_t low = 0, high = 0;
            read_into(space, c.offset + 4, low, problems, "Device Serial Number");
            read_into(space, c.offset + 8, high, problems, "Device Serial Number");
            d.dsn = DsnInfo{c.offset, static_cast<uint64_t>(high) << 32 | low};
        }
    }
    if (const Capability* ss = d.caps.find(0x0d); ss && h.header_type == PCI_HEADER_TYPE_BRIDGE) {
        read_into(space, ss->offset + 4u, h.subsystem_vendor_id, problems, "Subsystem Vendor ID");
        read_into(space, ss->offset + 6u, h.subsystem_id, problems, "Subsystem ID");
    }
    d.sections = decode_sections(space, d);
    for (uint32_t i = 0; i < 64; ++i) {
        auto byte = space.read8(i);
        d.header_bytes.push_back(byte ? *byte : 0xff);
    }
    return d;
}

}  // namespace pcie
