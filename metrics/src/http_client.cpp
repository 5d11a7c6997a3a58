// One HTTP/1.1 exchange (RFC 9112) over a POSIX TCP socket: enough of a client for a push to a
// Pushgateway and its readiness check. The socket is non-blocking so that every phase waits in
// poll() with its own deadline.
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <memory>

#include "metrics/pushgateway.hpp"
#include "vfio_access/unique_fd.hpp"

namespace metrics {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaximumAnswer = 1 << 20;  // a gateway's answers are a few hundred bytes

struct Exchange {
    const PushUrl& url;
    std::string method;
    std::string name;  // "http://HOST:PORT<target>", the object of every error (after the method)
    std::chrono::milliseconds timeout;
};

pdt::Error exchange_error(const Exchange& x, int code, const std::string& hint) {
    return pdt::make_error(x.method, x.name, code, hint);
}

std::string seconds_text(std::chrono::milliseconds timeout) {
    const auto ms = timeout.count();
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// Waits until fd is ready for `events`, at most until `deadline`.
pdt::Result<void> wait_for(const Exchange& x, int fd, short events, Clock::time_point deadline, const char* phase) {
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        pollfd p{fd, events, 0};
        const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
        if (ready > 0)
            return {};
        if (ready == 0)
            return exchange_error(x, ETIMEDOUT, std::string(phase) + ": no progress within " + seconds_text(x.timeout));
        if (errno != EINTR)
            return exchange_error(x, errno, std::string("poll while ") + phase);
    }
}

pdt::Result<vfio::UniqueFd> connect_one(const Exchange& x, const addrinfo& address) {
    vfio::UniqueFd fd(::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, address.ai_protocol));
    if (!fd.valid())
        return exchange_error(x, errno, "socket");
    if (::connect(fd.get(), address.ai_addr, address.ai_addrlen) != 0) {
        if (errno != EINPROGRESS)
            return exchange_error(x, errno, "connecting: is a Pushgateway listening there?");
        PDT_CHECK(wait_for(x, fd.get(), POLLOUT, Clock::now() + x.timeout, "connecting"));
        int error = 0;
        socklen_t length = sizeof error;
        if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0)
            error = errno;
        if (error != 0)
            return exchange_error(x, error, "connecting: is a Pushgateway listening there?");
    }
    return fd;
}

// Resolves the host and connects to the first address that accepts (localhost may be ::1 and
// 127.0.0.1); the error is the last address's.
pdt::Result<vfio::UniqueFd> connect_to(const Exchange& x) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int status = ::getaddrinfo(x.url.host.c_str(), std::to_string(x.url.port).c_str(), &hints, &found);
    if (status != 0)
        return exchange_error(x, EHOSTUNREACH, "resolving " + x.url.host + ": " + ::gai_strerror(status));
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, ::freeaddrinfo);
    pdt::Result<vfio::UniqueFd> last = exchange_error(x, EHOSTUNREACH, "resolving " + x.url.host + ": no address");
    for (const addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
        last = connect_one(x, *a);
        if (last.ok())
            break;
    }
    return last;
}

pdt::Result<void> send_all(const Exchange& x, int fd, const std::string& request) {
    const auto deadline = Clock::now() + x.timeout;
    for (size_t sent = 0; sent < request.size();) {
        const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n >= 0) {
            sent += static_cast<size_t>(n);
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            PDT_CHECK(wait_for(x, fd, POLLOUT, deadline, "sending"));
        } else if (errno != EINTR) {
            return exchange_error(x, errno, "sending the request");
        }
    }
    return {};
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// Whether the answer is whole before the server closes: its headers ended and the body has its
// Content-Length, or a chunked body its last chunk.
bool answer_complete(const std::string& answer) {
    const size_t headers_end = answer.find("\r\n\r\n");
    if (headers_end == std::string::npos)
        return false;
    const std::string headers = lower(answer.substr(0, headers_end + 2));
    const size_t length = headers.find("\r\ncontent-length:");
    if (length != std::string::npos) {
        const size_t value = length + 17;
        return answer.size() - headers_end - 4 >= std::strtoull(headers.c_str() + value, nullptr, 10);
    }
    return headers.find("chunked") != std::string::npos && answer.ends_with("0\r\n\r\n");
}

