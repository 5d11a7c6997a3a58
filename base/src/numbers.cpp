#include "base/numbers.hpp"
#include "base/option_error.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

namespace pdt {
namespace {

Error bad_size(const std::string& what, const std::string& text, const std::string& hint) {
    return usage_error("parse " + what, "\"" + text + "\"", hint);
}

bool starts_with_digit(const std::string& text) {
    return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.');
}

}  // namespace

Result<uint64_t> parse_number(const std::string& option, const std::string& text, uint64_t min, uint64_t max) {
    if (!starts_with_digit(text) || text[0] == '.')
        return option_error(option, text, "expected an unsigned number");
    errno = 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 0);
    if (errno != 0 || end == text.c_str() || *end != '\0')
        return option_error(option, text, "expected an unsigned number (0x.. hex, 0.. octal, or decimal)");
    if (value < min || value > max)
        return option_error(option, text, "must be in the range " + std::to_string(min) + ".." + std::to_string(max));
    return static_cast<uint64_t>(value);
}

Result<double> parse_seconds(const std::string& option, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (!starts_with_digit(text) || errno != 0 || *end != '\0' || !std::isfinite(value) || value <= 0.0)
        return option_error(option, text, "expected a positive number of seconds");
    if (value > kMaxSeconds)
        return option_error(option, text,
                            "must be at most " + std::to_string(static_cast<uint64_t>(kMaxSeconds)) + " seconds");
    return value;
}

Result<uint64_t> parse_size(const std::string& text) {
    static const char* const hint = "expected a number of bytes, e.g. 4096, 4KiB, 64MiB";
    if (!starts_with_digit(text))
        return bad_size("size", text, hint);
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    static const std::map<std::string, double> units = {
        {"", 1}, {"B", 1}, {"K", 1024}, {"KiB", 1024}, {"M", 1 << 20}, {"MiB", 1 << 20}, {"G", 1 << 30},
        {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
    const auto unit = units.find(end);
    if (errno != 0 || unit == units.end() || !(value >= 0) || value * unit->second > 1e15)
        return bad_size("size", text, hint);
    return static_cast<uint64_t>(std::llround(value * unit->second));
}

Result<std::vector<uint64_t>> parse_size_list(const std::string& text) {
    std::vector<uint64_t> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        start = comma + 1;
        if (item.empty())
            continue;
        const auto dash = item.find('-');
        if (dash == std::string::npos) {
            out.push_back(PDT_TRY(parse_size(item)));
            continue;
        }
        const uint64_t first = PDT_TRY(parse_size(item.substr(0, dash)));
        const uint64_t last = PDT_TRY(parse_size(item.substr(dash + 1)));
        if (last < first || last - first > 4096)
            return bad_size("range", item, "expected first-last with first <= last, at most 4096 values");
        for (uint64_t v = first; v <= last; ++v)
            out.push_back(v);
    }
    if (out.empty())
        return bad_size("list", text, "expected comma-separated sizes");
    return out;
}

}  // namespace pdt
