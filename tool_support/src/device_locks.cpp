#include "tool_support/device_locks.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "base/json_text.hpp"

namespace tool_support {
namespace {

using pdt::json_quote;

}  // namespace

std::string device_hold_json(const vfio::LockHold& hold) {
    char times[96];
    std::snprintf(times, sizeof times, ",\"waited_s\":%.3f,\"held_s\":%.3f,\"released\":%s}", hold.waited_s,
                  hold.held_s, hold.released ? "true" : "false");
    return "{\"type\":\"device_hold\",\"device\":" + json_quote(hold.address.to_string()) +
           ",\"lock_file\":" + json_quote(hold.path) + times;
}

void report_device_holds(std::FILE* out) {
    for (const vfio::LockHold& hold : vfio::lock_holds())
        std::fprintf(out, "%s\n", device_hold_json(hold).c_str());
    std::fflush(out);
}

}  // namespace tool_support
