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

#include "cli/command_line.hpp"
#include "vfio_manager/client.hpp"
#include "vfio_access/kernel.hpp"

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    vfio::KernelOptions options = vfio::kernel_options_from_environment();
    boost::program_options::options_description description("Options");
    cli::add_help_and_version(description);
    std::vector<std::string> locations;
    const auto usage = cli::tool_usage("vfio_access_keep_open",
                                       "Usage: vfio_access_keep_open [dddd:bb:dd.f]...\n"
                                       "Opens every device bound to vfio-pci (or the PCI locations given) and holds "
                                       "them open\nuntil Enter, SIGINT or SIGTERM, so that VFIO resets none of them "
                                       "between other tools' runs.\n\n");
    if (auto status = cli::parse_command_line(argc, argv, {description, usage, &locations, "device"}))
        return *status;
    for (const std::string& arg : locations) {
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
