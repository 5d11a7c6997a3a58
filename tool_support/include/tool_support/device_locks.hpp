// What every tool main that opens devices shares about the advisory device locks
// (vfio_access/device_lock.hpp): the --lock_timeout option (cli/device_options.hpp) and the
// JSON record of how long the tool held each device.
//
//   cli::add_lock_timeout_option(description, text);
//   auto timeout = cli::parse_lock_timeout(text);            // a usage error names the option
//   selection.lock_timeout = *timeout;
//   ... run ...
//   if (json) report_device_holds(stdout);                     // one "device_hold" line per hold
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/device_options.hpp"
#include "vfio_access/device_lock.hpp"

namespace tool_support {

// {"type":"device_hold","device":"0000:15:00.0","lock_file":"...","waited_s":0.000,"held_s":12.345,
// "released":true}: one period the tool held a device's lock.
std::string device_hold_json(const vfio::LockHold& hold);
// A device_hold line for each lock this process took (vfio::lock_holds()), flushed. None for
// simulated designs, which take no lock.
void report_device_holds(std::FILE* out);

}  // namespace tool_support
