#include "base/format.hpp"
#include "identify/identify.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ostream>

#include "ethernet/open_cmac.hpp"
#include "identify/link_check.hpp"
#include "pcie_tools/backends.hpp"
#include "vfio_access/kernel.hpp"

namespace identify {
namespace {

using pdt::hex;

// The register window of something the design places at bar/offset, or the reason it is absent.
pdt::Result<vfio::RegisterWindow> window(vfio::Device& device, unsigned bar, uint64_t offset, uint64_t size) {
    vfio::Bar* mapped = PDT_TRY(device.bar(bar));
    return mapped->window(offset, size, vfio::Access64::SplitLowHigh);
}

pdt::Result<void> identify_dma_bridge(vfio::Device& device, const designs::DmaBridge& bridge, IdentifiedDesign& out) {
    auto dma = xdma::dma_registers(device, bridge.bar);
    if (!dma) {
        out.warnings.push_back("DMA bridge absent: " + dma.error().message());
        return {};
    }
    DmaBridgeInfo info;
    info.bar = bridge.bar;
    info.mode = bridge.mode;
    const designs::MemoryWindow memory = bridge.memory_for_revision(out.identity.revision);
    info.memory_base = memory.base;
    info.memory_size = memory.size;
    auto channels = xdma::discover(*dma, bridge.mode == designs::DmaMode::Stream);
    if (!channels && channels.error().code == ERANGE) {  // the BAR holds the channels, not a block the driver needs
        out.warnings.push_back("DMA bridge unreadable: " + channels.error().message());
        return {};
    }
    if (!channels)  // e.g. a device gone (registers read all-ones): not identified
        return std::move(channels).error();
    info.channels = std::move(channels).value();
    const auto check = [&](const char* direction, std::optional<unsigned> expected, unsigned found) {
        if (expected && *expected != found)
            out.warnings.push_back("DMA bridge has " + std::to_string(found) + " " + direction +
                                   " channels; the design describes " + std::to_string(*expected));
    };
    check("H2C", bridge.h2c_channels, info.num_h2c());
    check("C2H", bridge.c2h_channels, info.num_c2h());
    out.dma_bridge = std::move(info);
    return {};
}

void identify_peripheral(vfio::Device& device, const designs::Peripheral& p, IdentifiedDesign& out) {
    auto regs = window(device, p.bar, p.offset, p.frame_size());
    if (!regs) {
        out.warnings.push_back(std::string(designs::display_name(p.type)) + " at bar " + std::to_string(p.bar) +
                               " offset " + hex(p.offset) + " absent: " + regs.error().message());
        return;
    }
    using designs::PeripheralType;
    switch (p.type) {
    case PeripheralType::UserAccessTimestamp:
        out.user_access_timestamp = regs->read32(0);
        break;
    case PeripheralType::UltrascaleDna:
        out.dna.push_back(DnaInfo{p.slr, {regs->read32(0), regs->read32(4), regs->read32(8)}});
        break;
    case PeripheralType::AxiStreamSwitch: {
        // PG085 MI_MUX[m] at 0x40 + 4*m: bit 31 disables master m, [3:0] selects its slave.
        SwitchInfo info{p.bar, p.offset, {}};
        for (unsigned m = 0; m < p.master_ports; ++m) {
            const uint32_t mi_mux = regs->read32(0x40 + 4ull * m);
            info.routes.push_back(mi_mux & 0x80000000u ? std::nullopt : std::optional<unsigned>(mi_mux & 0xf));
        }
        out.axi_switch = std::move(info);
        break;
    }
    case PeripheralType::Cmac:
        break;  // its status registers are clear-on-read: only read_cmac_ports reads them
    case PeripheralType::AxiDma:
        break;  // fpga_sio's identification prints no line for it; measure_ddr_throughput drives it
    case PeripheralType::DdrResetGpio:
    case PeripheralType::M2LedGpio:
        break;  // fpga_sio's identification does not list them: their tools find them in the design
    default:
        out.peripherals.push_back(PeripheralInfo{p.type, p.bar, p.offset});
    }
}

// A 32-bit register of the device; nullopt when its BAR cannot hold it.
std::optional<uint32_t> read_register(vfio::Device& device, const designs::RegisterValue& r) {
    auto regs = window(device, r.bar, r.offset, 4);
    if (!regs)
        return std::nullopt;
    return regs->read32(0);
}

}  // namespace

std::vector<std::string> read_cmac_ports(vfio::Device& device, IdentifiedDesign& design) {
    std::vector<std::string> problems;
    design.cmac_ports.clear();
    const uint8_t revision = design.identity.revision;
    auto ports = ethernet::open_cmac_ports(device, *design.design, revision);
    if (!ports)
        return {ports.error().message()};
    size_t index = 0;
    for (const designs::Peripheral* p : design.design->peripherals_for_revision(revision)) {
        if (p->type != designs::PeripheralType::Cmac)
            continue;
        const ethernet::Cmac& cmac = (*ports)[index++];
        auto status = cmac.read_status();
        if (!status)
            problems.push_back(status.error().message());
        else
            design.cmac_ports.push_back(CmacPortInfo{p->bar, p->offset, cmac.build(), std::move(status).value()});
    }
    return problems;
}

bool content_matches(vfio::Device& device, const designs::Design& design) {
    if (!design.match.register_value)
        return true;
    const std::optional<uint32_t> value = read_register(device, *design.match.register_value);
    return value && *value == design.match.register_value->value;
}

pdt::Result<IdentifiedDesign> identify_device(vfio::Device& device, const designs::Design& design) {
    IdentifiedDesign out;
    out.design = &design;
    out.identity = device.identity();
    // Config space is the truth for the revision gates (the scan may have come from a cache).
    out.identity.revision = PDT_TRY(device.config_read8(vfio::cfg::REVISION_ID));
    if (design.version_register) {
        out.board_version = read_register(device, *design.version_register);
        if (!out.board_version)
            out.warnings.push_back("board version register at bar " + std::to_string(design.version_register->bar) +
                                   " offset " + hex(design.version_register->offset) + " absent");
    }
    if (design.dma_bridge)
        PDT_CHECK(identify_dma_bridge(device, *design.dma_bridge, out));
    if (design.qdma) {
        auto qdma = read_qdma(device, *design.qdma);
        if (!qdma)
            out.warnings.push_back("QDMA absent: " + qdma.error().message());
        else if (!qdma->supported)  // fpga_sio decodes the capabilities of an EQDMA soft IP only
            out.warnings.push_back("QDMA capabilities of " + qdma->ip_type + " not decoded");
        if (qdma)
            out.qdma = std::move(qdma).value();
    }
    for (const designs::Peripheral* p : design.peripherals_for_revision(out.identity.revision))
        identify_peripheral(device, *p, out);
    return out;
}

namespace {

// The ports bus of the link check: the caller's, else libpci (opened at the first device) on
// the kernel bus, else none.
class LinkChecker {
public:
    LinkChecker(vfio::DeviceBus& bus, const IdentifyOptions& options)
        : m_ports(options.link_ports), m_progress(options.progress),
          m_kernel(dynamic_cast<vfio::KernelDeviceBus*>(&bus) != nullptr) {}

