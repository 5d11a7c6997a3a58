#include "base/format.hpp"
#include "vfio_report.hpp"

#include <linux/vfio.h>

#include <cstdio>

namespace vfio::report {
namespace {

using pdt::hex;

std::string hex4(uint16_t value) {
    char text[8];
    std::snprintf(text, sizeof text, "%04x", value);
    return text;
}

std::string join_flags(uint32_t flags, std::initializer_list<std::pair<uint32_t, const char*>> names) {
    std::string text;
    for (const auto& [bit, name] : names)
        if (flags & bit)
            text += (text.empty() ? "" : " ") + std::string(name);
    return text;
}

std::string region_supports(const RegionInfo& r) {
    if (!(r.flags & (VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE | VFIO_REGION_INFO_FLAG_MMAP)))
        return "none";
    return join_flags(r.flags, {{VFIO_REGION_INFO_FLAG_READ, "read"},
                                {VFIO_REGION_INFO_FLAG_WRITE, "write"},
                                {VFIO_REGION_INFO_FLAG_MMAP, "mmap"}});
}

const char* plus_minus(bool on) { return on ? "+" : "-"; }

void append_iommu_text(const ContainerInfo& c, std::string& out) {
    out += "IOMMU type set to " + std::to_string(c.iommu_type) + " (" + iommu_type_name(c.iommu_type) + ")\n";
    if (!c.iommu)
        return;
    const IommuInfo& i = *c.iommu;
    out += "  info supports: pagesizes=" + std::to_string((i.flags & VFIO_IOMMU_INFO_PGSIZES) ? 1 : 0) +
           " caps=" + std::to_string((i.flags & VFIO_IOMMU_INFO_CAPS) ? 1 : 0) + "\n";
    out += "  IOVA supported page sizes: " + page_sizes_text(i.iova_pgsizes) + "\n";
    if (!i.has_iova_range_cap)
        out += "  No IOVA range capability: DMA allocation is impossible\n";
    for (size_t n = 0; n < i.iova_ranges.size(); ++n)
        out += "  [" + std::to_string(n) + "] start=" + pdt::hex(i.iova_ranges[n].start) + " end=" + pdt::hex(i.iova_ranges[n].last) + "\n";
    if (i.migration)
        out += "  MIGRATION capability: flags=" + pdt::hex(i.migration->flags) + " max dirty bitmap size=" +
               pdt::hex(i.migration->max_dirty_bitmap_size) + " dirty page sizes: " + page_sizes_text(i.migration->pgsize_bitmap) + "\n";
    if (i.dma_avail)
        out += "  DMA_AVAIL capability: avail=" + std::to_string(*i.dma_avail) + "\n";
    for (uint16_t id : i.other_caps)
        out += "  capability id=" + std::to_string(id) + " (not decoded)\n";
}

void append_device_text(const DeviceReport& d, std::string& out) {
    out += "IOMMU group " + std::to_string(d.group.number) + " (" + d.group.path + "):\n";
    out += "  viable=" + std::to_string(d.group.viable ? 1 : 0) + "  container_set=" + std::to_string(d.group.container_was_set ? 1 : 0) + "\n";
    out += "Device " + d.identity.address.to_string() + " num_regions=" + std::to_string(d.num_regions) +
           " num_irqs=" + std::to_string(d.num_irqs) + " flags: " + device_flags_text(d.flags) + "\n";
    out += "  Device [" + hex4(d.identity.vendor_id) + ":" + hex4(d.identity.device_id) + "] Subsystem [" +
           hex4(d.identity.subsystem_vendor_id) + ":" + hex4(d.identity.subsystem_device_id) + "]\n";
    out += std::string("  control: I/O") + plus_minus(d.command & 0x1) + " Mem" + plus_minus(d.command & cfg::COMMAND_MEMORY) +
           " BusMaster" + plus_minus(d.command & cfg::COMMAND_MASTER) + "\n";
    for (const RegionReport& r : d.regions) {
        out += "  PCI region " + r.info.name() + " size=" + pdt::hex(r.info.size) + " offset=" + pdt::hex(r.info.offset) +
               " supports: " + region_supports(r.info) + "\n";
        if (r.bar)
            out += "    bar[" + std::to_string(r.info.index) + "] base_addr=" + pdt::hex(r.bar->base_addr) +
                   " is_IO=" + std::to_string(r.bar->is_io) + " is_prefetchable=" + std::to_string(r.bar->is_prefetchable) +
                   " is_64=" + std::to_string(r.bar->is_64) + "\n";
        for (uint16_t cap : r.info.caps)
            out += "    region capability " + region_cap_name(cap) + "\n";
    }
    for (const IrqInfo& irq : d.irqs)
        out += "  IRQ block " + irq_block_name(irq.index) + " count=" + std::to_string(irq.count) +
               " flags: " + irq_flags_text(irq.flags) + "\n";
}

}  // namespace

BarDecode decode_bar(uint32_t low, uint32_t high) {
    BarDecode bar;
    bar.is_io = low & 1u;
    if (bar.is_io) {
        bar.base_addr = low & ~0x3u;
        return bar;
    }
    bar.is_prefetchable = low & 0x8u;
    bar.is_64 = ((low >> 1) & 0x3u) == 0x2u;
    bar.base_addr = (low & ~0xfull) | (bar.is_64 ? static_cast<uint64_t>(high) << 32 : 0);
    return bar;
}

std::string region_cap_name(uint16_t id) {
    switch (id) {
    case VFIO_REGION_INFO_CAP_SPARSE_MMAP: return "SPARSE_MMAP";
    case VFIO_REGION_INFO_CAP_TYPE: return "TYPE";
    case VFIO_REGION_INFO_CAP_MSIX_MAPPABLE: return "MSIX_MAPPABLE";
    case VFIO_REGION_INFO_CAP_NVLINK2_SSATGT: return "NVLINK2_SSATGT";
    case VFIO_REGION_INFO_CAP_NVLINK2_LNKSPD: return "NVLINK2_LNKSPD";
    default: return "id=" + std::to_string(id);
    }
}

std::string iommu_type_name(int type) {
    switch (type) {
    case 0: return "none";
    case VFIO_TYPE1_IOMMU: return "TYPE1";
    case VFIO_TYPE1v2_IOMMU: return "TYPE1v2";
    case VFIO_NOIOMMU_IOMMU: return "NOIOMMU";
    default: return "type " + std::to_string(type);
    }
}

std::string device_flags_text(uint32_t flags) {
    return join_flags(flags, {{VFIO_DEVICE_FLAGS_RESET, "reset"}, {VFIO_DEVICE_FLAGS_PCI, "pci"},
                              {VFIO_DEVICE_FLAGS_PLATFORM, "platform"}, {VFIO_DEVICE_FLAGS_AMBA, "amba"},
                              {VFIO_DEVICE_FLAGS_CCW, "ccw"}, {VFIO_DEVICE_FLAGS_AP, "ap"},
                              {VFIO_DEVICE_FLAGS_CAPS, "caps"}});
}

std::string irq_flags_text(uint32_t flags) {
    return join_flags(flags, {{VFIO_IRQ_INFO_EVENTFD, "eventfd"}, {VFIO_IRQ_INFO_MASKABLE, "maskable"},
                              {VFIO_IRQ_INFO_AUTOMASKED, "automasked"}, {VFIO_IRQ_INFO_NORESIZE, "noresize"}});
}

std::string irq_block_name(IrqIndex index) {
    switch (index) {
    case IrqIndex::Intx: return "INTX";
    case IrqIndex::Msi: return "MSI";
    case IrqIndex::Msix: return "MSIX";
    case IrqIndex::Err: return "ERR";
    case IrqIndex::Req: return "REQ";
    }
    return "IRQ " + std::to_string(static_cast<unsigned>(index));
}

pdt::Result<DeviceReport> gather_device(KernelDevice& device_ref) {
    KernelDevice* device = &device_ref;
    DeviceReport d;
    d.identity = device->identity();
    d.group = device->group();
    d.flags = device->device_flags();
    d.num_regions = device->num_regions();
    d.num_irqs = device->num_irqs();
    d.command = PDT_TRY(device->config_read16(cfg::COMMAND));
    for (uint32_t i = 0; i < d.num_regions; ++i) {
        auto info = device->region_info(i);
        if (!info)  // e.g. no VGA region: the kernel answers EINVAL
            continue;
        RegionReport r{*info, std::nullopt};
        if (i <= VFIO_PCI_BAR5_REGION_INDEX && info->size > 0) {
            const uint32_t low = PDT_TRY(device->config_read32(0x10 + 4 * i));
            const uint32_t high = i < VFIO_PCI_BAR5_REGION_INDEX ? PDT_TRY(device->config_read32(0x14 + 4 * i)) : 0;
            r.bar = decode_bar(low, high);
        }
        d.regions.push_back(r);
    }
    for (uint32_t i = 0; i < d.num_irqs && i <= static_cast<uint32_t>(IrqIndex::Req); ++i) {
        auto irq = device->irq_info(static_cast<IrqIndex>(i));
        if (irq)
            d.irqs.push_back(*irq);
        else if (irq.error().code != EINVAL)  // EINVAL: the device lacks it (ERR without AER)
            return std::move(irq).error();
    }
    return d;
}

std::string format_text(const Report& report) {
    const ContainerInfo& c = report.container;
    std::string out = "VFIO API version " + std::to_string(c.api_version) + "\n";
    out += "Extension support for /dev/vfio/vfio:\n";
    for (const auto& [name, supported] : c.extensions)
        out += "  Extension " + name + " support " + std::to_string(supported ? 1 : 0) + "\n";
    if (!report.devices.empty())
        append_iommu_text(c, out);
    for (const DeviceReport& d : report.devices)
        append_device_text(d, out);
    return out;
}

nlohmann::json to_json(const Report& report) {
    using nlohmann::json;
    const ContainerInfo& c = report.container;
    json j;
    j["api_version"] = c.api_version;
    j["extensions"] = json::object();
    for (const auto& [name, supported] : c.extensions)
        j["extensions"][name] = supported;
    j["iommu"] = {{"type", c.iommu_type}, {"type_name", iommu_type_name(c.iommu_type)}};
    if (c.iommu) {
        const IommuInfo& i = *c.iommu;
        json sizes = json::array(), ranges = json::array();
        for (unsigned bit = 0; bit < 64; ++bit)
            if (i.iova_pgsizes & (1ull << bit))
                sizes.push_back(1ull << bit);
        for (const IovaRange& r : i.iova_ranges)
            ranges.push_back({{"start", r.start}, {"end", r.last}});
        j["iommu"]["flags"] = i.flags;
        j["iommu"]["page_sizes"] = sizes;
        j["iommu"]["iova_range_capability"] = i.has_iova_range_cap;
        j["iommu"]["iova_ranges"] = ranges;
        if (i.migration)
            j["iommu"]["migration"] = {{"flags", i.migration->flags}, {"pgsize_bitmap", i.migration->pgsize_bitmap},
                                       {"max_dirty_bitmap_size", i.migration->max_dirty_bitmap_size}};
        if (i.dma_avail)
            j["iommu"]["dma_avail"] = *i.dma_avail;
        j["iommu"]["other_caps"] = i.other_caps;
    }
    j["devices"] = json::array();
    for (const DeviceReport& d : report.devices) {
        json dev = {{"address", d.identity.address.to_string()},
                    {"vendor_id", hex4(d.identity.vendor_id)},
                    {"device_id", hex4(d.identity.device_id)},
                    {"subsystem_vendor_id", hex4(d.identity.subsystem_vendor_id)},
                    {"subsystem_device_id", hex4(d.identity.subsystem_device_id)},
                    {"iommu_group", d.group.number},
                    {"group_path", d.group.path},
                    {"viable", d.group.viable},
                    {"flags", device_flags_text(d.flags)},
                    {"num_regions", d.num_regions},
                    {"num_irqs", d.num_irqs},
                    {"command", d.command},
                    {"regions", json::array()},
                    {"irqs", json::array()}};
        for (const RegionReport& r : d.regions) {
            json region = {{"index", r.info.index}, {"name", r.info.name()}, {"size", r.info.size},
                           {"offset", r.info.offset}, {"read", r.info.readable()}, {"write", r.info.writable()},
                           {"mmap", r.info.mmappable()}, {"caps", r.info.caps}};
            if (r.bar)
                region["bar"] = {{"base_addr", r.bar->base_addr}, {"is_io", r.bar->is_io},
                                 {"is_prefetchable", r.bar->is_prefetchable}, {"is_64", r.bar->is_64}};
            dev["regions"].push_back(region);
        }
        for (const IrqInfo& irq : d.irqs)
            dev["irqs"].push_back({{"index", irq_block_name(irq.index)}, {"count", irq.count}, {"flags", irq_flags_text(irq.flags)}});
        j["devices"].push_back(dev);
    }
    j["errors"] = report.errors;
    return j;
}

}  // namespace vfio::report
