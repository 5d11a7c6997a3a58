// The usage error of an option value, worded the same by every parser: EINVAL,
// `parse option --<option> "<text>"`, and a hint saying what was expected.
#pragma once

#include <cerrno>
#include <string>

#include "base/result.hpp"

namespace pdt {

inline Error option_error(const std::string& option, const std::string& text, const std::string& hint) {
    return make_error("parse option --" + option, "\"" + text + "\"", EINVAL, hint);
}

}  // namespace pdt
