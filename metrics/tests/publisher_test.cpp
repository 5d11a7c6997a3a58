#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "http_test_server.hpp"
#include "metrics/exposition.hpp"
#include "metrics/pushgateway.hpp"

namespace {

namespace fs = std::filesystem;
using metrics_test::HttpTestServer;

class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "metrics_test.XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            std::abort();
        m_path = pattern;
    }
    ~TempDir() {
        fs::permissions(m_path, fs::perms::owner_all);
        fs::remove_all(m_path);
    }
    std::string operator/(const std::string& name) const { return (m_path / name).string(); }
    const fs::path& path() const { return m_path; }
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(m_path))
            names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

private:
    fs::path m_path;
};

std::string contents(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string open_refusal(const std::string& target) {
    auto opened = metrics::open_publisher(target, "pdt", "lab1");
    EXPECT_FALSE(opened.ok()) << target;
    return opened.ok() ? "" : opened.error().message();
}

TEST(FilePublisher, OpenLeavesNothingAndPublishWritesTheTextReadableByAll) {
    TempDir dir;
    auto publisher = metrics::open_publisher(dir / "pdt.prom", "pdt", "lab1");
    ASSERT_TRUE(publisher.ok()) << publisher.error().message();
    EXPECT_EQ((*publisher)->target(), dir / "pdt.prom");
    EXPECT_TRUE(dir.entries().empty());  // the start-up check's temporary file is gone
    ASSERT_TRUE((*publisher)->publish("pdt_x 1\n").ok());
    ASSERT_TRUE((*publisher)->publish("pdt_x 2\n").ok());
    EXPECT_EQ(contents(dir / "pdt.prom"), "pdt_x 2\n");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"pdt.prom"});
    struct stat st {};
    ASSERT_EQ(::stat((dir / "pdt.prom").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);  // node_exporter runs as its own user
}

TEST(FilePublisher, WithdrawRemovesTheFile) {
    TempDir dir;
    auto publisher = metrics::open_publisher(dir / "pdt.prom", "pdt", "lab1");
    ASSERT_TRUE(publisher.ok());
    ASSERT_TRUE((*publisher)->publish("pdt_x 1\n").ok());
    ASSERT_TRUE((*publisher)->withdraw().ok());
    EXPECT_TRUE(dir.entries().empty());
    EXPECT_TRUE((*publisher)->withdraw().ok());  // nothing there: nothing to do
    fs::create_directory(dir / "pdt.prom");
    EXPECT_EQ((*publisher)->withdraw().error().message(),
              "remove metrics file " + dir / "pdt.prom" + ": Is a directory");
}

// A reader (node_exporter scraping) sees the old text or the new one, never a part.
TEST(FilePublisher, AReaderNeverSeesAHalfWrittenFile) {
    TempDir dir;
    auto publisher = metrics::open_publisher(dir / "pdt.prom", "pdt", "lab1");
    ASSERT_TRUE(publisher.ok());
    const std::string a(1 << 20, 'a'), b(1 << 19, 'b');
    ASSERT_TRUE((*publisher)->publish(a).ok());
    std::atomic<bool> done{false};
    std::atomic<int> torn{0}, reads{0};
    std::thread reader([&] {
        while (!done) {
            const std::string seen = contents(dir / "pdt.prom");
            torn += seen != a && seen != b;
            ++reads;
        }
    });
    for (int i = 0; i < 40; ++i)
        ASSERT_TRUE((*publisher)->publish(i % 2 ? a : b).ok());
    done = true;
    reader.join();
    EXPECT_GT(reads, 0);
    EXPECT_EQ(torn, 0);
}

TEST(FilePublisher, MissingDirectoryFailsAtStartUpNamingIt) {
    TempDir dir;
    const std::string target = dir / "missing/pdt.prom";
    EXPECT_EQ(open_refusal(target), "create a temporary file in " + dir / "missing" +
                                        ": No such file or directory (the directory of metrics file " + target +
                                        " must exist and be writable)");
    std::ofstream(dir / "file").put('x');
    EXPECT_EQ(open_refusal(dir / "file/pdt.prom"), "create a temporary file in " + dir / "file" +
                                                       ": Not a directory (the directory of metrics file " +
                                                       dir / "file/pdt.prom" + " must exist and be writable)");
}

