// The lspci -x/-xxx/-xxxx dump parser (pcie::DumpBackend, dump_pci_info --access dump:<file>) and
// what dump_pci_info does with what it parsed: open every device, dump the first with its
// bridges up to the root and its link path, select devices. Properties: a parsed device opens
// and its space is at most 4096 bytes; errors name the source. (Decoding and formatting of
// arbitrary spaces is fuzz_config_space's work; here only one device is dumped per input.)
#include "fuzz_support.hpp"
#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/dump_info.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto bus = pcie::DumpBackend::parse(pdt_fuzz::text(data, size), "fuzz.lspci");
    if (!bus) {
        PDT_FUZZ_CHECK(bus.error().message().find("fuzz.lspci") != std::string::npos);
        return 0;
    }
    const auto devices = (*bus)->devices();
    PDT_FUZZ_CHECK(devices && !devices->empty());
    for (const auto& address : *devices) {
        const auto space = (*bus)->open(address);
        PDT_FUZZ_CHECK(space.ok());
        PDT_FUZZ_CHECK((*space)->size() >= 1 && (*space)->size() <= 4096);
    }
    (void)pcie::dump_device(**bus, devices->back());  // the last: below the bridges listed before it
    (void)pcie::select_devices(**bus, {});
    return 0;
}
