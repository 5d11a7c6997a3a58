// The SFDP parser (flash/sfdp.hpp, JESD216): whatever a flash answers to 0x5A. Properties: an
// error is EINVAL or ENODEV (no signature); a parsed table has a density of 256 bytes to 2^40,
// at least one erase type, each a power of two, a page size a power of two, and sfdp_extent
// agrees that the header is there and stays within kSfdpMaxBytes.
#include <cerrno>

#include "flash/sfdp.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> bytes(data, size);
    const auto extent = flash::sfdp_extent(bytes);
    if (extent)
        PDT_FUZZ_CHECK(*extent <= flash::kSfdpMaxBytes);
    const auto info = flash::parse_sfdp(bytes);
    if (!info) {
        PDT_FUZZ_CHECK(info.error().code == EINVAL || info.error().code == ENODEV);
        return 0;
    }
    PDT_FUZZ_CHECK(extent.ok());
    PDT_FUZZ_CHECK(info->density_bytes >= 256 && info->density_bytes <= (uint64_t{1} << 40));
    PDT_FUZZ_CHECK(!info->erase_types.empty());
    for (const flash::EraseType& e : info->erase_types)
        PDT_FUZZ_CHECK(e.size != 0 && (e.size & (e.size - 1)) == 0);
    PDT_FUZZ_CHECK(info->page_size != 0 && (info->page_size & (info->page_size - 1)) == 0);
    PDT_FUZZ_CHECK(info->bfpt_dwords >= 9);
    return 0;
}