// sysfs refuses new files to root too (or is mounted read-only).
TEST(FilePublisher, UnwritableDirectoryFailsAtStartUpNamingIt) {
    auto opened = metrics::open_publisher("/sys/pdt.prom", "pdt", "lab1");
    ASSERT_FALSE(opened.ok());
    EXPECT_TRUE(opened.error().code == EACCES || opened.error().code == EROFS) << opened.error().message();
    EXPECT_EQ(opened.error().operation, "create a temporary file in");
    EXPECT_EQ(opened.error().object, "/sys");
    EXPECT_EQ(opened.error().hint, "the directory of metrics file /sys/pdt.prom must exist and be writable");
}

TEST(FilePublisher, ReadOnlyDirectoryFailsAtStartUp) {
    if (::geteuid() == 0)
        GTEST_SKIP() << "root writes into a mode 0555 directory; /sys covers the refusal above";
    TempDir dir;
    fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_EQ(open_refusal(dir / "pdt.prom"), "create a temporary file in " + dir.path().string() +
                                                  ": Permission denied (the directory of metrics file " +
                                                  dir / "pdt.prom" + " must exist and be writable)");
}

TEST(FilePublisher, NamesTheCollectorCannotReadOrThatAreDirectories) {
    TempDir dir;
    EXPECT_EQ(open_refusal(dir / "pdt.txt"), "open metrics file " + dir / "pdt.txt" +
                                                 ": Invalid argument (node_exporter's textfile collector reads only "
                                                 "*.prom files: name it " + dir / "pdt.prom" + ")");
    EXPECT_EQ(open_refusal(dir / "pdt"), "open metrics file " + dir / "pdt" +
                                             ": Invalid argument (node_exporter's textfile collector reads only "
                                             "*.prom files: name it " + dir / "pdt.prom" + ")");
    EXPECT_EQ(open_refusal(dir / ""), "open metrics file " + dir / "" + ": Is a directory (give a file, such as " +
                                          dir / "" + "pdt.prom)");
    fs::create_directory(dir / "d.prom");
    EXPECT_EQ(open_refusal(dir / "d.prom"),
              "open metrics file " + dir / "d.prom" + ": Is a directory (a directory has this name)");
}

TEST(FilePublisher, PublishFailuresNameTheFileAndLeaveNoTemporaryFile) {
    TempDir dir;
    auto publisher = metrics::open_publisher(dir / "pdt.prom", "pdt", "lab1");
    ASSERT_TRUE(publisher.ok());
    fs::create_directory(dir / "pdt.prom");
    std::ofstream(dir / "pdt.prom/keep").put('x');  // rename cannot replace a non-empty directory
    const auto renamed = (*publisher)->publish("pdt_x 1\n");
    ASSERT_FALSE(renamed.ok());
    EXPECT_TRUE(renamed.error().operation.starts_with("rename " + dir / ".pdt.prom.")) << renamed.error().message();
    EXPECT_EQ(renamed.error().object, dir / "pdt.prom");
    EXPECT_EQ(renamed.error().code, EISDIR);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"pdt.prom"});
    fs::remove_all(dir.path());
    EXPECT_EQ((*publisher)->publish("pdt_x 1\n").error().message(),
              "create a temporary file in " + dir.path().string() + ": No such file or directory (writing metrics file " +
                  dir / "pdt.prom" + ")");
    fs::create_directory(dir.path());
}

