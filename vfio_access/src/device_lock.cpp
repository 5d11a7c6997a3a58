#include "vfio_access/device_lock.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace vfio {
namespace {

constexpr const char* kRecordTag = "pdt-lock";
constexpr auto kPollInterval = std::chrono::milliseconds(50);

int64_t unix_now() { return static_cast<int64_t>(std::time(nullptr)); }

std::string utc_text(int64_t seconds) {
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

std::string user_name(uid_t uid) {
    char buffer[4096];
    passwd entry{};
    passwd* found = nullptr;
    if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found && found->pw_name)
        return found->pw_name;
    return "uid " + std::to_string(uid);
}

std::string process_name() {
    std::ifstream comm("/proc/self/comm");
    std::string name;
    if (comm && std::getline(comm, name) && !name.empty())
        return name;
    return "pid " + std::to_string(::getpid());
}

bool directory_writable(const std::string& path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::access(path.c_str(), W_OK | X_OK) == 0;
}

// Creates the directory (sticky and writable by everyone, as /run/lock itself, so that every
// user's tools share it); an existing one is left as it is.
pdt::Result<void> make_lock_directory(const std::string& directory) {
    if (::mkdir(directory.c_str(), 01777) == 0) {
        ::chmod(directory.c_str(), 01777);  // mkdir's mode went through the umask
        return {};
    }
    if (errno == EEXIST)
        return {};
    return pdt::errno_error("create lock directory", directory, "set PDT_LOCK_DIR to a writable directory");
}

// lock_holds(): the holds of this process, and the start of each one still held.
struct HoldLog {
    std::mutex mutex;
    std::vector<LockHold> holds;
    std::vector<std::chrono::steady_clock::time_point> taken;
};
HoldLog& hold_log() {
    static HoldLog log;
    return log;
}

std::string read_record(int fd) {
    char text[512];
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    return n > 0 ? std::string(text, static_cast<size_t>(n)) : std::string();
}

std::string busy_hint(int fd, const std::string& path, std::chrono::milliseconds timeout) {
    std::string who;
    if (auto holder = parse_lock_record(read_record(fd))) {
        who = "held by " + describe_lock_holder(*holder, unix_now());
        if (::kill(static_cast<pid_t>(holder->pid), 0) != 0 && errno == ESRCH)
            who += " [that process has exited: its record is stale, or a child it started holds the lock]";
    } else {
        who = "held by a process that left no record in " + path;
    }
    if (timeout.count() > 0) {
        char waited[64];
        std::snprintf(waited, sizeof waited, "; still busy after %.1f s of lock wait",
                      static_cast<double>(timeout.count()) / 1000.0);
        return who + waited;
    }
    return who + "; a lock wait waits for it";
}

}  // namespace

std::string format_lock_record(const LockHolder& holder) {
    return std::string(kRecordTag) + " pid=" + std::to_string(holder.pid) + " uid=" + std::to_string(holder.uid) +
           " user=" + holder.user + " since=" + std::to_string(holder.since) + " tool=" + holder.tool + "\n";
}

std::optional<LockHolder> parse_lock_record(const std::string& text) {
    std::istringstream in(text.substr(0, text.find('\n')));
    std::string token;
    if (!(in >> token) || token != kRecordTag)
        return std::nullopt;
    LockHolder holder;
    bool have_pid = false;
    while (in >> token) {
        const size_t eq = token.find('=');
        if (eq == std::string::npos)
            return std::nullopt;
        const std::string key = token.substr(0, eq), value = token.substr(eq + 1);
        if (key == "tool") {  // the rest of the line: a process name may hold spaces
            std::string rest;
            std::getline(in, rest);
            holder.tool = value + rest;
            break;
        }
        char* end = nullptr;
        const long long number = std::strtoll(value.c_str(), &end, 10);
        const bool numeric = !value.empty() && *end == '\0';
        if (key == "pid" && numeric) {
            holder.pid = static_cast<long>(number);
            have_pid = true;
        } else if (key == "uid" && numeric) {
            holder.uid = static_cast<long>(number);
        } else if (key == "since" && numeric) {
            holder.since = number;
        } else if (key == "user") {
            holder.user = value;
        }
    }
    if (!have_pid)
        return std::nullopt;
    return holder;
}

