// Runs inside the QEMU guest (vm label): the VFIO manager's clients and probes, one role per
// invocation, driven by manager_guest.sh. Every line the vm test log must show starts with
// "manager-client". Exit 0 when the role's check held, 1 when not, 2 usage.
//
//   dma BDF TAG OTHER ROUNDS EDU_OFFSET  open edu through the manager, map 2 pages (28-bit mask), check the
//                                   IOVA does not overlap OTHER's (when not "-"), ROUNDS verified round
//                                   trips through edu's buffer at EDU_OFFSET (0: forever)
//   hold BDF TAG                    open through the manager until /tmp/pdt-release-TAG exists
//   status FIELD=N...               the manager's status; each named field must equal N
//   garbage                         a malformed message, then a proper client must be served
//   foreign-uid                     uid 65534 is refused (socket mode, then SO_PEERCRED)
//   set-master BDF / check-master BDF set|clear   Bus Master in the Command register
//   containers BDF1 BDF2 isolated|shared  direct open (no manager) with or without
//                                   KernelOptions::isolate_iommu_groups: one container or two
#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "base/format.hpp"
#include "edu/edu_device.hpp"
#include "vfio_access/kernel.hpp"
#include "vfio_manager/client.hpp"
#include "vfio_manager/transport.hpp"

namespace {

using pdt::hex;  // "0x1f" (base/format.hpp)

int fail(const std::string& what) {
    std::cout << "manager-client FAIL: " << what << std::endl;
    return 1;
}

bool wait_for_file(const std::string& path, int seconds) {
    for (int i = 0; i < seconds * 10; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(100)))
        if (::access(path.c_str(), F_OK) == 0)
            return true;
    return false;
}

struct Opened {
    std::unique_ptr<vfio::KernelDeviceBus> bus;
    std::unique_ptr<vfio::KernelDevice> device;
};

// Through the manager when one runs (required: true), else directly.
pdt::Result<Opened> open(const std::string& bdf, bool required) {
    vfio::KernelOptions options;
    options.broker = PDT_TRY(vfio_manager::connect_if_running());
    if (required && !options.broker)
        return pdt::make_error("open", bdf, ENOENT, "no VFIO manager is running");
    vfio::DeviceIdentity id;
    id.address = PDT_TRY(vfio::PciAddress::parse(bdf));
    Opened o;
    o.bus = std::make_unique<vfio::KernelDeviceBus>(options);
    o.device = PDT_TRY(o.bus->open_device(id));
    return o;
}

int dma(const std::string& bdf, const std::string& tag, const std::string& other, long rounds, uint32_t offset) {
    auto o = open(bdf, true);
    if (!o)
        return fail(o.error().message());
    auto edu = edu::EduDevice::attach(*o->device);
    if (!edu)
        return fail(edu.error().message());
    (void)o->device->enable_bus_master();
    auto region = vfio::DmaRegion::allocate(*o->device, 2 * 4096, {vfio::DmaAccess::DeviceReadWrite, vfio::BufferKind::Anonymous, edu::DMA_MASK_BITS});
    if (!region)
        return fail(region.error().message());
    const uint64_t first = region->iova(), last = region->iova() + region->mapped_size() - 1;
    std::cout << "manager-client " << tag << ": IOVA " << hex(first) << "-" << hex(last) << " from the manager, pid "
              << ::getpid() << std::endl;
    // Written whole, then renamed: the other client never reads a half-written file.
    std::ofstream("/tmp/pdt-iova-" + tag + ".tmp") << first << " " << last << "\n" << std::flush;
    std::rename(("/tmp/pdt-iova-" + tag + ".tmp").c_str(), ("/tmp/pdt-iova-" + tag).c_str());
    if (other != "-") {
        if (!wait_for_file("/tmp/pdt-iova-" + other, 120))
            return fail(tag + ": client " + other + " never reported its IOVA");
        uint64_t a = 0, b = 0;
        std::ifstream("/tmp/pdt-iova-" + other) >> a >> b;
        if (!(last < a || b < first))
            return fail(tag + ": IOVA overlaps " + other + "'s " + hex(a) + "-" + hex(b));
        std::cout << "manager-client " << tag << ": IOVA " << hex(first) << "-" << hex(last) << " and " << other << "'s "
                  << hex(a) << "-" << hex(b) << " do not overlap" << std::endl;
    }
    const uint32_t count = 2047;
    uint64_t verified = 0;
    const int lock = ::open("/tmp/pdt-edu.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    for (long round = 0; rounds == 0 || round < rounds; ++round) {
        uint8_t* out = region->data();
        uint8_t* in = region->data() + 4096;
        for (uint32_t i = 0; i < count; ++i)
            out[i] = static_cast<uint8_t>(i * 13 + round * 7 + tag[0]);
        std::memset(in, 0, count);
        ::flock(lock, LOCK_EX);  // edu has one DMA engine: one transfer pair at a time
        auto to = edu->dma_to_edu(region->iova(), offset, count, edu::Wait::Poll);
        auto from = to ? edu->dma_from_edu(offset, region->iova() + 4096, count, edu::Wait::Poll) : to;
        ::flock(lock, LOCK_UN);
        if (!from)
            return fail(tag + ": " + from.error().message());
        if (std::memcmp(out, in, count) != 0)
            return fail(tag + ": round trip " + std::to_string(round) + " returned different bytes");
        verified += count;
        if (round == 0)
            std::ofstream("/tmp/pdt-ready-" + tag) << "1\n";
    }
    std::cout << "manager-client " << tag << ": " << rounds << " round trips through edu offset " << offset << ", "
              << verified << " bytes verified" << std::endl;
    return verified > 0 ? 0 : fail(tag + ": no bytes verified");
}

