#include "cli/invoked_name.hpp"

#include <array>
#include <utility>

namespace cli {

std::string_view invoked_name(const char* argv0) {
    const std::string_view path = argv0 ? argv0 : "";
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

PciAccessName pci_access_name(const char* argv0, std::string_view tool) {
    // The name's suffix and the backend fpga_sio's program of that name reads through.
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kSuffixes{
        {{"", "libpci"}, {"_pciutils", "libpci"}, {"_libpciaccess", "pciaccess"}, {"_vfio", "vfio"}}};
    const std::string_view invoked = invoked_name(argv0);
    for (const auto& [suffix, access] : kSuffixes)
        if (invoked.size() == tool.size() + suffix.size() && invoked.starts_with(tool) && invoked.ends_with(suffix))
            return {std::string(invoked), std::string(access)};
    return {std::string(tool), "libpci"};
}

}  // namespace cli
