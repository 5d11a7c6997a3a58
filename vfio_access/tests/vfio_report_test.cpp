#include <gtest/gtest.h>
#include <linux/vfio.h>

#include "vfio_report.hpp"

namespace {

vfio::report::Report edu_report() {
    using namespace vfio;
    report::Report r;
    r.container.api_version = 0;
    r.container.extensions = {{"TYPE1", true}, {"TYPE1v2", true}, {"NOIOMMU", false}};
    r.container.iommu_type = VFIO_TYPE1v2_IOMMU;
    IommuInfo iommu;
    iommu.flags = VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS;
    iommu.iova_pgsizes = 0x40201000;
    iommu.has_iova_range_cap = true;
    iommu.iova_ranges = {{0, 0xfedfffff}, {0xfef00000, 0xffffffffffff}};
    iommu.dma_avail = 65535;
    r.container.iommu = iommu;
    report::DeviceReport d;
    d.identity.address = PciAddress::parse("0000:00:03.0").value();
    d.identity.vendor_id = 0x1234;
    d.identity.device_id = 0x11e8;
    d.identity.subsystem_vendor_id = 0x1af4;
    d.identity.subsystem_device_id = 0x1100;
    d.group = {5, "/dev/vfio/5", false, true, false};
    d.flags = VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI;
    d.num_regions = 9;
    d.num_irqs = 5;
    d.command = 0x0002;
    RegionInfo bar0{0, VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE | VFIO_REGION_INFO_FLAG_MMAP, 0x100000, 0, {}};
    bar0.caps = {VFIO_REGION_INFO_CAP_MSIX_MAPPABLE, 99};
    RegionInfo config{7, VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE, 0x100, 0x70000000000, {}};
    d.regions = {{bar0, report::decode_bar(0xfea00000, 0)}, {config, std::nullopt}};
    d.irqs = {{IrqIndex::Intx, 1, VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_MASKABLE | VFIO_IRQ_INFO_AUTOMASKED},
              {IrqIndex::Msi, 1, VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_NORESIZE}};
    r.devices.push_back(d);
    return r;
}

}  // namespace

TEST(VfioReport, TextHasFpgaSioLines) {
    const std::string text = vfio::report::format_text(edu_report());
    for (const char* line : {"VFIO API version 0\n", "Extension support for /dev/vfio/vfio:\n",
                             "  Extension TYPE1v2 support 1\n", "  Extension NOIOMMU support 0\n",
                             "IOMMU type set to 3 (TYPE1v2)\n", "  info supports: pagesizes=1 caps=1\n",
                             "  IOVA supported page sizes: 0x1000 0x200000 0x40000000\n",
                             "  [0] start=0x0 end=0xfedfffff\n", "  [1] start=0xfef00000 end=0xffffffffffff\n",
                             "  DMA_AVAIL capability: avail=65535\n", "IOMMU group 5 (/dev/vfio/5):\n",
                             "  viable=1  container_set=0\n",
                             "Device 0000:00:03.0 num_regions=9 num_irqs=5 flags: reset pci\n",
                             "  Device [1234:11e8] Subsystem [1af4:1100]\n", "  control: I/O- Mem+ BusMaster-\n",
                             "  PCI region BAR0 size=0x100000 offset=0x0 supports: read write mmap\n",
                             "    bar[0] base_addr=0xfea00000 is_IO=0 is_prefetchable=0 is_64=0\n",
                             "  PCI region CONFIG size=0x100 offset=0x70000000000 supports: read write\n",
                             "    region capability MSIX_MAPPABLE\n", "    region capability id=99\n",
                             "  IRQ block INTX count=1 flags: eventfd maskable automasked\n",
                             "  IRQ block MSI count=1 flags: eventfd noresize\n"})
        EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "in:\n" << text;
}

TEST(VfioReport, MissingIovaRangeCapabilityIsShown) {
    auto report = edu_report();
    report.container.iommu->has_iova_range_cap = false;
    report.container.iommu->iova_ranges.clear();
    EXPECT_NE(vfio::report::format_text(report).find("DMA allocation is impossible"), std::string::npos);
}

TEST(VfioReport, JsonCarriesTheSameFacts) {
    const auto j = vfio::report::to_json(edu_report());
    EXPECT_EQ(j["extensions"]["TYPE1v2"], true);
    EXPECT_EQ(j["iommu"]["type_name"], "TYPE1v2");
    EXPECT_EQ(j["iommu"]["page_sizes"].size(), 3u);
    EXPECT_EQ(j["iommu"]["iova_ranges"][1]["start"], 0xfef00000u);
    EXPECT_EQ(j["iommu"]["dma_avail"], 65535);
    const auto& dev = j["devices"][0];
    EXPECT_EQ(dev["address"], "0000:00:03.0");
    EXPECT_EQ(dev["vendor_id"], "1234");
    EXPECT_EQ(dev["iommu_group"], 5);
    EXPECT_EQ(dev["regions"][0]["name"], "BAR0");
    EXPECT_EQ(dev["regions"][0]["mmap"], true);
    EXPECT_EQ(dev["regions"][0]["bar"]["base_addr"], 0xfea00000u);
    EXPECT_FALSE(dev["regions"][1].contains("bar"));
    EXPECT_EQ(dev["irqs"][1]["index"], "MSI");
    EXPECT_TRUE(j["errors"].empty());
}

TEST(VfioReport, BarDecoding) {
    const auto io = vfio::report::decode_bar(0xc001, 0);
    EXPECT_TRUE(io.is_io);
    EXPECT_EQ(io.base_addr, 0xc000u);
    const auto mem64 = vfio::report::decode_bar(0xe000000c, 0x38);
    EXPECT_FALSE(mem64.is_io);
    EXPECT_TRUE(mem64.is_64);
    EXPECT_TRUE(mem64.is_prefetchable);
    EXPECT_EQ(mem64.base_addr, 0x38e0000000ull);
    const auto mem32 = vfio::report::decode_bar(0xfea00000, 0xffffffff);
    EXPECT_FALSE(mem32.is_64);
    EXPECT_EQ(mem32.base_addr, 0xfea00000u);
}

TEST(VfioReport, FlagNames) {
    EXPECT_EQ(vfio::report::device_flags_text(VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_CAPS), "pci caps");
    EXPECT_EQ(vfio::report::irq_block_name(vfio::IrqIndex::Msix), "MSIX");
    EXPECT_EQ(vfio::report::iommu_type_name(VFIO_NOIOMMU_IOMMU), "NOIOMMU");
}
