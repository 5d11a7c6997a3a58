// The usage error of an option value, worded the same by every parser: a usage error (EINVAL),
// `parse option --<option> "<text>"`, and a hint saying what was expected.
#pragma once

#include <cerrno>
#include <string>

#include "base/result.hpp"

namespace pdt {

inline Error option_error(const std::string& option, const std::string& text, const std::string& hint) {
    return usage_error("parse option --" + option, "\"" + text + "\"", hint);
}

}  // namespace pdt
