// The Pushgateway side of --metrics (github.com/prometheus/pushgateway, README "API"): the URL a
// user gives, the grouping key's path, and one plain HTTP/1.1 exchange over a TCP socket.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace metrics {

struct PushUrl {
    std::string host;  // a DNS name, a dotted IPv4 address or an IPv6 address (without brackets)
    uint16_t port = 0;
    std::string path;  // "" or "/a/b": the gateway's --web.route-prefix, without a trailing slash
};

// http://HOST:PORT[/PATH], strictly: the scheme http (https is refused: the push is plain HTTP),
// a host name ([A-Za-z0-9.-]) or [IPv6], a decimal port 1..65535 (no default: Pushgateway
// listens on 9091), a path of RFC 3986 path characters with valid %XX escapes and no empty
// segment; no user info, query or fragment. A trailing slash is dropped. Errors are usage errors,
// name the URL and say what is wrong.
pdt::Result<PushUrl> parse_push_url(const std::string& url);

// http://HOST:PORT/PATH (IPv6 hosts in brackets): what parse_push_url reads back.
std::string to_string(const PushUrl& url);

// The grouping key's path, "/metrics/job/<job>/instance/<instance>": each value URL-escaped
// (RFC 3986 unreserved characters kept, every other byte %XX), or, where it contains a '/' or
// is empty, written as <label>@base64/<value in base64url> (RFC 4648 section 5; "=" for an
// empty value), the only form the gateway reads such values in. An empty job is EINVAL.
pdt::Result<std::string> grouping_path(const std::string& job, const std::string& instance);

struct HttpResponse {
    int status = 0;           // 200, 404, ...
    std::string status_line;  // "HTTP/1.1 200 OK"
    std::string body;         // decoded when sent chunked
};

inline constexpr std::chrono::milliseconds kHttpTimeout{5000};

// One HTTP/1.1 request with Connection: close to url's host and port: the method on target (a
// path), the body (when not empty) as text/plain; version=0.0.4 with its Content-Length. Each
// phase (connect, send, receive) has `timeout`. Any answer with a status line is a response,
// whatever its status; errors (a name that does not resolve, a refused or timed-out connection,
// an answer that is not HTTP) name "<method> http://HOST:PORT<target>" and the cause.
pdt::Result<HttpResponse> http_exchange(const PushUrl& url, const std::string& method, const std::string& target,
                                        const std::string& body, std::chrono::milliseconds timeout = kHttpTimeout);

}  // namespace metrics
