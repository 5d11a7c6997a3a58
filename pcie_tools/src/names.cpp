// Names from the PCI ID database (pci.ids) through libpci's lookup, for every backend (dump
// files and simulated topologies included). Only the name list is used: no bus access.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

extern "C" {
#include <pci/pci.h>
}

#include "pcie_tools/sections.hpp"

namespace pcie {
namespace {

// pci_init() would open a bus; without it libpci's callbacks are unset, so set quiet ones.
void quiet(char*, ...) {}
[[noreturn]] void fatal(char* format, ...) {
    std::fprintf(stderr, "pcilib (names): %s\n", format);
    std::abort();
}

struct Lookup {
    std::mutex mutex;
    pci_access* access = nullptr;
    Lookup() {
        access = pci_alloc();
        if (access) {
            access->warning = quiet;
            access->debug = quiet;
            access->error = fatal;
        }
    }
    ~Lookup() {
        if (access)
            pci_cleanup(access);
    }
};

Lookup& lookup() {
    static Lookup instance;
    return instance;
}

template <typename... Args>
std::string name(int flags, Args... args) {
    Lookup& l = lookup();
    if (!l.access)
        return {};
    std::lock_guard lock(l.mutex);
    char buffer[256];
    const char* text = pci_lookup_name(l.access, buffer, sizeof buffer, flags, args...);
    return text ? text : "";
}

}  // namespace

std::string lookup_vendor(uint16_t vendor) {
    return name(PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS, static_cast<int>(vendor));
}

std::string lookup_device(uint16_t vendor, uint16_t device) {
    return name(PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS, static_cast<int>(vendor), static_cast<int>(device));
}

PciNames lookup_names(uint16_t vendor, uint16_t device, uint32_t class_code, uint16_t sub_vendor,
                      uint16_t sub_device) {
    PciNames n;
    const int v = vendor, d = device, cls = static_cast<int>(class_code >> 8);
    n.title = name(PCI_LOOKUP_CLASS, cls) + ": " + name(PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE, v, d);
    n.prog_if = name(PCI_LOOKUP_PROGIF | PCI_LOOKUP_NO_NUMBERS, cls, static_cast<int>(class_code & 0xffu));
    n.vendor = lookup_vendor(vendor);
    n.device = lookup_device(vendor, device);
    n.subsystem = name(PCI_LOOKUP_SUBSYSTEM | PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE, v, d,
                       static_cast<int>(sub_vendor), static_cast<int>(sub_device));
    return n;
}

}  // namespace pcie
