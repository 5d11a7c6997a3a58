// What the library tests of tool_support share: the built-in designs, and the kernel-bus options
// that read a fake machine (what FakeMachine::environment() gives a tool as a process).
#pragma once

#include "designs/registry.hpp"
#include "fake_machine.hpp"
#include "vfio_access/kernel.hpp"

inline const designs::Registry& builtin_registry() {
    static const designs::Registry registry = designs::Registry::builtin().value();
    return registry;
}

inline vfio::KernelOptions fake_kernel_options(const FakeMachine& machine) {
    vfio::KernelOptions options;
    options.pci_dump_file = machine.tree.path("dump.txt");
    options.sysfs_root = machine.tree.path("sys");
    options.dev_vfio_root = machine.tree.path("dev/vfio");
    options.proc_root = machine.tree.path("proc");
    return options;
}
