#include "stream_tools/credits_fork.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cstring>

#include "base/format.hpp"
#include "base/spellings.hpp"
#include "pattern/pattern.hpp"
#include "vfio_access/unique_fd.hpp"

namespace stream_tools {
namespace {

constexpr pdt::Spelling<ForkTouch> kTouchNames[] = {{ForkTouch::None, "none"},
                                                     {ForkTouch::NoAccess, "no_dma_mapping_access"},
                                                     {ForkTouch::Read, "read_dma_mapping"},
                                                     {ForkTouch::Write, "write_dma_mapping"},
                                                     {ForkTouch::Toggle, "toggle_dma_mapping"}};
constexpr pdt::Spelling<vfio::BufferKind> kBufferNames[] = {{vfio::BufferKind::Anonymous, "heap"},
                                                             {vfio::BufferKind::SharedMemory, "shared_memory"},
                                                             {vfio::BufferKind::HugePages, "huge_pages"}};
constexpr uint8_t kDestinationBeforeFork = 0xEE, kDestinationAfterFork = 0xDD;

// What the child may see in a buffer: one letter each, written to the report pipe.
struct Looks {
    const uint8_t* a;  // pattern A (the source before the fork)
    const uint8_t* b;  // pattern B (the source after the fork)
    size_t length;
};

int g_report_fd = -1;
void on_fault(int) {
    const char fault = 'F';
    (void)!::write(g_report_fd, &fault, 1);
    _exit(3);
}

char classify(const volatile uint8_t* p, const Looks& looks) {
    bool a = true, b = true, zero = true, ee = true, dd = true;
    for (size_t i = 0; i < looks.length; ++i) {
        const uint8_t v = p[i];
        a = a && v == looks.a[i], b = b && v == looks.b[i], zero = zero && v == 0;
        ee = ee && v == kDestinationBeforeFork, dd = dd && v == kDestinationAfterFork;
    }
    return a ? 'A' : b ? 'B' : zero ? 'Z' : ee ? 'E' : dd ? 'D' : 'O';
}

// The child: async-signal-safe calls only (the parent may have threads).
[[noreturn]] void child(int go, int report, int done, ForkTouch touch, uint8_t* const* buffers, unsigned count,
                        size_t bytes, const Looks& looks) {
    g_report_fd = report;
    struct sigaction action {};
    action.sa_handler = on_fault;
    ::sigaction(SIGSEGV, &action, nullptr);
    ::sigaction(SIGBUS, &action, nullptr);
    char c = 0;
    (void)!::read(go, &c, 1);
    for (unsigned i = 0; i < count && touch != ForkTouch::NoAccess; ++i) {
        volatile uint8_t* p = buffers[i];
        const char seen = classify(p, looks);
        (void)!::write(report, &seen, 1);
        unsigned sum = 0;
        for (size_t k = 0; k < bytes; ++k) {
            if (touch == ForkTouch::Read)
                sum += p[k];
            else
                p[k] = touch == ForkTouch::Write ? 0 : static_cast<uint8_t>(~p[k]);
        }
        (void)sum;
    }
    const char touched = 'T';
    (void)!::write(report, &touched, 1);
    (void)!::read(done, &c, 1);
    _exit(0);
}

std::string seen_text(char c) {
    switch (c) {
    case 'A': return "pattern A, the parent's content at fork() (a copy of its own, or the old page)";
    case 'B': return "pattern B, written by the parent after fork() (memory shared with the parent)";
    case 'Z': return "zeros";
    case 'E': return "the destination's 0xEE bytes of before fork() (a copy of its own, or the old page)";
    case 'D': return "the parent's 0xDD bytes written after fork() (memory shared with the parent)";
    case 'F': return "nothing: the access faulted (SIGSEGV/SIGBUS), no mapping in the child";
    default: return "other bytes";
    }
}

pdt::Result<vfio::DmaRegion> buffer(vfio::Device& device, ForkCopier& copier, const ForkOptions& o, bool source,
                                    bool before_fork) {
    auto region = PDT_TRY(vfio::DmaRegion::allocate(
        device, copier.bytes(),
        {source ? vfio::DmaAccess::DeviceRead : vfio::DmaAccess::DeviceWrite, o.buffers, copier.dma_mask_bits()}));
    if (before_fork && o.dontfork && ::madvise(region.data(), region.mapped_size(), MADV_DONTFORK) != 0)
        return pdt::errno_error("madvise MADV_DONTFORK", copier.name());
    return region;
}

// Why the destination is not B, from what it holds.
std::string corruption(const uint8_t* d, const Looks& looks, size_t differ) {
    bool inverse = true;
    for (size_t i = 0; i < looks.length; ++i)
        inverse = inverse && d[i] == static_cast<uint8_t>(~looks.b[i]);
    const char c = classify(d, looks);
    const std::string why = inverse ? "the inverse of pattern B: the child's toggle reached the parent's source"
                            : c == 'Z' ? "zeros: the child's writes reached the parent's source"
                            : c == 'A' ? "pattern A: the device read the page the parent had before fork()"
                            : c == 'D' ? "the parent's 0xDD bytes: the device wrote a page the parent no longer maps"
                            : c == 'E' ? "the 0xEE bytes of before fork(): the device wrote a page the parent no longer maps"
                                       : "other bytes";
    return std::to_string(differ) + " of " + std::to_string(looks.length) + " bytes differ; the destination holds " + why;
}

// SIGPIPE ignored while it lives: a child that faulted has closed its end of the pipes.
class IgnoreSigpipe {
public:
    IgnoreSigpipe() {
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, &m_old);
    }
    ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &m_old, nullptr); }
    IgnoreSigpipe(const IgnoreSigpipe&) = delete;
    IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

