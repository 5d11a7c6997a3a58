// vfio_access_keep_open [BDF...]: opens every device bound to vfio-pci (or those named) and
// holds them open until Enter or SIGINT/SIGTERM, so that VFIO resets none of them between the
// tools run meanwhile (with a VFIO manager running, the manager already does this; the devices
// are then opened through it). Exit 0 released, 1 nothing opened or a device failed, 2 usage.
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "pdt_version/version.hpp"
#include "vfio_manager/client.hpp"
#include "vfio_access/kernel.hpp"

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    vfio::KernelOptions options = vfio::kernel_options_from_environment();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::cout << "Usage: vfio_access_keep_open [dddd:bb:dd.f]...\n"
                         "Opens every device bound to vfio-pci (or the PCI locations given) and holds them open\n"
                         "until Enter, SIGINT or SIGTERM, so that VFIO resets none of them between other tools' runs.\n\n"
                         "Options:\n"
                         "  -h [ --help ]         show this help\n"
                         "  --version             print the toolkit version and exit\n";
            return 0;
        }
        if (arg == "--version") {
            std::cout << pdt_version::version_line(argv[0]) << "\n";
            return 0;
        }
        if (arg.starts_with("-")) {
            std::cerr << "vfio_access_keep_open: unrecognised option '" << arg << "'\n"
                      << "Usage: vfio_access_keep_open [dddd:bb:dd.f]...\n";
            return 2;
        }
        auto added = options.selection.add_location(arg);
        if (!added) {
            std::cerr << "vfio_access_keep_open: " << added.error().message() << "\n";
            return 2;
        }
    }
    auto manager = vfio_manager::connect_if_running();
    if (!manager) {
        std::cerr << "Error: " << manager.error().message() << "\n";
        return 1;
    }
    options.broker = *manager;
    if (*manager)
        std::cout << "Opening devices through the VFIO manager at " << (*manager)->path() << "\n";
    vfio::KernelDeviceBus bus(options);
    auto ids = bus.scan();
    if (!ids) {
        std::cerr << "Error: " << ids.error().message() << "\n";
        return 1;
    }
    std::vector<std::unique_ptr<vfio::KernelDevice>> held;
    int status = 0;
    for (const vfio::DeviceIdentity& id : *ids) {
        auto device = bus.open_device(id);
        if (!device) {
            std::cerr << "Error: " << device.error().message() << "\n";
            status = 1;
            continue;
        }
        std::cout << "Holding " << id.description() << " open\n";
        held.push_back(std::move(device).value());
    }
    if (held.empty()) {
        std::cerr << "Error: no device opened: no " << (options.selection.empty() ? "" : "selected ")
                  << "PCI device is bound to vfio-pci\n";
        return 1;
    }
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &signals, nullptr);
    const int sfd = ::signalfd(-1, &signals, SFD_CLOEXEC);
    std::cout << "Press Enter (or send SIGINT/SIGTERM) to close " << held.size() << " devices" << std::endl;
    pollfd fds[2] = {{sfd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    nfds_t count = 2;
    for (;;) {
        if (::poll(fds, count, -1) < 0 && errno != EINTR)
            break;
        if (fds[0].revents)
            break;
        if (count == 2 && fds[1].revents) {
            char c;
            const ssize_t got = ::read(STDIN_FILENO, &c, 1);
            if (got == 1 && c == '\n')
                break;
            if (got <= 0)
                count = 1;  // stdin closed: wait for a signal only
        }
    }
    std::cout << "Closing " << held.size() << " devices" << std::endl;
    held.clear();
    return status;
}