int hold(const std::string& bdf, const std::string& tag) {
    auto o = open(bdf, true);
    if (!o)
        return fail(o.error().message());
    std::cout << "manager-client " << tag << ": holding " << bdf << " through the manager" << std::endl;
    if (!wait_for_file("/tmp/pdt-release-" + tag, 300))
        return fail(tag + ": never released");
    return 0;
}

int status(int argc, char** argv) {
    auto client = vfio_manager::connect_if_running();
    if (!client || !*client)
        return fail(client ? "no VFIO manager is running" : client.error().message());
    auto s = (*client)->status();
    if (!s)
        return fail(s.error().message());
    const std::map<std::string, uint32_t> fields = {{"clients", s->clients - 1},  // without this one
                                                    {"devices_open", s->devices_open},
                                                    {"iova_regions", s->iova_regions},
                                                    {"quarantined_regions", s->quarantined_regions},
                                                    {"containers_recycled", s->containers_recycled}};
    std::string line, wrong;
    for (const auto& [name, value] : fields)
        line += " " + name + "=" + std::to_string(value);
    for (int i = 0; i < argc; ++i) {
        const std::string want = argv[i];
        const auto eq = want.find('=');
        auto it = fields.find(want.substr(0, eq));
        if (eq == std::string::npos || it == fields.end() || std::to_string(it->second) != want.substr(eq + 1))
            wrong += " " + want;
    }
    std::cout << "manager-client status:" << line << std::endl;
    return wrong.empty() ? 0 : fail("status differs from" + wrong);
}

int garbage() {
    const std::string path = *vfio_manager::socket_path();
    vfio::UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) < 0)
        return fail("connect " + path + ": " + std::strerror(errno));
    const std::vector<uint8_t> junk = {'P', 'D', 'T', 'M', 1, 0, 99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff};
    (void)vfio_manager::send_packet(fd.get(), junk);
    auto got = vfio_manager::receive_packet(fd.get());
    if (!got || got->has_value())
        return fail("the manager answered a malformed message instead of closing the connection");
    auto client = vfio_manager::Client::connect(path);
    if (!client)
        return fail("after the garbage: " + client.error().message());
    std::cout << "manager-client: garbage closed that connection only; the manager still serves clients" << std::endl;
    return 0;
}

// In a child of uid/gid 65534: the error connecting, or "" when served.
std::string foreign_connect(const std::string& path) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) < 0)
        return "pipe failed";
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipe_fds[0]);
        std::string text = "setuid failed";
        if (::setgid(65534) == 0 && ::setuid(65534) == 0) {
            auto client = vfio_manager::Client::connect(path);
            text = client ? "" : client.error().message();
        }
        (void)!::write(pipe_fds[1], text.data(), text.size());
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string text;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
        text.append(buffer, static_cast<size_t>(n));
    ::close(pipe_fds[0]);
    ::waitpid(child, nullptr, 0);
    return text;
}

