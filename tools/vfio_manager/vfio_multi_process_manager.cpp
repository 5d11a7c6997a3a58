// vfio_multi_process_manager: owns the IOMMU groups and containers of the devices bound to
// vfio-pci and keeps the devices open, so that tools run one after another (or at once) share
// them without VFIO resetting them in between. Every tool of the toolkit uses it when it runs.
// Exit 0 after an orderly shutdown, 1 when initialisation failed, 2 usage error.
#include <grp.h>
#include <signal.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "cli/option_names.hpp"
#include "vfio_manager/server.hpp"

namespace po = boost::program_options;

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

// The options, or the exit code to leave with (0 for --help, 2 for a usage error).
std::variant<vfio_manager::ServerOptions, int> parse_options(int argc, char** argv, bool& daemon) {
    po::options_description description(
        "Usage: vfio_multi_process_manager [options]\nOwns the IOMMU groups and containers of the devices bound to "
        "vfio-pci and keeps the devices open, so that the tools share them without VFIO resetting them.\n\nOptions");
    std::vector<std::string> locations;
    std::string group;
    cli::add_help_and_version(description);
    description.add_options()
        ("isolate_iommu_groups", po::bool_switch(), "one container per IOMMU group (default: one for all)")
        ("once", po::bool_switch(), "shut down the first time the client count drops to 0")
        ("daemon", po::bool_switch(), "run in the background once initialisation succeeded")
        ("allow_group", po::value(&group), "also serve clients whose primary group is this group");
    cli::add_device_option(description, locations);
    po::variables_map vm;
    if (auto status = cli::parse_command_line(
            argc, argv, {description, cli::tool_usage("vfio_multi_process_manager")}, &vm))
        return *status;
    vfio_manager::ServerOptions options;
    options.isolate_iommu_groups = vm["isolate_iommu_groups"].as<bool>();
    options.once = vm["once"].as<bool>();
    daemon = vm["daemon"].as<bool>();
    if (!group.empty()) {
        const ::group* entry = ::getgrnam(group.c_str());
        if (entry == nullptr) {
            std::cerr << "vfio_multi_process_manager: --allow_group " << group << ": no such group\n";
            return 2;
        }
        options.allow_group = entry->gr_gid;
    }
    for (const std::string& location : locations) {
        auto added = options.kernel.selection.add_location(location);
        if (!added) {
            std::cerr << "vfio_multi_process_manager: " << added.error().message() << "\n";
            return 2;
        }
    }
    if (const char* root = std::getenv("PDT_DEV_VFIO_ROOT"); root && *root)
        options.kernel.dev_vfio_root = root;
    if (const char* root = std::getenv("PDT_SYSFS_ROOT"); root && *root)
        options.kernel.sysfs_root = root;
    auto path = vfio_manager::socket_path();
    if (!path) {
        std::cerr << "Error: " << path.error().message() << "\n";
        return 1;
    }
    options.socket_path = *path;
    return options;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    bool daemon = false;
    auto parsed = parse_options(argc, argv, daemon);
    if (const int* exit_code = std::get_if<int>(&parsed))
        return *exit_code;
    cli::OptionNamingStream log(std::cout);  // a refused client's reason names the option that serves it
    auto server = vfio_manager::Server::create(std::move(std::get<vfio_manager::ServerOptions>(parsed)), log);
    if (!server) {
        std::cerr << "Error: " << server.error().message() << "\n";
        return 1;
    }
    if (daemon) {
        std::cout.flush();
        const pid_t child = ::fork();
        if (child < 0) {
            std::perror("fork");
            return 1;
        }
        if (child > 0) {
            std::cout << "VFIO manager running as PID " << child << std::endl;
            std::_Exit(0);  // the child owns the socket: no destructor may remove it here
        }
        ::setsid();
    }
    struct sigaction action{};
    action.sa_handler = on_signal;  // no SA_RESTART: poll() returns at once
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    auto ran = (*server)->run(g_stop);
    if (!ran) {
        std::cerr << "Error: " << ran.error().message() << "\n";
        return 1;
    }
    return 0;
}
