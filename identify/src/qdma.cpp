// QDMA identification (PG302): the QDMA identifier, the version register and the capability
// registers of the global CSR space at offset 0 of the QDMA BAR, read only. Offsets and fields
// as sim/qdma_model.hpp lists them; the decoded words are those fpga_sio prints.
#include <cerrno>
#include <iterator>
#include <string>

#include "base/format.hpp"
#include "identify/identify.hpp"

namespace identify {
namespace {

constexpr uint64_t kConfigBlockId = 0x000;        // QDMA_GLBL1 config block identifier
constexpr uint32_t kQdmaIdentifier = 0x1FD3;      // [31:16] (PG302 Config Block Identifier)
constexpr uint64_t kGlbl2PfBarliteInt = 0x104;    // QDMA_GLBL2_PF_BARLITE_INT
constexpr uint64_t kGlbl2ChannelMdma = 0x118;     // QDMA_GLBL2_CHANNEL_MDMA
constexpr uint64_t kGlbl2ChannelQdmaCap = 0x120;  // QDMA_GLBL2_CHANNEL_QDMA_CAP
constexpr uint64_t kGlbl2MiscCap = 0x134;         // QDMA_GLBL2_MISC_CAP
constexpr uint64_t kFrameSize = 0x138;            // up to and with QDMA_GLBL2_MISC_CAP

uint32_t field(uint32_t value, unsigned high, unsigned low) {
    return (value >> low) & ((1u << (high - low + 1)) - 1);
}

// QDMA_GLBL2_MISC_CAP [31:16]: device type, Vivado release, IP type, RTL version.
void decode_version(uint32_t misc_cap, QdmaInfo& info) {
    const uint32_t device_type = field(misc_cap, 31, 28);
    const uint32_t vivado_release = field(misc_cap, 27, 24);
    const uint32_t ip_type = field(misc_cap, 23, 20);
    const uint32_t rtl_version = field(misc_cap, 19, 16);
    info.rtl_version = rtl_version == 0 ? "RTL Base" : rtl_version == 1 ? "RTL Patch" : "RTL Unknown";
    static const char* const kDeviceTypes[] = {"Soft IP", "Versal CPM4 Hard IP", "Versal Hard CPM5"};
    info.device_type = device_type < 3 ? kDeviceTypes[device_type] : "Unknown";
    const bool soft = device_type == 0;
    // Soft IP: 0 QDMA 3.1, 1 EQDMA 4.0, 2 EQDMA 5.0; Versal: 0 hard IP, 1 soft IP.
    static const char* const kSoftIpTypes[] = {"QDMA Soft IP", "EQDMA4.0 Soft IP", "EQDMA5.0 Soft IP"};
    static const char* const kVersalIpTypes[] = {"Versal Hard IP", "Versal Soft IP"};
    info.ip_type = soft ? (ip_type < 3 ? kSoftIpTypes[ip_type] : "Unknown")
                        : (ip_type < 2 ? kVersalIpTypes[ip_type] : "Unknown");
    info.supported = soft && (ip_type == 1 || ip_type == 2);  // the EQDMA register layout
    // The Vivado release field counts from the first release of each IP generation.
    static const char* const kQdmaReleases[] = {"vivado 2018.3", "vivado 2019.1", "vivado 2019.2"};
    static const char* const kEqdmaReleases[] = {"vivado 2020.1", "vivado 2020.2", "vivado 2022.1"};
    static const char* const kCpm5Releases[] = {"vivado 2021.1", "vivado 2022.1"};
    static const char* const kVersalReleases[] = {"vivado 2019.2"};
    const auto pick = [&](const auto& names) {
        return vivado_release < std::size(names) ? names[vivado_release] : "Unknown";
    };
    if (soft && ip_type == 0)
        info.vivado_release = pick(kQdmaReleases);
    else if (info.supported)
        info.vivado_release = pick(kEqdmaReleases);
    else if (device_type == 2)
        info.vivado_release = pick(kCpm5Releases);
    else
        info.vivado_release = soft ? "Unknown" : pick(kVersalReleases);
}

// The EQDMA capability registers.
void decode_capabilities(vfio::RegisterWindow& regs, uint32_t misc_cap, QdmaInfo& info) {
    const uint32_t pf_barlite = regs.read32(kGlbl2PfBarliteInt);
    for (unsigned pf = 0; pf < 4; ++pf)
        info.num_pfs += field(pf_barlite, 6 * pf + 5, 6 * pf) != 0;
    info.num_queues = field(regs.read32(kGlbl2ChannelQdmaCap), 11, 0);
    const uint32_t mdma = regs.read32(kGlbl2ChannelMdma);
    info.st_enabled = field(mdma, 17, 17) && field(mdma, 16, 16);  // C2H_ST and H2C_ST
    info.mm_enabled = field(mdma, 11, 8) && field(mdma, 3, 0);     // C2H_ENG and H2C_ENG
    info.mm_channels = 1;
    info.mailbox_enabled = field(misc_cap, 0, 0);
    info.flr_present = field(misc_cap, 1, 1);
    info.debug_mode = field(misc_cap, 4, 4);
    static const char* const kModes[] = {"Internal and Bypass mode", "Bypass only mode", "Internal only mode", "Unknown"};
    info.desc_engine_mode = kModes[field(misc_cap, 3, 2)];
}

}  // namespace

pdt::Result<QdmaInfo> read_qdma(vfio::Device& device, const designs::Qdma& qdma) {
    vfio::Bar* bar = PDT_TRY(device.bar(qdma.bar));
    vfio::RegisterWindow regs = PDT_TRY(bar->window(0, kFrameSize, vfio::Access64::SplitLowHigh));
    const uint32_t id = regs.read32(kConfigBlockId);
    if (field(id, 31, 16) != kQdmaIdentifier)
        return pdt::make_error("identify QDMA", "bar " + std::to_string(qdma.bar), ENODEV,
                               "config block identifier " + pdt::hex(id) + " is not the QDMA's 0x1fd3");
    QdmaInfo info;
    info.bar = qdma.bar;
    info.memory_base = qdma.memory_base;
    info.memory_size = qdma.memory_size;
    const uint32_t misc_cap = regs.read32(kGlbl2MiscCap);
    decode_version(misc_cap, info);
    if (info.supported)
        decode_capabilities(regs, misc_cap, info);
    return info;
}

}  // namespace identify
