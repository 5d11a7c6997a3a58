#include "tool_support/device_locks.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "vfio_access/json_text.hpp"

namespace tool_support {
namespace {

using vfio::json_quote;

}  // namespace

const char* lock_timeout_help() {
    return "seconds to wait for a device another process holds (default 0: fail at once, naming the holder's "
           "user, PID, tool and since when). Every tool takes an advisory lock per device in $PDT_LOCK_DIR, "
           "else /run/lock/pcie-dma-toolkit; --sim_design designs take none";
}

vfio::Result<std::chrono::milliseconds> parse_lock_timeout(const std::string& text) {
    if (text.empty())
        return std::chrono::milliseconds(0);
    char* end = nullptr;
    errno = 0;
    const double seconds = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || errno != 0 || !std::isfinite(seconds) || seconds < 0 ||
        seconds > 7 * 24 * 3600.0)
        return vfio::make_error("parse option --lock_timeout", text, EINVAL,
                                "expected seconds to wait for a busy device, 0 or more");
    return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000.0)));
}

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
