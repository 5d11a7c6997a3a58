// A tiny HTTP server on a loopback port for the publisher's tests: a thread that takes one
// connection per canned answer, in order, records each request and sends the answer (or, for
// kSilent, nothing until the test ends; for kClose, closes after reading the request).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vfio_access/unique_fd.hpp"

namespace metrics_test {

inline const std::string kSilent = "<silent>";
inline const std::string kClose = "<close>";

// A port on 127.0.0.1 that nothing listens on (bound, then closed).
inline uint16_t closed_port() {
    vfio::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
        std::abort();
    return ntohs(address.sin_port);
}

class HttpTestServer {
public:
    explicit HttpTestServer(std::vector<std::string> answers) : m_answers(std::move(answers)) {
        m_listener.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (::bind(m_listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(m_listener.get(), 8) != 0 ||
            ::getsockname(m_listener.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
            std::abort();
        m_port = ntohs(address.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~HttpTestServer() {
        m_stop = true;
        m_thread.join();
    }
    uint16_t port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    std::vector<std::string> requests() const {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }

    // A whole answer: status line, Content-Length, the body.
    static std::string answer(const std::string& status, const std::string& body) {
        return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    }

private:
    bool wait(int fd) const {
        for (pollfd p{fd, POLLIN, 0}; !m_stop;)
            if (::poll(&p, 1, 20) > 0)
                return true;
        return false;
    }

    // The request's head and its Content-Length bytes of body.
    std::string read_request(int fd) const {
        std::string request;
        char buffer[4096];
        for (;;) {
            const size_t head = request.find("\r\n\r\n");
            if (head != std::string::npos) {
                const size_t at = request.find("Content-Length: ");
                const size_t body = at == std::string::npos ? 0 : std::strtoul(request.c_str() + at + 16, nullptr, 10);
                if (request.size() >= head + 4 + body)
                    return request;
            }
            if (!wait(fd))
                return request;
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0)
                return request;
            request.append(buffer, static_cast<size_t>(n));
        }
    }

    void serve() {
        for (const std::string& answer : m_answers) {
            if (!wait(m_listener.get()))
                return;
            vfio::UniqueFd connection(::accept4(m_listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
            const std::string request = read_request(connection.get());
            {
                std::lock_guard lock(m_mutex);
                m_requests.push_back(request);
            }
            if (answer == kClose)
                continue;
            if (answer == kSilent) {
                while (!m_stop)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                return;
            }
            (void)::send(connection.get(), answer.data(), answer.size(), MSG_NOSIGNAL);
        }
    }

    std::vector<std::string> m_answers;
    vfio::UniqueFd m_listener;
    uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    mutable std::mutex m_mutex;
    std::vector<std::string> m_requests;
    std::thread m_thread;
};

}  // namespace metrics_test
