// Advisory device locks: the holder record, contention between processes (a forked child holds
// the lock), waiting with a timeout, a dead holder's lock being free, and KernelDeviceBus taking the
// lock before it opens the group.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "temp_tree.hpp"
#include "vfio_access/device_lock.hpp"
#include "vfio_access/kernel.hpp"

namespace {

using namespace std::chrono_literals;

vfio::PciAddress address(const char* bdf) { return vfio::PciAddress::parse(bdf).value(); }

// A child process that takes the lock, tells the parent, then holds it until the parent
// writes to it (or for hold_ms when given), and exits without releasing anything itself.
class LockHolderProcess {
public:
    LockHolderProcess(const vfio::LockOptions& options, const vfio::PciAddress& where, int hold_ms = -1) {
        ::signal(SIGPIPE, SIG_IGN);  // release() may write after the child has gone
        int ready[2], release[2];
        if (::pipe(ready) != 0 || ::pipe(release) != 0)
            return;
        m_pid = ::fork();
        if (m_pid == 0) {
            auto lock = vfio::DeviceLock::acquire(options, where);
            const char status = lock.ok() ? 'y' : 'n';
            (void)!::write(ready[1], &status, 1);
            if (hold_ms >= 0) {
                ::usleep(static_cast<useconds_t>(hold_ms) * 1000);
            } else {
                char byte;
                (void)!::read(release[0], &byte, 1);
            }
            ::_exit(0);  // no destructor runs: the record stays, the kernel drops the flock
        }
        char status = 'n';
        m_locked = ::read(ready[0], &status, 1) == 1 && status == 'y';
        ::close(ready[0]);
        ::close(ready[1]);
        ::close(release[0]);
        m_release = release[1];
    }
    ~LockHolderProcess() {
        release();
        wait();
    }
    bool locked() const { return m_locked; }
    pid_t pid() const { return m_pid; }
    void release() {
        if (m_release >= 0) {
            (void)!::write(m_release, "x", 1);
            ::close(m_release);
            m_release = -1;
        }
    }
    void wait() {
        if (m_pid > 0)
            ::waitpid(m_pid, nullptr, 0);
        m_pid = -1;
    }
    void kill() {
        ::kill(m_pid, SIGKILL);
        wait();
    }

private:
    pid_t m_pid = -1;
    int m_release = -1;
    bool m_locked = false;
};

class DeviceLockTest : public ::testing::Test {
protected:
    void SetUp() override { options.directory = tree.path("locks"); }
    std::string lock_path() const { return options.directory + "/0000:01:00.0.lock"; }

    TempTree tree;
    vfio::LockOptions options;
    const vfio::PciAddress bdf = address("0000:01:00.0");
};

}  // namespace

TEST(LockRecord, FormatsAndParsesEveryField) {
    vfio::LockHolder holder{"alice", 1000, 1234, "test dma bridge", 1796065331};
    const std::string record = vfio::format_lock_record(holder);
    EXPECT_EQ(record, "pdt-lock pid=1234 uid=1000 user=alice since=1796065331 tool=test dma bridge\n");
    const auto parsed = vfio::parse_lock_record(record);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->user, "alice");
    EXPECT_EQ(parsed->uid, 1000);
    EXPECT_EQ(parsed->pid, 1234);
    EXPECT_EQ(parsed->tool, "test dma bridge");
    EXPECT_EQ(parsed->since, 1796065331);
}

TEST(LockRecord, EmptyOrForeignRecordsAreNotParsed) {
    EXPECT_FALSE(vfio::parse_lock_record(""));
    EXPECT_FALSE(vfio::parse_lock_record("1234\n"));
    EXPECT_FALSE(vfio::parse_lock_record("pdt-lock uid=1000 user=bob\n"));  // no pid
    EXPECT_FALSE(vfio::parse_lock_record("pdt-lock pid=12 garbage\n"));
}

TEST(LockRecord, DescribesTheHolderForHumans) {
    vfio::LockHolder holder{"alice", 1000, 1234, "test_dma_bridge", 1796065331};
    EXPECT_EQ(vfio::describe_lock_holder(holder, 1796065331 + 83),
              "alice (uid 1000), pid 1234 (test_dma_bridge) since 2026-11-30T19:02:11Z (for 83 s)");
}

