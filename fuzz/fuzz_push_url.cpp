// The Pushgateway URL of --metrics (metrics::parse_push_url) and the grouping key's path
// (metrics::grouping_path). First byte 0: the rest is a URL; properties: an error is EINVAL
// naming the URL; a parsed URL has a host and a port, a path "" or "/..." without a trailing
// slash, and prints as a URL that parses back to itself. First byte 1: the rest is job NUL
// instance; properties: the path is /metrics/job/<v>/instance/<v> with no empty segment, and each
// value decodes (percent or @base64) back to what was given.
#include <algorithm>
#include <cerrno>
#include <optional>
#include <vector>

#include "fuzz_support.hpp"
#include "metrics/pushgateway.hpp"

namespace {

std::vector<std::string> segments(const std::string& path) {
    std::vector<std::string> parts;
    for (size_t at = 1; at <= path.size();) {
        const size_t next = std::min(path.find('/', at), path.size());
        parts.push_back(path.substr(at, next - at));
        at = next + 1;
    }
    return parts;
}

int digit_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::optional<std::string> percent_decoded(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size() || digit_value(text[i + 1]) < 0 || digit_value(text[i + 2]) < 0)
            return std::nullopt;
        out += static_cast<char>(digit_value(text[i + 1]) * 16 + digit_value(text[i + 2]));
        i += 2;
    }
    return out;
}

std::optional<std::string> base64url_decoded(const std::string& text) {
    if (text == "=")
        return std::string();
    static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    uint32_t bits = 0;
    int count = 0;
    for (char c : text) {
        const size_t value = kAlphabet.find(c);
        if (value == std::string::npos)
            return std::nullopt;
        bits = (bits << 6) | static_cast<uint32_t>(value);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out += static_cast<char>((bits >> count) & 0xff);
        }
    }
    return out;
}

// "<label>" then the value, or "<label>@base64" then the value in base64url.
void check_pair(const std::string& label, const std::string& key, const std::string& value, const std::string& given) {
    PDT_FUZZ_CHECK(key == label || key == label + "@base64");
    const auto decoded = key == label ? percent_decoded(value) : base64url_decoded(value);
    PDT_FUZZ_CHECK(decoded && *decoded == given);
    PDT_FUZZ_CHECK(!value.empty() && value != "." && value != "..");
}

void fuzz_url(const std::string& url) {
    const auto parsed = metrics::parse_push_url(url);
    if (!parsed) {
        PDT_FUZZ_CHECK(parsed.error().code == EINVAL);
        PDT_FUZZ_CHECK(parsed.error().operation == "parse Pushgateway URL");
        PDT_FUZZ_CHECK(parsed.error().object == url || (url.empty() && parsed.error().object == "\"\""));
        return;
    }
    PDT_FUZZ_CHECK(!parsed->host.empty() && parsed->port != 0);
    PDT_FUZZ_CHECK(parsed->path.empty() || (parsed->path.front() == '/' && parsed->path.back() != '/'));
    const auto again = metrics::parse_push_url(metrics::to_string(*parsed));
    PDT_FUZZ_CHECK(again.ok());
    PDT_FUZZ_CHECK(again->host == parsed->host && again->port == parsed->port && again->path == parsed->path);
}

void fuzz_grouping(const std::string& text) {
    const size_t nul = text.find('\0');
    const std::string job = text.substr(0, nul);
    const std::string instance = nul == std::string::npos ? "" : text.substr(nul + 1);
    const auto path = metrics::grouping_path(job, instance);
    if (!path) {
        PDT_FUZZ_CHECK(job.empty() && path.error().code == EINVAL);
        return;
    }
    const auto parts = segments(*path);
    PDT_FUZZ_CHECK(parts.size() == 5 && parts[0] == "metrics");
    check_pair("job", parts[1], parts[2], job);
    check_pair("instance", parts[3], parts[4], instance);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0)
        return 0;
    const std::string rest = pdt_fuzz::text(data + 1, size - 1);
    if (data[0] & 1)
        fuzz_grouping(rest);
    else
        fuzz_url(rest);
    return 0;
}