// What the server sends until the answer is whole or the server closes (Connection: close), at
// most kMaximumAnswer bytes.
pdt::Result<std::string> receive_all(const Exchange& x, int fd) {
    const auto deadline = Clock::now() + x.timeout;
    std::string answer;
    char buffer[4096];
    while (answer.size() < kMaximumAnswer) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n > 0) {
            answer.append(buffer, static_cast<size_t>(n));
            if (answer_complete(answer))
                break;
        } else if (n == 0) {
            break;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            PDT_CHECK(wait_for(x, fd, POLLIN, deadline, "waiting for the answer"));
        } else if (errno != EINTR) {
            return exchange_error(x, errno, "receiving the answer");
        }
    }
    return answer;
}

// A chunked body (RFC 9112 section 7.1): hex size lines, data, CRLF; extensions and trailers
// ignored. A body cut short keeps what arrived.
std::string dechunked(std::string_view body) {
    std::string out;
    for (;;) {
        const size_t line_end = body.find("\r\n");
        if (line_end == std::string_view::npos)
            return out;
        size_t size = 0;
        try {
            size = std::stoul(std::string(body.substr(0, line_end)), nullptr, 16);
        } catch (const std::exception&) {
            return out;
        }
        body.remove_prefix(line_end + 2);
        if (size == 0)
            return out;
        out += body.substr(0, size);
        if (body.size() < size + 2)
            return out;
        body.remove_prefix(size + 2);
    }
}

// Status line, headers, body (RFC 9112 sections 4 and 6).
pdt::Result<HttpResponse> parse_answer(const Exchange& x, const std::string& answer) {
    const size_t line_end = answer.find("\r\n");
    HttpResponse response;
    response.status_line = answer.substr(0, std::min(line_end, answer.size()));
    const bool http = response.status_line.size() >= 12 && response.status_line.starts_with("HTTP/1.") &&
                      response.status_line[8] == ' ' &&
                      std::all_of(response.status_line.begin() + 9, response.status_line.begin() + 12,
                                  [](unsigned char c) { return std::isdigit(c) != 0; });
    if (!http || line_end == std::string::npos)
        return exchange_error(x, EPROTO, answer.empty() ? "the server closed the connection without an answer"
                                                        : "the answer is not HTTP/1.x: \"" + response.status_line.substr(0, 60) + "\"");
    response.status = std::stoi(response.status_line.substr(9, 3));
    const size_t headers_end = answer.find("\r\n\r\n");
    if (headers_end == std::string::npos)
        return exchange_error(x, EPROTO, "the answer ends inside its headers (" + response.status_line + ")");
    const std::string headers = lower(answer.substr(line_end, headers_end - line_end + 2));
    const std::string_view body = std::string_view(answer).substr(headers_end + 4);
    const bool chunked = headers.find("\r\ntransfer-encoding:") != std::string::npos && headers.find("chunked") != std::string::npos;
    response.body = chunked ? dechunked(body) : std::string(body);
    return response;
}

}  // namespace

pdt::Result<HttpResponse> http_exchange(const PushUrl& url, const std::string& method, const std::string& target,
                                        const std::string& body, std::chrono::milliseconds timeout) {
    const Exchange x{url, method, to_string(url) + target, timeout};
    const bool ipv6 = url.host.find(':') != std::string::npos;
    std::string request = method + " " + target + " HTTP/1.1\r\n";
    request += "Host: " + (ipv6 ? "[" + url.host + "]" : url.host) + ":" + std::to_string(url.port) + "\r\n";
    request += "User-Agent: pcie-dma-toolkit\r\nConnection: close\r\n";
    if (!body.empty() || method == "PUT" || method == "POST") {
        request += "Content-Type: text/plain; version=0.0.4\r\n";
        request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    }
    request += "\r\n" + body;
    const vfio::UniqueFd fd = PDT_TRY(connect_to(x));
    PDT_CHECK(send_all(x, fd.get(), request));
    const std::string answer = PDT_TRY(receive_all(x, fd.get()));
    return parse_answer(x, answer);
}

}  // namespace metrics