TEST(LockRecord, ThisProcessIsNamed) {
    const vfio::LockHolder me = vfio::this_process_holder();
    EXPECT_EQ(me.pid, static_cast<long>(::getpid()));
    EXPECT_EQ(me.uid, static_cast<long>(::getuid()));
    EXPECT_FALSE(me.user.empty());
    EXPECT_FALSE(me.tool.empty());
}

TEST_F(DeviceLockTest, AcquireWritesTheRecordAndReleaseEmptiesIt) {
    {
        auto lock = vfio::DeviceLock::acquire(options, bdf);
        ASSERT_TRUE(lock.ok()) << lock.error().message();
        EXPECT_EQ((*lock)->path(), lock_path());
        const auto record = vfio::parse_lock_record(read_text(lock_path()));
        ASSERT_TRUE(record);
        EXPECT_EQ(record->pid, static_cast<long>(::getpid()));
        EXPECT_GE((*lock)->held_seconds(), 0.0);
        EXPECT_LT((*lock)->waited_seconds(), 0.5);
    }
    EXPECT_EQ(read_text(lock_path()), "");
    auto again = vfio::DeviceLock::acquire(options, bdf);
    EXPECT_TRUE(again.ok());
}

TEST_F(DeviceLockTest, SecondProcessNamesTheHolderAndFailsAtOnce) {
    LockHolderProcess holder(options, bdf);
    ASSERT_TRUE(holder.locked());
    const auto start = std::chrono::steady_clock::now();
    auto lock = vfio::DeviceLock::acquire(options, bdf);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
    ASSERT_FALSE(lock.ok());
    EXPECT_EQ(lock.error().code, EBUSY);
    const std::string message = lock.error().message();
    EXPECT_NE(message.find("lock 0000:01:00.0: Device or resource busy (held by "), std::string::npos) << message;
    EXPECT_NE(message.find("pid " + std::to_string(holder.pid()) + " ("), std::string::npos) << message;
    EXPECT_NE(message.find("(uid " + std::to_string(::getuid()) + ")"), std::string::npos) << message;
    EXPECT_NE(message.find("; a lock wait waits for it"), std::string::npos) << message;
}

TEST_F(DeviceLockTest, OtherDevicesAreNotBlocked) {
    LockHolderProcess holder(options, bdf);
    ASSERT_TRUE(holder.locked());
    EXPECT_TRUE(vfio::DeviceLock::acquire(options, address("0000:02:00.0")).ok());
    options.prefix = "sim-";  // a simulated device at the same address has a lock of its own
    EXPECT_TRUE(vfio::DeviceLock::acquire(options, bdf).ok());
}

TEST_F(DeviceLockTest, WaitsForTheHolderWithinTheTimeout) {
    LockHolderProcess holder(options, bdf, 400);
    ASSERT_TRUE(holder.locked());
    options.timeout = 10s;
    auto lock = vfio::DeviceLock::acquire(options, bdf);
    ASSERT_TRUE(lock.ok()) << lock.error().message();
    EXPECT_GE((*lock)->waited_seconds(), 0.2);
    EXPECT_LT((*lock)->waited_seconds(), 9.0);
}

TEST_F(DeviceLockTest, TimeoutExpiresWhileHeld) {
    LockHolderProcess holder(options, bdf);
    ASSERT_TRUE(holder.locked());
    options.timeout = 300ms;
    const auto start = std::chrono::steady_clock::now();
    auto lock = vfio::DeviceLock::acquire(options, bdf);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
    ASSERT_FALSE(lock.ok());
    EXPECT_NE(lock.error().message().find("still busy after 0.3 s of lock wait"), std::string::npos)
        << lock.error().message();
}

TEST_F(DeviceLockTest, DeadHoldersRecordDoesNotBlock) {
    {
        LockHolderProcess holder(options, bdf);
        ASSERT_TRUE(holder.locked());
        holder.kill();  // SIGKILL: nothing cleaned up
    }
    const auto stale = vfio::parse_lock_record(read_text(lock_path()));
    ASSERT_TRUE(stale);  // the dead process's record is still there...
    EXPECT_NE(stale->pid, static_cast<long>(::getpid()));
    auto lock = vfio::DeviceLock::acquire(options, bdf);  // ...but its flock went with it
    ASSERT_TRUE(lock.ok()) << lock.error().message();
    EXPECT_EQ(vfio::parse_lock_record(read_text(lock_path()))->pid, static_cast<long>(::getpid()));
}

