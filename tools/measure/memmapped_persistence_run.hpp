// memmapped_persistence's work on the devices its command line names (tools/measure/, its
// main's alone): the keyed pattern written, checked from a new process, and checked after a
// VFIO device reset (measure/bar_persistence.hpp).
#pragma once

#include <string>
#include <vector>

#include "tool_support/bar_tool_usage.hpp"
#include "tool_support/device_targets.hpp"
#include "vfio_access/bar_access.hpp"

namespace memmapped_persistence {

enum class Step { All, Write, Verify, Reset };

struct Request {
    tool_support::TargetSelection selection;
    vfio::BarRegion region;
    uint64_t key = 1;
    Step step = Step::All;
    bool sysfs = false;  // --access sysfs: the --device BARs mapped from sysfs, no VFIO open and no reset step
    std::vector<std::string> argv;  // Step::All: the command line the new process repeats with --verify
};

// The exit status: 0 the content was written and kept where checked, 1 not kept, refused or a
// device failed.
int run(const tool_support::CheckedUsage& checked, const Request& request);

}  // namespace memmapped_persistence