TEST(PushPublisher, ChecksReadinessThenPutsTheTextUnderTheGroupingKey) {
    HttpTestServer server({HttpTestServer::answer("200 OK", "Pushgateway is Ready.\n"), HttpTestServer::answer("200 OK", "")});
    auto publisher = metrics::open_publisher(server.url() + "/pg/", "test_dma_bridge", "lab1:0000:15:00.0");
    ASSERT_TRUE(publisher.ok()) << publisher.error().message();
    const std::string host = "Host: 127.0.0.1:" + std::to_string(server.port()) + "\r\n";
    EXPECT_EQ(server.requests().at(0),
              "GET /pg/-/ready HTTP/1.1\r\n" + host + "User-Agent: pcie-dma-toolkit\r\nConnection: close\r\n\r\n");
    EXPECT_EQ((*publisher)->target(), server.url() + "/pg/metrics/job/test_dma_bridge/instance/lab1%3A0000%3A15%3A00.0");
    const std::string text = "# HELP pdt_x x\n# TYPE pdt_x gauge\npdt_x 1\n";
    const auto pushed = (*publisher)->publish(text);
    ASSERT_TRUE(pushed.ok()) << pushed.error().message();
    EXPECT_EQ(server.requests().at(1), "PUT /pg/metrics/job/test_dma_bridge/instance/lab1%3A0000%3A15%3A00.0 HTTP/1.1\r\n" +
                                           host + "User-Agent: pcie-dma-toolkit\r\nConnection: close\r\n"
                                           "Content-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                                           std::to_string(text.size()) + "\r\n\r\n" + text);
}

TEST(PushPublisher, WithdrawDeletesTheGroup) {
    HttpTestServer server({HttpTestServer::answer("200 OK", ""), HttpTestServer::answer("202 Accepted", ""),
                           HttpTestServer::answer("500 Internal Server Error", "persistence failed\n")});
    auto publisher = metrics::open_publisher(server.url(), "pdt", "lab1");
    ASSERT_TRUE(publisher.ok()) << publisher.error().message();
    const auto deleted = (*publisher)->withdraw();
    ASSERT_TRUE(deleted.ok()) << deleted.error().message();
    EXPECT_EQ(server.requests().at(1), "DELETE /metrics/job/pdt/instance/lab1 HTTP/1.1\r\nHost: 127.0.0.1:" +
                                           std::to_string(server.port()) +
                                           "\r\nUser-Agent: pcie-dma-toolkit\r\nConnection: close\r\n\r\n");
    EXPECT_EQ((*publisher)->withdraw().error().message(),
              "DELETE " + server.url() + "/metrics/job/pdt/instance/lab1: Protocol error (the server answered "
              "\"HTTP/1.1 500 Internal Server Error\": persistence failed)");
}

TEST(PushPublisher, ARejectedPushNamesTheUrlStatusAndFirstLineOfTheBody) {
    HttpTestServer server({HttpTestServer::answer("200 OK", ""),
                           HttpTestServer::answer("400 Bad Request", "text format parsing error in line 1: invalid "
                                                                     "metric name\r\nsecond line\n")});
    auto publisher = metrics::open_publisher(server.url(), "pdt", "lab1");
    ASSERT_TRUE(publisher.ok()) << publisher.error().message();
    const auto pushed = (*publisher)->publish("9x 1\n");
    ASSERT_FALSE(pushed.ok());
    EXPECT_EQ(pushed.error().message(), "PUT " + server.url() + "/metrics/job/pdt/instance/lab1: Protocol error (the "
                                        "server answered \"HTTP/1.1 400 Bad Request\": text format parsing error in "
                                        "line 1: invalid metric name)");
}

TEST(PushPublisher, AGatewayThatIsNotReadyFailsAtStartUp) {
    HttpTestServer server({HttpTestServer::answer("404 Not Found", "404 page not found\n")});
    EXPECT_EQ(open_refusal(server.url() + "/wrong"),
              "GET " + server.url() + "/wrong/-/ready: Protocol error (the server answered \"HTTP/1.1 404 Not Found\": "
              "404 page not found; is a Pushgateway listening there, with this path as its --web.route-prefix?)");
    HttpTestServer unavailable({"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n"});
    EXPECT_EQ(open_refusal(unavailable.url()), "GET " + unavailable.url() + "/-/ready: Protocol error (the server "
                                               "answered \"HTTP/1.1 503 Service Unavailable\"; is a Pushgateway "
                                               "listening there, with this path as its --web.route-prefix?)");
}

TEST(PushPublisher, ARefusedConnectionFailsAtStartUp) {
    const std::string url = "http://127.0.0.1:" + std::to_string(metrics_test::closed_port());
    EXPECT_EQ(open_refusal(url), "GET " + url + "/-/ready: Connection refused (connecting: is a Pushgateway listening there?)");
}

TEST(PushPublisher, BadUrlsAndJobsFailAtStartUp) {
    EXPECT_EQ(open_refusal("https://gw:9091"), "parse Pushgateway URL https://gw:9091: Invalid argument (https is not "
                                               "supported: the push is plain HTTP, give http://HOST:PORT[/PATH])");
    HttpTestServer server({});
    auto opened = metrics::open_publisher(server.url(), "", "lab1");
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().message(),
              "build the Pushgateway grouping key job \"\": Invalid argument (the gateway needs a job name)");
}