private:
    struct sigaction m_old {};
};

}  // namespace

pdt::Result<ForkTouch> parse_fork_touch(const std::string& text) { return pdt::parse_spelling("fork", text, kTouchNames); }
const char* to_string(ForkTouch touch) { return pdt::spelling(touch, kTouchNames); }
pdt::Result<vfio::BufferKind> parse_fork_buffers(const std::string& text) {
    return pdt::parse_spelling("fork_buffers", text, kBufferNames);
}
const char* fork_buffers_name(vfio::BufferKind kind) { return pdt::spelling(kind, kBufferNames); }

pdt::Result<ForkOutcome> run_fork_test(vfio::Device& device, ForkCopier& copier, const ForkOptions& o) {
    const size_t bytes = copier.bytes();
    std::vector<uint8_t> a(bytes + 3), b(bytes + 3);
    pattern::Pattern(11, 0).generate(reinterpret_cast<uint32_t*>(a.data()), (bytes + 3) / 4, 0);
    pattern::Pattern(12, 0).generate(reinterpret_cast<uint32_t*>(b.data()), (bytes + 3) / 4, 0);
    const Looks looks{a.data(), b.data(), bytes};
    ForkOutcome out;
    out.lines.push_back("Fork test on " + copier.name() + ": buffers " + fork_buffers_name(o.buffers) +
                        ", MADV_DONTFORK " + (o.dontfork ? "on" : "off") + ", " + std::to_string(o.mappings_before_fork) +
                        " of 2 DMA mappings made before fork(), child " + to_string(o.touch));
    vfio::DmaRegion regions[2];  // source, destination
    for (unsigned i = 0; i < o.mappings_before_fork && o.touch != ForkTouch::None; ++i) {
        regions[i] = PDT_TRY(buffer(device, copier, o, i == 0, true));
        if (i == 0)
            std::memcpy(regions[0].data(), a.data(), bytes);
        else
            std::memset(regions[1].data(), kDestinationBeforeFork, bytes);
    }
    const IgnoreSigpipe ignore_sigpipe;
    pid_t pid = -1;
    int pipes[3][2];  // go, report, done
    std::string seen;
    if (o.touch != ForkTouch::None) {
        for (auto& p : pipes)
            if (::pipe2(p, O_CLOEXEC) != 0)
                return pdt::errno_error("pipe", copier.name());
        uint8_t* const mapped[2] = {regions[0].data(), regions[1].data()};
        pid = ::fork();
        if (pid < 0)
            return pdt::errno_error("fork", copier.name());
        if (pid == 0)
            child(pipes[0][0], pipes[1][1], pipes[2][0], o.touch, mapped, o.mappings_before_fork, bytes, looks);
        ::close(pipes[0][0]), ::close(pipes[1][1]), ::close(pipes[2][0]);
    }
    vfio::UniqueFd go(pid > 0 ? pipes[0][1] : -1), report(pid > 0 ? pipes[1][0] : -1), done(pid > 0 ? pipes[2][1] : -1);
    // The parent's first writes after fork().
    if (regions[0].size())
        std::memcpy(regions[0].data(), b.data(), bytes);
    if (regions[1].size())
        std::memset(regions[1].data(), kDestinationAfterFork, bytes);
    if (pid > 0) {
        (void)!::write(go.get(), "g", 1);
        for (char c = 0; ::read(report.get(), &c, 1) == 1 && c != 'T';)
            seen += c;
    }
    for (unsigned i = 0; i < 2; ++i)
        if (!regions[i].size()) {
            regions[i] = PDT_TRY(buffer(device, copier, o, i == 0, false));
            if (i == 0)
                std::memcpy(regions[0].data(), b.data(), bytes);
            else
                std::memset(regions[1].data(), kDestinationAfterFork, bytes);
        }
    auto copied = copier.round_trip(regions[0], regions[1]);
    int status = 0;
    if (pid > 0) {
        (void)!::write(done.get(), "d", 1);
        ::waitpid(pid, &status, 0);
    }
    PDT_CHECK(std::move(copied));
    const char* names[2] = {"source", "destination"};
    for (size_t i = 0; i < seen.size() && i < 2; ++i)
        out.lines.push_back(std::string("child saw the ") + names[i] + ": " + seen_text(seen[i]));
    if (pid > 0)
        out.lines.push_back(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? std::string("child: ") + to_string(o.touch) + " done, exited 0"
                            : WIFEXITED(status) && WEXITSTATUS(status) == 3 ? "child: its touch faulted (exit 3)"
                                                                            : "child: ended with status " + std::to_string(status));
    size_t differ = 0;
    for (size_t i = 0; i < bytes; ++i)
        differ += regions[1].data()[i] != b[i];
    out.corrupted = differ != 0;
    out.bytes_verified = bytes - differ;
    out.lines.push_back("transfer of " + std::to_string(bytes) + " bytes, source -> " + copier.name() + " -> destination: " +
                        (out.corrupted ? "corrupted: " + corruption(regions[1].data(), looks, differ)
                                       : "pattern B verified in " + std::to_string(bytes) + " bytes"));
    return out;
}

}  // namespace stream_tools
