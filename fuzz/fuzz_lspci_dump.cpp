// The lspci -x/-xxx/-xxxx dump parser (pcie::DumpBus, dump_pci_info --access dump:<file>) and
// everything dump_pci_info does with what it parsed: select devices, open each, dump it with
// its bridges up to the root, as text and JSON. Properties: a parsed device opens, its space is
// at most 4096 bytes; errors name the source.
#include "fuzz_support.hpp"
#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/dump_info.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto bus = pcie::DumpBus::parse(pdt_fuzz::text(data, size), "fuzz.lspci");
    if (!bus) {
        PDT_FUZZ_CHECK(bus.error().message().find("fuzz.lspci") != std::string::npos);
        return 0;
    }
    const auto devices = (*bus)->devices();
    if (!devices)
        return 0;
    size_t dumped = 0;
    for (const auto& address : *devices) {
        const auto space = (*bus)->open(address);
        PDT_FUZZ_CHECK(space.ok());
        PDT_FUZZ_CHECK((*space)->size() <= 4096);
        if (dumped++ < 4) {  // bound the work per input; the rest is the same code
            (void)pcie::dump_device(**bus, address);
            (void)pcie::dump_device_json(**bus, address);
        }
    }
    (void)pcie::select_devices(**bus, {});
    return 0;
}