metrics::PushUrl loopback(const HttpTestServer& server) { return {"127.0.0.1", server.port(), ""}; }

TEST(HttpExchange, ASilentServerTimesOut) {
    HttpTestServer server({metrics_test::kSilent});
    const auto start = std::chrono::steady_clock::now();
    const auto answer = metrics::http_exchange(loopback(server), "GET", "/x", "", std::chrono::milliseconds(200));
    ASSERT_FALSE(answer.ok());
    EXPECT_EQ(answer.error().message(),
              "GET " + server.url() + "/x: Connection timed out (waiting for the answer: no progress within 200 ms)");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(HttpExchange, AnswersThatAreNotHttp) {
    HttpTestServer server({"SSH-2.0-OpenSSH_9.2p1\r\n", metrics_test::kClose, "HTTP/1.1 200 OK\r\nContent-"});
    const auto ssh = metrics::http_exchange(loopback(server), "GET", "/-/ready", "");
    ASSERT_FALSE(ssh.ok());
    EXPECT_EQ(ssh.error().message(), "GET " + server.url() + "/-/ready: Protocol error (the answer is not HTTP/1.x: "
                                     "\"SSH-2.0-OpenSSH_9.2p1\")");
    const auto closed = metrics::http_exchange(loopback(server), "GET", "/-/ready", "");
    ASSERT_FALSE(closed.ok());
    EXPECT_EQ(closed.error().message(),
              "GET " + server.url() + "/-/ready: Protocol error (the server closed the connection without an answer)");
    const auto cut = metrics::http_exchange(loopback(server), "GET", "/-/ready", "");
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().message(),
              "GET " + server.url() + "/-/ready: Protocol error (the answer ends inside its headers (HTTP/1.1 200 OK))");
}

TEST(HttpExchange, ChunkedAndCloseDelimitedBodies) {
    HttpTestServer server({"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n",
                           "HTTP/1.0 202 Accepted\r\nServer: test\r\n\r\nuntil close"});
    const auto chunked = metrics::http_exchange(loopback(server), "GET", "/", "");
    ASSERT_TRUE(chunked.ok()) << chunked.error().message();
    EXPECT_EQ(chunked->status, 200);
    EXPECT_EQ(chunked->status_line, "HTTP/1.1 200 OK");
    EXPECT_EQ(chunked->body, "hello world");
    const auto plain = metrics::http_exchange(loopback(server), "GET", "/", "");
    ASSERT_TRUE(plain.ok()) << plain.error().message();
    EXPECT_EQ(plain->status, 202);
    EXPECT_EQ(plain->body, "until close");
}

TEST(HttpExchange, AHostThatDoesNotResolve) {
    const auto answer = metrics::http_exchange({"no-such-host.invalid", 9091, ""}, "GET", "/-/ready", "");
    ASSERT_FALSE(answer.ok());
    EXPECT_EQ(answer.error().code, EHOSTUNREACH);
    EXPECT_TRUE(answer.error().message().starts_with(
        "GET http://no-such-host.invalid:9091/-/ready: No route to host (resolving no-such-host.invalid: "))
        << answer.error().message();
}

}  // namespace
