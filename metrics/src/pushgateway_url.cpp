// The Pushgateway URL a user gives (RFC 3986 generic syntax, restricted to what a push needs)
// and the grouping key's path (Pushgateway README, "URL").
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string_view>

#include "metrics/pushgateway.hpp"

namespace metrics {
namespace {

pdt::Error url_error(const std::string& url, const std::string& reason) {
    return pdt::usage_error("parse Pushgateway URL", url.empty() ? "\"\"" : url, reason);
}

bool hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// RFC 3986 section 2.3: ALPHA / DIGIT / "-" / "." / "_" / "~".
bool unreserved(char c) { return alnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

// RFC 3986 section 3.3, pchar plus "/": unreserved, sub-delims, ":" and "@"; "%" is checked apart.
bool path_character(char c) {
    return unreserved(c) || std::string_view("!$&'()*+,;=:@/").find(c) != std::string_view::npos;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// A host name: labels of [A-Za-z0-9-] between dots, none empty.
bool valid_host_name(std::string_view host) {
    if (host.empty() || host.front() == '.' || host.back() == '.' || host.find("..") != std::string_view::npos)
        return false;
    return std::all_of(host.begin(), host.end(), [](char c) { return alnum(c) || c == '-' || c == '.'; });
}

// The inside of "[...]": an IPv6 address in RFC 4291 section 2.2's text forms (no zone).
bool valid_ipv6_text(std::string_view host) {
    in6_addr address{};
    return ::inet_pton(AF_INET6, std::string(host).c_str(), &address) == 1;
}

pdt::Result<uint16_t> parse_port(const std::string& url, std::string_view text) {
    if (text.empty())
        return url_error(url, "no port: give http://HOST:PORT (Pushgateway listens on 9091 by default)");
    if (text.size() > 5 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return url_error(url, "port \"" + std::string(text) + "\" is not a number 1..65535");
    const unsigned long port = std::stoul(std::string(text));
    if (port == 0 || port > 65535)
        return url_error(url, "port " + std::string(text) + " is not in 1..65535");
    return static_cast<uint16_t>(port);
}

// Host and port of the authority "HOST:PORT" or "[IPv6]:PORT".
pdt::Result<PushUrl> parse_authority(const std::string& url, std::string_view authority) {
    if (authority.find('@') != std::string_view::npos)
        return url_error(url, "user info (user@) is not supported");
    PushUrl parsed;
    std::string_view rest;
    if (authority.starts_with('[')) {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos || !valid_ipv6_text(authority.substr(1, close - 1)))
            return url_error(url, "an IPv6 host is written [hex:hex::hex]");
        parsed.host = std::string(authority.substr(1, close - 1));
        rest = authority.substr(close + 1);
        if (!rest.empty() && rest.front() != ':')
            return url_error(url, "after ] comes :PORT");
    } else {
        const size_t colon = authority.find(':');
        parsed.host = std::string(authority.substr(0, colon));
        if (!valid_host_name(parsed.host))
            return url_error(url, "host \"" + parsed.host + "\" is not a host name or an IPv4 address");
        rest = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
    }
    parsed.port = PDT_TRY(parse_port(url, rest.empty() ? rest : rest.substr(1)));
    return parsed;
}

pdt::Result<std::string> parse_path(const std::string& url, std::string_view path) {
    for (size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '%') {
            if (i + 2 >= path.size() || !hex_digit(path[i + 1]) || !hex_digit(path[i + 2]))
                return url_error(url, "a % in the path is not followed by two hex digits");
        } else if (!path_character(path[i])) {
            return url_error(url, "the path holds a character a URL path cannot (escape it as %XX)");
        }
    }
    if (path.find("//") != std::string_view::npos)
        return url_error(url, "the path has an empty segment (//)");
    while (path.ends_with('/'))
        path.remove_suffix(1);
    return std::string(path);
}

std::string base64url(std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t group = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (i + 1 < bytes.size())
            group |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size())
            group |= static_cast<unsigned char>(bytes[i + 2]);
        const size_t characters = std::min<size_t>(bytes.size() - i, 3) + 1;  // no padding
        for (size_t k = 0; k < characters; ++k)
            out += kAlphabet[(group >> (18 - 6 * k)) & 0x3f];
    }
    return out;
}

std::string percent_escaped(std::string_view value) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (char c : value) {
        if (unreserved(c)) {
            out += c;
        } else {
            const auto byte = static_cast<unsigned char>(c);
            out += {'%', kHex[byte >> 4], kHex[byte & 0xf]};
        }
    }
    return out;
}

// "/<label>/<value>" or "/<label>@base64/<value>": base64 for a value with a '/' (which the
// gateway would split on even when escaped), an empty one ("//" would be cleaned away) and "."
// or ".." (path cleaning would resolve them).
std::string grouping_segment(const std::string& label, const std::string& value) {
    if (value.empty())
        return "/" + label + "@base64/=";
    if (value.find('/') != std::string::npos || value == "." || value == "..")
        return "/" + label + "@base64/" + base64url(value);
    return "/" + label + "/" + percent_escaped(value);
}

}  // namespace

pdt::Result<PushUrl> parse_push_url(const std::string& url) {
    const size_t separator = url.find("://");
    if (separator == std::string::npos)
        return url_error(url, "not a URL: give http://HOST:PORT[/PATH]");
    const std::string_view scheme = std::string_view(url).substr(0, separator);
    if (iequals(scheme, "https"))
        return url_error(url, "https is not supported: the push is plain HTTP, give http://HOST:PORT[/PATH]");
    if (!iequals(scheme, "http"))
        return url_error(url, "scheme \"" + std::string(scheme) + "\" is not supported: give http://HOST:PORT[/PATH]");
    const std::string_view rest = std::string_view(url).substr(separator + 3);
    if (rest.find_first_of("?#") != std::string_view::npos)
        return url_error(url, "a query (?) or fragment (#) is not supported");
    const size_t slash = rest.find('/');
    PushUrl parsed = PDT_TRY(parse_authority(url, rest.substr(0, slash)));
    if (slash != std::string_view::npos)
        parsed.path = PDT_TRY(parse_path(url, rest.substr(slash)));
    return parsed;
}

std::string to_string(const PushUrl& url) {
    const bool ipv6 = url.host.find(':') != std::string::npos;
    return "http://" + (ipv6 ? "[" + url.host + "]" : url.host) + ":" + std::to_string(url.port) + url.path;
}

pdt::Result<std::string> grouping_path(const std::string& job, const std::string& instance) {
    if (job.empty())
        return pdt::make_error("build the Pushgateway grouping key", "job \"\"", EINVAL,
                               "the gateway needs a job name");
    return "/metrics" + grouping_segment("job", job) + grouping_segment("instance", instance);
}

}  // namespace metrics
