// What fpga_sio's PCI tools (dump_pci_info, display_physical_slots, pcie_set_speed) share. Each
// is built once and installed also under fpga_sio's names (symbolic links:
// pcie_tools/CMakeLists.txt): the name it runs under names it in its messages and gives --access
// its default (cli::pci_access_name). --access names the config-space backend, `sim` the demo
// topology (sim::open_demo_topology).
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "pcie_tools/config_space.hpp"

namespace pci_tool {

struct Invocation {
    std::string tool;    // the name run under
    std::string access;  // --access's default, by that name
};

// Line-buffers stdout (each line reaches a pipe or file as printed) and reads the name run under.
Invocation start(const char* argv0, std::string_view tool);

// Adds --access, bound to `access` and defaulting to its value; `help` names the backends as
// this tool uses them.
void add_access_option(boost::program_options::options_description& options, std::string& access,
                       const char* help);

// libpci and pciaccess without root (no CAP_SYS_ADMIN) read only the first 64 bytes of config
// space: then a warning on stderr, ending with what the tool cannot do (`consequence`).
void warn_unless_root(const std::string& access, const char* consequence);

// The backend --access names, for writes or reads only; --access vfio takes each function's
// advisory lock, waiting at most `lock_wait` for a busy one.
pdt::Result<std::unique_ptr<pcie::ConfigBackend>> open_config_backend(const std::string& access, bool writable,
                                                                      std::chrono::milliseconds lock_wait);

}  // namespace pci_tool
