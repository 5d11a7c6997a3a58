// What every tool main that opens devices shares about the advisory device locks
// (vfio_access/device_lock.hpp): the --lock_timeout option and the JSON record of how long the
// tool held each device.
//
//   add_lock_timeout_option(description, cli.lock_timeout);
//   auto timeout = parse_lock_timeout(cli.lock_timeout);     // a usage error names the option
//   selection.lock_timeout = *timeout;
//   ... run ...
//   if (json) report_device_holds(stdout);                     // one "device_hold" line per hold
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "vfio_access/device_lock.hpp"

namespace tool_support {

// The --lock_timeout help text: what the lock is, where it lives, what 0 does.
const char* lock_timeout_help();

inline void add_lock_timeout_option(boost::program_options::options_description& description, std::string& text) {
    description.add_options()("lock_timeout", boost::program_options::value(&text), lock_timeout_help());
}

// "<seconds>" >= 0 (fractions allowed); "" is 0. Errors name --lock_timeout.
vfio::Result<std::chrono::milliseconds> parse_lock_timeout(const std::string& text);

// {"type":"device_hold","device":"0000:15:00.0","lock_file":"...","waited_s":0.000,"held_s":12.345,
// "released":true}: one period the tool held a device's lock.
std::string device_hold_json(const vfio::LockHold& hold);
// A device_hold line for each lock this process took (vfio::lock_holds()), flushed. None for
// simulated designs, which take no lock.
void report_device_holds(std::FILE* out);

}  // namespace tool_support
