#include "tool_support/switch_routes.hpp"

#include <cerrno>

#include "base/numbers.hpp"
#include "base/option_error.hpp"

namespace tool_support {
pdt::Result<DeviceRouting> parse_device_routing(const std::string& option, const std::string& text) {
    DeviceRouting routing;
    size_t start = 0;
    size_t comma = text.find(',');
    auto address = vfio::PciAddress::parse(text.substr(0, comma));
    if (!address.ok())
        return pdt::option_error(option, text, address.error().message());
    routing.address = *address;
    while (comma != std::string::npos) {
        start = comma + 1;
        comma = text.find(',', start);
        const std::string route = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto colon = route.find(':');
        if (colon == std::string::npos)
            return pdt::option_error(option, text, "each route is <master>:<slave>");
        const uint64_t master = PDT_TRY(pdt::parse_number(option, route.substr(0, colon), 0, 15));
        const uint64_t slave = PDT_TRY(pdt::parse_number(option, route.substr(colon + 1), 0, 15));
        for (const auto& existing : routing.routes)
            if (existing.master == master)
                return pdt::option_error(option, text, "master port " + std::to_string(master) + " routed twice");
        routing.routes.push_back(SwitchRoute{static_cast<unsigned>(master), static_cast<unsigned>(slave)});
    }
    return routing;
}

}  // namespace tool_support
