// The runtime binding in a build without libetrt: says so.
#include "etsoc1/runtime_card.hpp"

namespace etsoc1 {

bool runtime_built() { return false; }

pdt::Result<std::unique_ptr<Card>> open_runtime_card(const RuntimeOptions& options) {
    if (options.socket.empty())
        PDT_TRY(preflight(options.dev_dir));  // in-process: a missing driver or a busy card is said first
    return pdt::make_error("open ET-SoC-1 card", "libetrt", ENODEV,
                           "this build has no ET-SoC-1 runtime binding: CMake did not find the runtime under "
                           "/opt/et (ET_PLATFORM_PATH); install et-platform there and rebuild");
}

}  // namespace etsoc1
