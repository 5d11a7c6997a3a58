// The number parsers of every option and parameter value, strict: no sign, no blanks, no
// trailing junk. Errors are usage errors (pdt::usage_error, EINVAL) and name the option or item they parse.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace pdt {

// "<number>" in C notation (0x.. hex, 0.. octal, else decimal, as strtoull base 0 reads it),
// within [min, max]. Errors: `parse option --<option> "<text>"`.
Result<uint64_t> parse_number(const std::string& option, const std::string& text, uint64_t min, uint64_t max);

// The longest time parse_seconds accepts (about 31 years: as milliseconds it fits in 64 bits).
inline constexpr double kMaxSeconds = 1e9;
// "20", "0.5": a positive number of seconds, at most kMaxSeconds.
Result<double> parse_seconds(const std::string& option, const std::string& text);

// Sizes: "4096", "4K", "4KiB", "1.5MiB", "64M", "2G" (binary), "1.7GB" (decimal), "65B"; at
// most 10^15 bytes.
Result<uint64_t> parse_size(const std::string& text);
// "64,128,256" or "0-63" (an inclusive range), sizes as parse_size.
Result<std::vector<uint64_t>> parse_size_list(const std::string& text);

}  // namespace pdt