TEST_F(DeviceLockTest, HolderWithoutRecordIsStillReported) {
    LockHolderProcess holder(options, bdf);
    ASSERT_TRUE(holder.locked());
    std::ofstream(lock_path(), std::ios::trunc).flush();  // as if the holder had not written yet
    auto lock = vfio::DeviceLock::acquire(options, bdf);
    ASSERT_FALSE(lock.ok());
    EXPECT_NE(lock.error().message().find("held by a process that left no record in " + lock_path()),
              std::string::npos)
        << lock.error().message();
}

TEST_F(DeviceLockTest, UnusableDirectoryIsAnError) {
    tree.write("file", "");
    options.directory = tree.path("file/locks");
    auto lock = vfio::DeviceLock::acquire(options, bdf);
    ASSERT_FALSE(lock.ok());
    EXPECT_NE(lock.error().message().find("create lock directory " + options.directory), std::string::npos)
        << lock.error().message();
    EXPECT_NE(lock.error().message().find("PDT_LOCK_DIR"), std::string::npos);
}

TEST(DefaultLockDirectory, IsNamedForTheToolkit) {
    EXPECT_NE(vfio::default_lock_directory().find("pcie-dma-toolkit"), std::string::npos);
}

// KernelDeviceBus takes the lock after its checks and before the group opens: a busy device fails
// with the holder named, a free one gets as far as the (missing) group node.
TEST_F(DeviceLockTest, KernelBusTakesTheLockBeforeOpeningTheGroup) {
    tree.write("sys/bus/pci/drivers/vfio-pci/.keep", "");
    tree.mkdir("sys/bus/pci/devices/0000:01:00.0");
    tree.symlink("../../../bus/pci/drivers/vfio-pci", "sys/bus/pci/devices/0000:01:00.0/driver");
    tree.write("dev/vfio/vfio", "");
    vfio::KernelOptions kernel;
    kernel.sysfs_root = tree.path("sys");
    kernel.dev_vfio_root = tree.path("dev/vfio");
    kernel.proc_root = tree.path("proc");
    kernel.lock = options;
    vfio::DeviceIdentity id;
    id.address = bdf;
    id.iommu_group = 7;
    {
        LockHolderProcess holder(options, bdf);
        ASSERT_TRUE(holder.locked());
        const auto busy = vfio::KernelDeviceBus(kernel).open(id);
        ASSERT_FALSE(busy.ok());
        EXPECT_EQ(busy.error().code, EBUSY);
        EXPECT_NE(busy.error().message().find("pid " + std::to_string(holder.pid())), std::string::npos)
            << busy.error().message();
    }
    const auto free = vfio::KernelDeviceBus(kernel).open(id);
    ASSERT_FALSE(free.ok());  // a plain-file /dev/vfio/vfio: the container cannot open
    EXPECT_NE(free.error().code, EBUSY) << free.error().message();
    EXPECT_EQ(read_text(lock_path()), "");  // the failed open released the lock
}

TEST_F(DeviceLockTest, HoldsAreRecordedWhileHeldAndAfterRelease) {
    const size_t before = vfio::lock_holds().size();
    const auto start = std::chrono::steady_clock::now();
    {
        auto lock = vfio::DeviceLock::acquire(options, address("0000:03:00.0"));
        ASSERT_TRUE(lock.ok());
        ::usleep(50'000);
        const std::vector<vfio::LockHold> holds = vfio::lock_holds();
        ASSERT_EQ(holds.size(), before + 1);
        EXPECT_EQ(holds.back().address, address("0000:03:00.0"));
        EXPECT_EQ(holds.back().path, options.directory + "/0000:03:00.0.lock");
        EXPECT_FALSE(holds.back().released);
        EXPECT_GE(holds.back().held_s, 0.04);
    }
    const double scope_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ::usleep(100'000);
    const vfio::LockHold hold = vfio::lock_holds().back();
    EXPECT_TRUE(hold.released);
    EXPECT_GE(hold.held_s, 0.04);
    EXPECT_LE(hold.held_s, scope_s);  // stopped counting at release, not at this call
}
