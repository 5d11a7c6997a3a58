// The human text of a run, in fpga_sio's habit: one line per measured point (size, direction,
// path, rate), the derived figures, and the verdict line last.
#pragma once

#include <ostream>

#include "measure/results.hpp"

namespace measure {

void print_text(const RunResult& result, std::ostream& out);

}  // namespace measure
