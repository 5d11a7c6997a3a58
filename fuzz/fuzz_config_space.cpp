// The config-space capability walker and decoders over arbitrary bytes: the first byte's bits
// 1:0 pick the space size (64, 256 or 4096 bytes, as sysfs, conventional and extended spaces
// read), bit 2 asks for the JSON too; the rest is the content (missing bytes read as 0). Runs
// what dump_pci_info runs on one function: walk_capabilities, decode_device, read_express, the
// text formatter and (bit 2) the JSON one -- not always, as it costs more than the rest together.
#include "fuzz_support.hpp"
#include "pcie_tools/capabilities.hpp"
#include "pcie_tools/decode.hpp"
#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/dump_info.hpp"
#include "pcie_tools/config_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0)
        return 0;
    static constexpr uint32_t kSizes[] = {64, 256, 4096, 4096};  // bits 1:0
    const uint32_t space_size = kSizes[data[0] % 4];
    std::vector<uint8_t> bytes(space_size, 0);
    std::copy(data + 1, data + std::min<size_t>(size, space_size + 1), bytes.begin());
    pcie::MemoryConfigSpace space(vfio::PciAddress{0, 1, 0, 0}, std::move(bytes));

    const pcie::CapabilityList caps = pcie::walk_capabilities(space);
    PDT_FUZZ_CHECK(caps.standard.size() <= 256 && caps.extended.size() <= 4096);
    for (const auto& cap : caps.standard)
        PDT_FUZZ_CHECK(cap.offset >= 0x40 && cap.offset < space_size);
    for (const auto& cap : caps.extended)
        PDT_FUZZ_CHECK(cap.offset >= 0x100 && cap.offset < space_size);
    (void)pcie::read_express(space);
    const auto config = pcie::decode_device(space);
    if (config) {
        const pcie::SystemInfo info;
        const pcie::Lines lines = pcie::format_device(space, *config, info);
        PDT_FUZZ_CHECK(!pcie::format_capabilities(*config).empty() || config->caps.standard.empty());
        PDT_FUZZ_CHECK(!lines.empty());
        if (data[0] & 4)
            (void)pcie::to_json(*config, info).dump();
    }
    return 0;
}
