// A tool main built once and installed under several names (fpga_sio's, each a symbolic link to
// the one executable: pdt_add_tool_aliases in the top CMakeLists.txt) picks its defaults by the
// name it was run under, and prints that name in its usage:
//
//   struct Name { std::string_view name; std::string_view access; };
//   constexpr std::array<Name, 2> kNames{{{"dump_pci_info", "libpci"}, {"dump_pci_info_vfio", "vfio"}}};
//   const Name& invoked = cli::name_invoked(argv[0], std::span<const Name>(kNames));
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace cli {

// The last component of argv[0]: the name the tool was run under (a symbolic link's own name,
// not its target's).
std::string_view invoked_name(const char* argv0);

// Of the names a main answers to (its own first, each a struct with a `name` member), the one
// argv[0] names; the first when argv[0] names none of them (a copy under another name, an empty
// argv[0]), so that the main behaves as itself.
template <typename Name>
const Name& name_invoked(const char* argv0, std::span<const Name> names) {
    const std::string_view invoked = invoked_name(argv0);
    for (const Name& candidate : names)
        if (candidate.name == invoked)
            return candidate;
    return names.front();
}

// fpga_sio's PCI tools (dump_pci_info, display_physical_slots, pcie_set_speed) answer also to
// <tool>_pciutils, <tool>_libpciaccess and <tool>_vfio: the name run under, and the --access
// default it gives (libpci, pciaccess, vfio); the tool's own name, or any other, gives libpci.
struct PciAccessName {
    std::string name;
    std::string access;
};
PciAccessName pci_access_name(const char* argv0, std::string_view tool);

}  // namespace cli
