// PCI address parsing: vfio::PciAddress::parse (strict dddd:bb:dd.f), pcie::parse_bdf (also
// lspci's bb:dd.f), vfio::parse_hex_id (--vendor/--device values), DeviceSelection, and the
// sysfs cpulist of a device's NUMA node (vfio::parse_cpu_list).
// Properties: a parsed address prints back to the lower-cased input; an error names the input.
#include <sched.h>

#include <cctype>

#include "fuzz_support.hpp"
#include "pcie_tools/config_space.hpp"
#include "vfio_access/filter.hpp"
#include "vfio_access/numa.hpp"
#include "vfio_access/pci_address.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input = pdt_fuzz::text(data, size);
    const auto address = vfio::PciAddress::parse(input);
    if (address) {
        std::string lower = input;
        for (char& c : lower)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        PDT_FUZZ_CHECK(address->to_string() == lower);
        PDT_FUZZ_CHECK(address->device <= 0x1f && address->function <= 7);
        const auto again = vfio::PciAddress::parse(address->to_string());
        PDT_FUZZ_CHECK(again && *again == *address);
    } else {
        PDT_FUZZ_CHECK(address.error().code == EINVAL);
        PDT_FUZZ_CHECK(!address.error().message().empty());
    }
    const auto bdf = pcie::parse_bdf(input);
    if (bdf && input.size() == 12)
        PDT_FUZZ_CHECK(address && *bdf == *address);
    vfio::DeviceSelection selection;
    const auto added = selection.add_location(input);
    PDT_FUZZ_CHECK(added.ok() == address.ok());
    PDT_FUZZ_CHECK(selection.locations().size() == (address ? 1u : 0u));
    const auto id = vfio::parse_hex_id(input, "--vendor");
    if (!id)
        PDT_FUZZ_CHECK(id.error().message().find("--vendor") != std::string::npos);
    const auto cpus = vfio::parse_cpu_list(input);
    if (cpus)
        for (int cpu : *cpus)
            PDT_FUZZ_CHECK(cpu >= 0 && cpu < CPU_SETSIZE);
    else
        PDT_FUZZ_CHECK(cpus.error().code == EINVAL);
    return 0;
}
