// Where --metrics sends the exposition text: a file for node_exporter's textfile collector
// (node_exporter README, "Textfile Collector": only *.prom files are read; write a temporary file
// and move it into place, so that the collector never reads half a file), or a Pushgateway
// (Pushgateway README, "API": PUT replaces every metric of the grouping key, DELETE removes them).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "metrics/exposition.hpp"
#include "metrics/pushgateway.hpp"
#include "vfio_access/unique_fd.hpp"

namespace metrics {
namespace {

// A temporary file beside the target, "<dir>/.<name>.XXXXXX" (a name the collector skips), removed
// again unless it was renamed into place.
class TemporaryFile {
public:
    static pdt::Result<TemporaryFile> create(const std::filesystem::path& target, const std::string& hint) {
        const std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : ".";
        std::string path = (directory / ("." + target.filename().string() + ".XXXXXX")).string();
        vfio::UniqueFd fd(::mkostemp(path.data(), O_CLOEXEC));
        if (!fd.valid())
            return pdt::errno_error("create a temporary file in", directory.string(), hint);
        return TemporaryFile(std::move(path), std::move(fd));
    }
    TemporaryFile(TemporaryFile&& other) noexcept
        : m_path(std::exchange(other.m_path, {})), m_fd(std::move(other.m_fd)) {}
    TemporaryFile& operator=(TemporaryFile&&) = delete;
    ~TemporaryFile() {
        if (!m_path.empty())
            ::unlink(m_path.c_str());
    }
    int fd() const { return m_fd.get(); }
    const std::string& path() const { return m_path; }

    // Readable by node_exporter's user (mkstemp makes it 0600), on disk, then in place of target.
    pdt::Result<void> commit(const std::string& target) {
        if (::fchmod(m_fd.get(), 0644) != 0)
            return pdt::errno_error("chmod", m_path);
        if (::fsync(m_fd.get()) != 0)
            return pdt::errno_error("fsync", m_path);
        if (::close(m_fd.release()) != 0)
            return pdt::errno_error("close", m_path);
        if (::rename(m_path.c_str(), target.c_str()) != 0)
            return pdt::errno_error("rename " + m_path + " to", target);
        m_path.clear();
        return {};
    }

private:
    TemporaryFile(std::string path, vfio::UniqueFd fd) : m_path(std::move(path)), m_fd(std::move(fd)) {}
    std::string m_path;
    vfio::UniqueFd m_fd;
};

pdt::Result<void> write_all(int fd, const std::string& text, const std::string& path) {
    for (size_t written = 0; written < text.size();) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return pdt::errno_error("write", path);
        written += static_cast<size_t>(n);
    }
    return {};
}

// The rename itself on disk: fsync of the directory that holds the entry.
pdt::Result<void> sync_directory(const std::filesystem::path& target) {
    const std::string directory = target.has_parent_path() ? target.parent_path().string() : ".";
    vfio::UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid())
        return pdt::errno_error("open directory", directory);
    if (::fsync(fd.get()) != 0)
        return pdt::errno_error("fsync directory", directory);
    return {};
}

class FilePublisher final : public Publisher {
public:
    explicit FilePublisher(std::string path) : m_path(std::move(path)) {}
    std::string target() const override { return m_path; }
    pdt::Result<void> publish(const std::string& exposition) override {
        TemporaryFile file = PDT_TRY(TemporaryFile::create(m_path, "writing metrics file " + m_path));
        PDT_CHECK(write_all(file.fd(), exposition, file.path()));
        PDT_CHECK(file.commit(m_path));
        return sync_directory(m_path);
    }
    pdt::Result<void> withdraw() override {
        if (::unlink(m_path.c_str()) != 0 && errno != ENOENT)
            return pdt::errno_error("remove metrics file", m_path);
        return sync_directory(m_path);
    }

private:
    std::string m_path;
};

pdt::Result<std::unique_ptr<Publisher>> open_file_publisher(const std::string& target) {
    const std::filesystem::path path(target);
    if (!path.has_filename())
        return pdt::make_error("open metrics file", target, EISDIR, "give a file, such as " + target + "pdt.prom");
    if (path.extension() != ".prom") {
        const std::string suggestion = std::filesystem::path(path).replace_extension(".prom").string();
        return pdt::usage_error("open metrics file", target,
                                "node_exporter's textfile collector reads only *.prom files: name it " + suggestion);
    }
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        return pdt::make_error("open metrics file", target, EISDIR, "a directory has this name");
    // The start-up check: a temporary file can be made beside it (and is removed again).
    PDT_CHECK(TemporaryFile::create(path, "the directory of metrics file " + target + " must exist and be writable"));
    return std::unique_ptr<Publisher>(std::make_unique<FilePublisher>(target));
}

// The first line of a body, for an error message.
std::string first_line(const std::string& body) {
    std::string line = body.substr(0, body.find('\n'));
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

// 2xx, or an error naming the URL, the status line and the body's first line.
pdt::Result<void> expect_success(const HttpResponse& response, const std::string& method, const std::string& url,
                                 const std::string& advice) {
    if (response.status >= 200 && response.status < 300)
        return {};
    std::string hint = "the server answered \"" + response.status_line + "\"";
    const std::string line = first_line(response.body);
    if (!line.empty())
        hint += ": " + line;
    return pdt::make_error(method, url, EPROTO, advice.empty() ? hint : hint + "; " + advice);
}

class PushPublisher final : public Publisher {
public:
    PushPublisher(PushUrl url, std::string grouping) : m_url(std::move(url)), m_grouping(std::move(grouping)) {}
    std::string target() const override { return to_string(m_url) + m_grouping; }
    pdt::Result<void> publish(const std::string& exposition) override {
        const HttpResponse response = PDT_TRY(http_exchange(m_url, "PUT", m_url.path + m_grouping, exposition));
        return expect_success(response, "PUT", target(), "");
    }
    pdt::Result<void> withdraw() override {
        const HttpResponse response = PDT_TRY(http_exchange(m_url, "DELETE", m_url.path + m_grouping, ""));
        return expect_success(response, "DELETE", target(), "");
    }

private:
    PushUrl m_url;
    std::string m_grouping;
};

pdt::Result<std::unique_ptr<Publisher>> open_push_publisher(const std::string& target, const std::string& job,
                                                            const std::string& instance) {
    PushUrl url = PDT_TRY(parse_push_url(target));
    std::string grouping = PDT_TRY(grouping_path(job, instance));
    // The start-up check: the gateway's readiness endpoint (Pushgateway 0.10 and later) answers.
    const std::string ready = url.path + "/-/ready";
    const HttpResponse response = PDT_TRY(http_exchange(url, "GET", ready, ""));
    PDT_CHECK(expect_success(response, "GET", to_string(url) + "/-/ready",
                             "is a Pushgateway listening there, with this path as its --web.route-prefix?"));
    return std::unique_ptr<Publisher>(std::make_unique<PushPublisher>(std::move(url), std::move(grouping)));
}

}  // namespace

pdt::Result<std::unique_ptr<Publisher>> open_publisher(const std::string& target, const std::string& job,
                                                       const std::string& instance) {
    if (target.find("://") != std::string::npos)
        return open_push_publisher(target, job, instance);
    return open_file_publisher(target);
}

}  // namespace metrics
