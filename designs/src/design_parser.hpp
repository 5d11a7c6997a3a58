// JSON design descriptions -> Design values, with errors that name the source, the field and
// the problem. Private to the designs library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "designs/design.hpp"

namespace designs {

// A file holds one design object or an array of them.
pdt::Result<std::vector<Design>> parse_designs(std::string_view text, const std::string& source);

}  // namespace designs