std::string describe_lock_holder(const LockHolder& holder, int64_t now) {
    return holder.user + " (uid " + std::to_string(holder.uid) + "), pid " + std::to_string(holder.pid) + " (" +
           holder.tool + ") since " + utc_text(holder.since) + " (for " +
           std::to_string(std::max<int64_t>(0, now - holder.since)) + " s)";
}

LockHolder this_process_holder() {
    LockHolder holder;
    holder.uid = static_cast<long>(::getuid());
    holder.user = user_name(::getuid());
    holder.pid = static_cast<long>(::getpid());
    holder.tool = process_name();
    holder.since = unix_now();
    return holder;
}

std::string default_lock_directory() {
    if (directory_writable("/run/lock"))
        return "/run/lock/pcie-dma-toolkit";
    if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime && directory_writable(runtime))
        return std::string(runtime) + "/pcie-dma-toolkit";
    return "/tmp/pcie-dma-toolkit";
}

std::string configured_lock_directory() {
    if (const char* text = std::getenv("PDT_LOCK_DIR"); text && *text)
        return text;
    return default_lock_directory();
}

pdt::Result<std::unique_ptr<DeviceLock>> DeviceLock::acquire(const LockOptions& options, const PciAddress& address) {
    PDT_CHECK(make_lock_directory(options.directory));
    const std::string path = options.directory + "/" + options.prefix + address.to_string() + ".lock";
    bool writable = true;
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666));
    if (fd.valid()) {
        ::fchmod(fd.get(), 0666);  // other users lock it too (fails harmlessly on their file)
    } else if (errno == EACCES) {   // another user's file without write permission: lock, no record
        writable = false;
        fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    }
    if (!fd.valid())
        return pdt::errno_error("open lock file", path, "set PDT_LOCK_DIR to a writable directory");
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + options.timeout;
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK)
            return pdt::errno_error("flock", path);
        if (std::chrono::steady_clock::now() >= deadline)
            return pdt::make_error("lock", address.to_string(), EBUSY, busy_hint(fd.get(), path, options.timeout));
        std::this_thread::sleep_for(kPollInterval);
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (writable) {
        const std::string record = format_lock_record(this_process_holder());
        if (::ftruncate(fd.get(), 0) != 0 ||
            ::pwrite(fd.get(), record.data(), record.size(), 0) != static_cast<ssize_t>(record.size()))
            return pdt::errno_error("write lock record", path);
    }
    return std::unique_ptr<DeviceLock>(new DeviceLock(address, path, std::move(fd), writable, waited));
}

std::vector<LockHold> lock_holds() {
    HoldLog& log = hold_log();
    std::lock_guard guard(log.mutex);
    std::vector<LockHold> holds = log.holds;
    const auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < holds.size(); ++i)
        if (!holds[i].released)
            holds[i].held_s = std::chrono::duration<double>(now - log.taken[i]).count();
    return holds;
}

DeviceLock::DeviceLock(PciAddress address, std::string path, UniqueFd fd, bool writable, double waited_s)
    : m_address(address), m_path(std::move(path)), m_fd(std::move(fd)), m_writable(writable), m_waited_s(waited_s),
      m_taken(std::chrono::steady_clock::now()) {
    HoldLog& log = hold_log();
    std::lock_guard guard(log.mutex);
    m_hold = log.holds.size();
    log.holds.push_back(LockHold{m_address, m_path, m_waited_s, 0, false});
    log.taken.push_back(m_taken);
}

DeviceLock::~DeviceLock() {
    {
        HoldLog& log = hold_log();
        std::lock_guard guard(log.mutex);
        log.holds[m_hold].held_s = held_seconds();
        log.holds[m_hold].released = true;
    }
    if (m_writable && ::ftruncate(m_fd.get(), 0) != 0) {
        // The record stays; the next holder overwrites it. Closing releases the lock either way.
    }
}

double DeviceLock::held_seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_taken).count();
}

}  // namespace vfio
