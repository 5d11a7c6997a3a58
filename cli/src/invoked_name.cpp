#include "cli/invoked_name.hpp"

namespace cli {

std::string_view invoked_name(const char* argv0) {
    const std::string_view path = argv0 ? argv0 : "";
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace cli
