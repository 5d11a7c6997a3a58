#include "memmapped_persistence_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <iostream>

#include "bar_memory_region.hpp"
#include "base/format.hpp"
#include "measure/bar_persistence.hpp"
#include "tool_support/open_designs.hpp"
#include "vfio_access/sysfs_device.hpp"

namespace memmapped_persistence {
namespace {

using Target = tool_support::DeviceTarget;

const std::vector<unsigned> kWidths{1, 2, 4, 8};

std::string heading(const Target& t, const Request& q) {
    return "memmapped_persistence " + t.device->identity().address.to_string() + " " + tool_support::target_name(t) +
           " BAR " + std::to_string(q.region.bar) + " offset " + pdt::hex(q.region.offset) + " size " +
           pdt::hex(q.region.size) + " width " + std::to_string(q.region.width) + " key " + std::to_string(q.key);
}

// One step on one device; `verified` counts the bytes compared and kept.
int step(const Target& t, const Request& q, Step s, uint64_t& verified) {
    const std::string bdf = t.device->identity().address.to_string();
    auto bar = bar_memory_region::check(t, q.region, kWidths);
    if (!bar.ok()) {
        std::cerr << "Error: " << bdf << ": " << bar.error().message() << "\n";
        return 1;
    }
    if (s != Step::Verify) {
        if (auto written = measure::write_persistence_pattern(**bar, q.region, q.key); !written.ok()) {
            std::cerr << "Error: " << bdf << ": " << written.error().message() << "\n";
            return 1;
        }
        std::cout << "wrote " << pdt::hex(q.region.size) << " bytes of key " << q.key
                  << "'s pattern, read back in this process\n";
        if (s == Step::Write)
            return 0;
        if (auto reset = t.device->reset(); !reset.ok()) {
            std::cerr << "Error: " << bdf << ": " << reset.error().message() << "\n";
            return 1;
        }
    }
    const measure::PersistenceComparison c = measure::compare_persistence_pattern(**bar, q.region, q.key);
    std::cout << (s == Step::Reset ? "after VFIO_DEVICE_RESET: " : "in process " + std::to_string(::getpid()) + ": ")
              << c.describe(q.region.width) << "\n";
    if (c.kept())
        verified += c.bytes_compared;
    return c.kept() ? 0 : 1;
}

// The command line again with --verify, in a new process (the device is closed meanwhile).
int verify_in_new_process(const Request& q) {
    std::vector<std::string> args = q.argv;
    args.push_back("--verify");
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::cout.flush();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execv("/proc/self/exe", argv.data());
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        std::cerr << "Error: the new process (--verify) did not run to its end\n";
        return 1;
    }
    return WEXITSTATUS(status);
}

// --access sysfs: each --device mapped from its sysfs files (vfio::SysfsDevice), never opened
// through vfio-pci; the design it is, if the registry knows its IDs, for the region's checks.
int for_each_sysfs_target(const designs::Registry& registry, const std::vector<std::string>& devices,
                          const std::function<int(const Target&)>& fn) {
    int status = 0;
    for (const std::string& text : devices) {
        auto address = vfio::PciAddress::parse(text);
        auto device = address.ok() ? vfio::SysfsDevice::open(tool_support::kernel_options().sysfs_root, *address)
                                   : pdt::Result<std::unique_ptr<vfio::SysfsDevice>>(address.error());
        if (!device.ok()) {
            std::cerr << "Error: " << device.error().message() << "\n";
            status = std::max(status, 1);
            continue;
        }
        Target t{device->get(), {}, false};
        if (const designs::Design* design = registry.match((*device)->identity()))
            t.designs.push_back(design);
        status = std::max(status, fn(t));
    }
    return status;
}

int one_step(const designs::Registry& registry, const Request& q, Step s, uint64_t& verified) {
    const auto on_target = [&](const Target& t) {
        if (s != Step::Verify || q.step == Step::Verify)
            std::cout << heading(t, q) << "\n";
        return step(t, q, s, verified);
    };
    if (q.sysfs)
        return for_each_sysfs_target(registry, q.selection.devices, on_target);
    return tool_support::for_each_target(registry, q.selection, std::cout, on_target);
}

}  // namespace

int run(const tool_support::CheckedUsage& checked, const Request& q) {
    const designs::Registry& registry = checked.registry;
    uint64_t verified = 0;
    if (q.step != Step::All)
        return one_step(registry, q, q.step, verified);
    int status = one_step(registry, q, Step::Write, verified);
    if (status != 0)
        return status;
    const int verify = verify_in_new_process(q);
    if (verify > 1)
        return verify;
    if (q.sysfs) {
        std::cout << (verify == 0 ? "Verdict: PASS (content kept in a new process: " + pdt::hex(q.region.size) +
                                        " bytes a device written and read back here, compared there (above); sysfs "
                                        "mapping, so no device reset was tested)\n"
                                  : std::string("Verdict: FAIL (content not kept in a new process; sysfs mapping)\n"));
        return verify;
    }
    const int reset = one_step(registry, q, Step::Reset, verified);
    if (verify == 0 && reset == 0) {
        std::cout << "Verdict: PASS (content kept in a new process and after VFIO_DEVICE_RESET: " << verified
                  << " bytes verified here, the new process's above)\n";
        return 0;
    }
    std::cout << "Verdict: FAIL (content " << (verify != 0 ? "not kept in a new process" : "kept in a new process")
              << (reset != 0 ? ", not kept (or not tested) after VFIO_DEVICE_RESET" : ", kept after VFIO_DEVICE_RESET")
              << ")\n";
    return 1;
}

}  // namespace memmapped_persistence
