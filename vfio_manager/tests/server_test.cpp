// The manager's protocol handling on this machine, without devices: a server with no device
// list, a temporary socket, real clients.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "vfio_manager/client.hpp"
#include "vfio_manager/server.hpp"
#include "vfio_manager/transport.hpp"

namespace vfio_manager {
namespace {

class Running : public ::testing::Test {
protected:
    void SetUp() override {
        char dir[] = "/tmp/pdt_vfio_manager_XXXXXX";
        ASSERT_NE(::mkdtemp(dir), nullptr);
        m_dir = dir;
        m_options.socket_path = m_dir + "/sub/vfio_manager.sock";
    }
    void TearDown() override {
        stop();
        std::system(("rm -rf " + m_dir).c_str());
    }
    void start() {
        auto server = Server::start(m_options, {}, m_log);
        ASSERT_TRUE(server.ok()) << server.error().message();
        m_server = std::move(*server);
        m_thread = std::thread([this] { m_result = m_server->run(m_stop); });
    }
    void stop() {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    std::shared_ptr<Client> connect() {
        auto client = Client::connect(m_options.socket_path);
        EXPECT_TRUE(client.ok()) << client.error().message();
        return client.ok() ? *client : nullptr;
    }
    // A raw connection that sends bytes (and fds) and reports whether the manager closed it.
    bool raw_send_then_closed(const std::vector<uint8_t>& bytes, const std::vector<int>& fds = {}) {
        vfio::UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strcpy(address.sun_path, m_options.socket_path.c_str());
        EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        EXPECT_TRUE(send_packet(fd.get(), bytes, fds).ok());
        auto got = receive_packet(fd.get());
        return got.ok() && !got->has_value();
    }
    std::string log() {
        stop();
        return m_log.str();
    }

    std::string m_dir;
    ServerOptions m_options;
    std::ostringstream m_log;
    std::unique_ptr<Server> m_server;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    pdt::Result<void> m_result;
};

TEST_F(Running, ServesStatusOnAPrivateSocket) {
    start();
    auto client = connect();
    ASSERT_TRUE(client);
    auto status = client->status();
    ASSERT_TRUE(status.ok()) << status.error().message();
    EXPECT_EQ(status->clients, 1u);
    EXPECT_EQ(status->devices_open, 0u);
    struct stat st{};
    ASSERT_EQ(::stat(m_options.socket_path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(::stat((m_dir + "/sub").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    client.reset();
    EXPECT_NE(log().find("Client PID " + std::to_string(::getpid())), std::string::npos);
    EXPECT_TRUE(m_result.ok());
    EXPECT_NE(::access(m_options.socket_path.c_str(), F_OK), 0) << "the socket is removed on shutdown";
}

TEST_F(Running, GarbageClosesThatClientOnlyAndIsLogged) {
    start();
    auto good = connect();
    ASSERT_TRUE(good);
    EXPECT_TRUE(raw_send_then_closed({'h', 'e', 'l', 'l', 'o'}));
    std::vector<uint8_t> reply_type = encode({1, StatusReply{}});
    EXPECT_TRUE(raw_send_then_closed(reply_type));
    EXPECT_TRUE(raw_send_then_closed(encode({1, Status{}}), {0}));
    auto status = good->status();
    ASSERT_TRUE(status.ok()) << "the manager must survive garbage: " << status.error().message();
    EXPECT_EQ(status->clients, 1u);
    good.reset();
    const std::string text = log();
    EXPECT_NE(text.find("Malformed message from client PID"), std::string::npos) << text;
    EXPECT_NE(text.find("(5 bytes, shorter than the 16-byte header); closing that client"), std::string::npos) << text;
    EXPECT_NE(text.find("StatusReply is a reply, not a request; closing that client"), std::string::npos) << text;
    EXPECT_NE(text.find("file descriptors attached; closing that client"), std::string::npos) << text;
}

TEST_F(Running, UnknownDeviceAndForeignContainerAreRefusedWithTheReason) {
    start();
    auto client = connect();
    ASSERT_TRUE(client);
    auto opened = client->open_device(*vfio::PciAddress::parse("0000:01:00.0"));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, ENODEV);
    EXPECT_NE(opened.error().message().find("not managed by the VFIO manager (it manages: none)"), std::string::npos)
        << opened.error().message();
    auto iova = client->allocate_iova(1, 4096, 32);
    ASSERT_FALSE(iova.ok());
    EXPECT_EQ(iova.error().code, EPERM);
    auto freed = client->free_iova(7, 0x1000, 4096);
    ASSERT_FALSE(freed.ok());
    EXPECT_EQ(freed.error().code, ENOENT);
}

TEST_F(Running, ASecondManagerOnTheSameSocketIsRefused) {
    start();
    std::ostringstream other_log;
    auto second = Server::start(m_options, {}, other_log);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().code, EADDRINUSE);
    EXPECT_NE(second.error().message().find("already listening"), std::string::npos);
    auto client = connect();
    EXPECT_TRUE(client && client->status().ok());
}

TEST_F(Running, OnceStopsWhenTheLastClientLeaves) {
    m_options.once = true;
    start();
    {
        auto client = connect();
        ASSERT_TRUE(client);
    }
    m_thread.join();  // returns by itself, without the stop flag
    EXPECT_TRUE(m_result.ok());
    EXPECT_NE(m_log.str().find("Shutting down"), std::string::npos);
}

TEST_F(Running, StopWaitsForConnectedClients) {
    start();
    auto client = connect();
    ASSERT_TRUE(client);
    m_stop = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ASSERT_TRUE(client->status().ok()) << "a connected client is still served after the stop request";
    client.reset();
    m_thread.join();
    const std::string text = m_log.str();
    EXPECT_NE(text.find("Manager will shutdown once there are no connected clients"), std::string::npos);
    EXPECT_NE(text.find("Shutting down"), std::string::npos);
}

TEST_F(Running, NoManagerMeansDirectOpen) {
    ::setenv(k_socket_env, (m_dir + "/none.sock").c_str(), 1);
    auto none = connect_if_running();
    ASSERT_TRUE(none.ok()) << none.error().message();
    EXPECT_EQ(*none, nullptr);
    start();
    ::setenv(k_socket_env, m_options.socket_path.c_str(), 1);
    auto some = connect_if_running();
    ASSERT_TRUE(some.ok()) << some.error().message();
    EXPECT_NE(*some, nullptr);
    ::unsetenv(k_socket_env);
}

TEST(VfioManagerPolicy, OnlyOwnerRootOrTheAllowedGroup) {
    AccessPolicy policy{1000, std::nullopt};
    EXPECT_EQ(refusal_reason(policy, {1, 1000, 1000}), "");
    EXPECT_EQ(refusal_reason(policy, {1, 0, 0}), "");
    EXPECT_EQ(refusal_reason(policy, {1, 1001, 1000}),
              "uid 1001 is neither the manager's uid 1000 nor root (start the manager with the group allowance to serve "
              "a group)");
    policy.group = 50;
    EXPECT_EQ(refusal_reason(policy, {1, 1001, 50}), "");
    EXPECT_EQ(refusal_reason(policy, {1, 1001, 51}),
              "uid 1001 is neither the manager's uid 1000 nor root, and gid 51 is not the allowed group 50");
}

TEST(VfioManagerPath, EnvironmentThenRootThenRuntimeDir) {
    ::setenv(k_socket_env, "/tmp/x.sock", 1);
    EXPECT_EQ(*socket_path(), "/tmp/x.sock");
    ::unsetenv(k_socket_env);
    if (::geteuid() == 0) {
        EXPECT_EQ(*socket_path(), "/run/pcie-dma-toolkit/vfio_manager.sock");
        return;
    }
    const char* saved = std::getenv("XDG_RUNTIME_DIR");
    const std::string keep = saved ? saved : "";
    ::setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
    EXPECT_EQ(*socket_path(), "/run/user/1000/pcie-dma-toolkit/vfio_manager.sock");
    ::unsetenv("XDG_RUNTIME_DIR");
    auto none = socket_path();
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message().find("XDG_RUNTIME_DIR is not set"), std::string::npos);
    if (saved)
        ::setenv("XDG_RUNTIME_DIR", keep.c_str(), 1);
}

}  // namespace
}  // namespace vfio_manager
