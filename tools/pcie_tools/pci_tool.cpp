#include "pci_tool.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/invoked_name.hpp"
#include "sim/config_topology.hpp"

namespace pci_tool {

Invocation start(const char* argv0, std::string_view tool) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    cli::PciAccessName invoked = cli::pci_access_name(argv0, tool);
    return {std::move(invoked.name), std::move(invoked.access)};
}

void add_access_option(boost::program_options::options_description& options, std::string& access,
                       const char* help) {
    options.add_options()("access", boost::program_options::value(&access)->default_value(access), help);
}

void warn_unless_root(const std::string& access, const char* consequence) {
    if ((access == "libpci" || access == "pciaccess") && geteuid() != 0)
        std::cerr << "Warning: not running as root (no CAP_SYS_ADMIN): only the first 64 bytes of config space "
                     "are readable, so " +
                         std::string(consequence) + "\n";
}

pdt::Result<std::unique_ptr<pcie::ConfigBackend>> open_config_backend(const std::string& access, bool writable,
                                                                      std::chrono::milliseconds lock_wait) {
    const vfio::LockOptions lock{vfio::configured_lock_directory(), lock_wait, ""};
    return pcie::open_backend(access, writable, lock, sim::open_demo_topology);
}

}  // namespace pci_tool
