// An enum's spellings on the command line: one table per enum serves both parsing an option's
// value and printing it back, so a spelling is written once.
//
//   constexpr pdt::Spelling<Mode> kModes[] = {{Mode::Auto, "auto"}, {Mode::Credits, "credits"}};
//   auto mode = pdt::parse_spelling("engine_mode", text, kModes);  // usage error: "one of auto, credits"
//   const char* name = pdt::spelling(*mode, kModes);
#pragma once

#include <cerrno>
#include <cstddef>
#include <string>

#include "base/result.hpp"

namespace pdt {

template <typename E>
struct Spelling {
    E value;
    const char* name;
};

// The value spelt `text`; else a usage error `parse option --<option> "<text>"` listing the spellings.
template <typename E, size_t N>
Result<E> parse_spelling(const std::string& option, const std::string& text, const Spelling<E> (&table)[N]) {
    std::string names;
    for (const Spelling<E>& s : table) {
        if (text == s.name)
            return s.value;
        names += (names.empty() ? "" : ", ") + std::string(s.name);
    }
    return usage_error("parse option --" + option, "\"" + text + "\"", "one of " + names);
}

// The spelling of `value`; "?" for a value the table lacks.
template <typename E, size_t N>
const char* spelling(E value, const Spelling<E> (&table)[N]) {
    for (const Spelling<E>& s : table)
        if (s.value == value)
            return s.name;
    return "?";
}

}  // namespace pdt