    void check(vfio::Device& device) {
        if (!m_progress || (!m_ports && !m_kernel))
            return;
        if (!m_ports && !m_tried_libpci) {
            m_tried_libpci = true;
            auto opened = pcie::open_libpci_backend(false);
            if (opened)
                m_libpci = std::move(opened).value();
            else
                *m_progress << "Note: link check: " << opened.error().message() << "\n";
            m_ports = m_libpci.get();
        }
        if (!m_ports)
            return;
        for (const std::string& line : device_link_lines(*m_ports, device))
            *m_progress << line << "\n";
    }

private:
    pcie::ConfigBackend* m_ports;
    std::ostream* m_progress;
    bool m_kernel;
    bool m_tried_libpci = false;
    std::unique_ptr<pcie::ConfigBackend> m_libpci;
};

}  // namespace

std::string candidate_names(const std::vector<const designs::Design*>& candidates) {
    std::string names;
    for (const designs::Design* d : candidates)
        names += (names.empty() ? "" : " or ") + d->text_name();
    return names;
}

pdt::Result<Identification> identify_designs(vfio::DeviceBus& bus, const designs::Registry& registry,
                                             const IdentifyOptions& options) {
    const std::vector<vfio::DeviceIdentity> scanned = PDT_TRY(bus.scan());
    Identification result;
    LinkChecker link_checker(bus, options);
    for (const vfio::DeviceIdentity& identity : scanned) {
        if (!options.locations.empty() &&
            std::find(options.locations.begin(), options.locations.end(), identity.address) == options.locations.end())
            continue;
        const std::vector<const designs::Design*> candidates = registry.candidates(identity);
        if (candidates.empty())
            continue;
        if (identity.iommu_group < 0) {
            if (options.progress)
                *options.progress << "Skipping " << identity.description() << " as no IOMMU group\n";
            continue;
        }
        if (options.progress)
            *options.progress << "Opening " << identity.description() << " with IOMMU group " << identity.iommu_group
                              << "\n";
        auto device = bus.open(identity);
        if (!device) {
            result.failures.push_back(std::move(device).error());
            continue;
        }
        link_checker.check(**device);
        // Designs that share PCI IDs differ by a register's content (read only).
        const auto chosen = std::find_if(candidates.begin(), candidates.end(),
                                         [&](const designs::Design* d) { return content_matches(**device, *d); });
        if (chosen == candidates.end()) {
            if (options.progress)
                *options.progress << "Skipping " << identity.description() << ": its registers match none of "
                                  << candidate_names(candidates) << "\n";
            continue;
        }
        auto identified = identify_device(**device, **chosen);
        if (!identified) {
            result.failures.push_back(std::move(identified).error());
            continue;
        }
        identified->identity.iommu_group = identity.iommu_group;
        identified->device = std::move(*device);
        result.designs.push_back(std::move(*identified));
    }
    return result;
}

}  // namespace identify