int foreign_uid() {
    const std::string path = *vfio_manager::socket_path();
    const std::string by_mode = foreign_connect(path);
    if (by_mode.find("Permission denied") == std::string::npos)
        return fail("uid 65534 with the socket mode 0600: expected EACCES, got '" + by_mode + "'");
    std::cout << "manager-client: uid 65534 refused by the socket's mode 0600: " << by_mode << std::endl;
    // As if misconfigured (folder and socket open to all): SO_PEERCRED must still refuse.
    const std::string dir = path.substr(0, path.rfind('/'));
    struct stat dir_stat{};
    ::stat(dir.c_str(), &dir_stat);
    ::chmod(dir.c_str(), 0711);
    ::chmod(path.c_str(), 0666);
    const std::string by_cred = foreign_connect(path);
    ::chmod(path.c_str(), 0600);
    ::chmod(dir.c_str(), dir_stat.st_mode & 07777);
    if (by_cred.find("closed the connection") == std::string::npos)
        return fail("uid 65534 with the socket mode 0666: expected the manager to close, got '" + by_cred + "'");
    std::cout << "manager-client: uid 65534 refused by the manager's SO_PEERCRED check: " << by_cred << std::endl;
    return 0;
}

int master(const std::string& bdf, const std::string& expect) {
    auto o = open(bdf, false);
    if (!o)
        return fail(o.error().message());
    const char* via = o->bus->options().broker ? "through the manager" : "directly";
    if (expect.empty()) {
        auto set = o->device->enable_bus_master();
        if (!set)
            return fail(set.error().message());
        std::cout << "manager-client: Bus Master set on " << bdf << " (" << via << ")" << std::endl;
        return 0;
    }
    auto command = o->device->config_read16(vfio::cfg::COMMAND);
    if (!command)
        return fail(command.error().message());
    const bool on = (*command & vfio::cfg::COMMAND_MASTER) != 0;
    std::cout << "manager-client: Bus Master of " << bdf << " is " << (on ? "set" : "clear") << " (" << via
              << ", Command " << hex(*command) << ")" << std::endl;
    return (on == (expect == "set")) ? 0 : 1;
}

int containers(const std::string& bdf1, const std::string& bdf2, const std::string& mode) {
    vfio::KernelOptions options;
    options.isolate_iommu_groups = mode == "isolated";
    vfio::KernelDeviceBus bus(options);
    std::unique_ptr<vfio::KernelDevice> devices[2];
    uint64_t iova[2];
    const std::string bdfs[2] = {bdf1, bdf2};
    for (int i = 0; i < 2; ++i) {
        vfio::DeviceIdentity id;
        id.address = *vfio::PciAddress::parse(bdfs[i]);
        auto opened = bus.open_device(id);
        if (!opened)
            return fail(opened.error().message());
        devices[i] = std::move(opened).value();
        auto allocated = devices[i]->iova_allocator().allocate(4096, edu::DMA_MASK_BITS);
        if (!allocated)
            return fail(allocated.error().message());
        iova[i] = *allocated;
    }
    const bool separate = devices[0]->container_fd() != devices[1]->container_fd();
    std::cout << "manager-client: " << mode << ": " << bdf1 << " and " << bdf2 << " in "
              << (separate ? "two containers" : "one container") << " (fds " << devices[0]->container_fd() << ", "
              << devices[1]->container_fd() << "), first IOVAs " << hex(iova[0]) << " and " << hex(iova[1]) << std::endl;
    const bool want_separate = mode == "isolated";
    if (separate != want_separate || (iova[0] == iova[1]) != want_separate)
        return fail("expected " + std::string(want_separate ? "two containers" : "one container"));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string role = argc > 1 ? argv[1] : "";
    if (role == "dma" && argc == 7)
        return dma(argv[2], argv[3], argv[4], std::stol(argv[5]), static_cast<uint32_t>(std::stoul(argv[6])));
    if (role == "hold" && argc == 4)
        return hold(argv[2], argv[3]);
    if (role == "status")
        return status(argc - 2, argv + 2);
    if (role == "garbage")
        return garbage();
    if (role == "foreign-uid")
        return foreign_uid();
    if (role == "set-master" && argc == 3)
        return master(argv[2], "");
    if (role == "check-master" && argc == 4)
        return master(argv[2], argv[3]);
    if (role == "containers" && argc == 5)
        return containers(argv[2], argv[3], argv[4]);
    std::cerr << "usage: see the comment at the top of manager_vm_client.cpp\n";
    return 2;
}
