#include "identify/link_check.hpp"

#include "pcie_tools/backends.hpp"

namespace identify {

std::vector<std::string> device_link_lines(pcie::ConfigBackend& ports, vfio::Device& device) {
    auto lines = pcie::open_device_link_warning(ports, device);
    if (!lines)
        return {"Note: link check of " + device.identity().address.to_string() + ": " + lines.error().message()};
    return std::move(lines).value();
}

}  // namespace identify
