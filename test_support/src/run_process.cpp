#include "test_support/run_process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <grp.h>
#include <poll.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace test_support {

namespace {

using Clock = std::chrono::steady_clock;

// The test's environment with the assignments added, replacing any of the same name.
std::vector<std::string> child_environment(const std::vector<std::string>& assignments) {
    std::vector<std::string> result;
    for (char** entry = environ; *entry; ++entry) {
        const std::string current(*entry);
        const std::string name = current.substr(0, current.find('='));
        const bool replaced = std::any_of(assignments.begin(), assignments.end(), [&](const std::string& a) {
            return a.substr(0, a.find('=')) == name;
        });
        if (!replaced)
            result.push_back(current);
    }
    result.insert(result.end(), assignments.begin(), assignments.end());
    return result;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> result;
    for (std::string& s : strings)
        result.push_back(s.data());
    result.push_back(nullptr);
    return result;
}

}  // namespace

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream in(text);
    for (std::string word; in >> word;)
        result.push_back(word);
    return result;
}

Outcome run_process(const std::string& path, const std::vector<std::string>& args, const RunOptions& options) {
    // Everything the child needs is prepared before fork: only async-signal-safe calls after it.
    std::vector<std::string> argv_strings{path};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv = pointers(argv_strings);
    std::vector<std::string> env_strings = child_environment(options.environment);
    std::vector<char*> envp = pointers(env_strings);
    const bool to_file = !options.output_file.empty();

    // Close-on-exec pipes: another thread's child must not hold a write end open.
    int out_fds[2] = {-1, -1};
    int err_fds[2] = {-1, -1};
    if (!to_file) {
        EXPECT_EQ(pipe2(out_fds, O_CLOEXEC), 0);
    }
    if (options.stderr_to == Stderr::separate) {
        EXPECT_EQ(pipe2(err_fds, O_CLOEXEC), 0);
    }

    const auto start = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (options.stdin_from_null) {
            const int null_fd = open("/dev/null", O_RDONLY);
            dup2(null_fd, 0);
            close(null_fd);
        }
        int out_fd = out_fds[1];
        if (to_file)
            out_fd = open(options.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        dup2(out_fd, 1);
        if (options.stderr_to == Stderr::with_stdout) {
            dup2(out_fd, 2);
        } else if (options.stderr_to == Stderr::separate) {
            dup2(err_fds[1], 2);
        } else if (options.stderr_to == Stderr::discard) {
            const int null_fd = open("/dev/null", O_WRONLY);
            dup2(null_fd, 2);
            close(null_fd);
        }
        if (options.unprivileged && geteuid() == 0) {
            constexpr uid_t kNobody = 65534;
            if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0)
                _exit(126);
        }
        execve(path.c_str(), argv.data(), envp.data());
        _exit(127);
    }
    EXPECT_GT(pid, 0);
    Outcome outcome;
    if (pid < 0) {
        for (const int fd : {out_fds[0], out_fds[1], err_fds[0], err_fds[1]})
            if (fd >= 0)
                close(fd);
        return outcome;
    }

    struct Stream {
        int fd;
        std::string* text;
    };
    std::vector<Stream> open_streams;
    if (out_fds[0] >= 0) {
        close(out_fds[1]);
        open_streams.push_back({out_fds[0], &outcome.output});
    }
    if (err_fds[0] >= 0) {
        close(err_fds[1]);
        open_streams.push_back({err_fds[0], &outcome.err});
    }

    bool interrupted = false, killed = false, reaped = false, stopped = false;
    int status = 0;
    rusage usage{};
    auto next_sample = start;
    while (true) {
        const auto now = Clock::now();
        if (!reaped && options.interrupt_after && !interrupted && now >= start + *options.interrupt_after) {
            kill(pid, options.interrupt_signal);
            interrupted = true;
        }
        if (!reaped && options.timeout && !killed && now >= start + *options.timeout) {
            kill(pid, SIGKILL);
            killed = true;
        }
        if (!reaped && options.while_running && now >= next_sample) {
            options.while_running(pid);
            next_sample = now + options.sample_interval;
        }
        // How long until the next thing to do, if anything.
        std::optional<Clock::time_point> wake;
        auto consider = [&wake](Clock::time_point t) { wake = wake ? std::min(*wake, t) : t; };
        if (options.interrupt_after && !interrupted)
            consider(start + *options.interrupt_after);
        if (options.timeout && !killed)
            consider(start + *options.timeout);
        if (options.while_running)
            consider(next_sample);
        auto wait_ms = [&](int most) {
            if (!wake)
                return most;
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(*wake - Clock::now()).count();
            return static_cast<int>(std::clamp<long long>(left, 0, most < 0 ? 1000000 : most));
        };

        if (open_streams.empty()) {  // output in a file: poll for the exit
            if (wait4(pid, &status, WNOHANG, &usage) == pid) {
                reaped = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms(20)));
            continue;
        }
        std::vector<pollfd> fds;
        for (const Stream& s : open_streams)
            fds.push_back({s.fd, POLLIN, 0});
        if (poll(fds.data(), fds.size(), wait_ms(-1)) <= 0)
            continue;  // a time to act, or EINTR
        for (size_t i = fds.size(); i-- > 0;) {
            if (fds[i].revents == 0)
                continue;
            char buffer[4096];
            const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                open_streams[i].text->append(buffer, static_cast<size_t>(n));
                if (options.interrupt_once && !interrupted && !reaped && options.interrupt_once(outcome.output)) {
                    kill(pid, options.interrupt_signal);  // not reaped yet: the pid is still the child's
                    interrupted = true;
                }
                if (options.stop_once && !stopped && options.stop_once(outcome.output)) {
                    outcome.running_when_stopped = wait4(pid, &status, WNOHANG, &usage) == 0;
                    reaped = !outcome.running_when_stopped;
                    if (!reaped)
                        kill(pid, SIGKILL);
                    stopped = true;
                }
            } else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                open_streams.erase(open_streams.begin() + static_cast<long>(i));
            }
        }
        if (open_streams.empty())
            break;
    }
    if (!reaped)
        wait4(pid, &status, 0, &usage);
    outcome.exit_code = killed ? kTimedOut : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    outcome.peak_rss_kib = usage.ru_maxrss;
    if (to_file) {
        std::ifstream in(options.output_file);
        std::stringstream text;
        text << in.rdbuf();
        outcome.output = text.str();
    }
    return outcome;
}

std::string no_quarantine_environment() {
    const char* own = std::getenv("ASAN_OPTIONS");
    const std::string options = own && *own ? std::string(own) + ":" : std::string();
    return "ASAN_OPTIONS=" + options + "quarantine_size_mb=0";
}

}  // namespace test_support
