// Design data files (designs/data/*.json, --design_file): the JSON parser and the checks of
// designs::Registry::add_text, then what the tools ask of a parsed design. Properties: an error
// names the source; a design that loads has a name and can be found and matched.
#include "designs/registry.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    designs::Registry registry;
    const auto added = registry.add_text(pdt_fuzz::text(data, size), "fuzz.json");
    if (!added) {
        PDT_FUZZ_CHECK(added.error().message().find("fuzz.json") != std::string::npos);
        return 0;
    }
    for (const auto& design : registry.designs()) {
        PDT_FUZZ_CHECK(!design.name.empty());
        PDT_FUZZ_CHECK(!design.text_name().empty());
        PDT_FUZZ_CHECK(registry.find(design.name) != nullptr);
        for (unsigned revision : {0u, 1u, 255u})
            (void)design.peripherals_for_revision(static_cast<uint8_t>(revision));
        vfio::DeviceIdentity identity;
        identity.vendor_id = design.match.vendor_id;
        identity.device_id = design.match.device_id.value_or(0);
        (void)registry.candidates(identity);
        for (const auto& peripheral : design.peripherals)
            (void)peripheral.frame_size();
    }
    return 0;
}
