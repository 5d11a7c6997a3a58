// A fake machine for the kernel-bus paths of the tools: an `lspci -x` dump for libpci, a sysfs
// tree with each device's driver and IOMMU group, and a /dev/vfio that exists or not. The
// tools read it through PDT_PCI_DUMP_FILE, PDT_SYSFS_ROOT and PDT_DEV_VFIO_ROOT, and lock its
// devices in PDT_LOCK_DIR.
#pragma once

#include <cstdio>
#include <string>

#include "temp_tree.hpp"

struct FakeDevice {
    std::string bdf;        // 0000:15:00.0
    uint16_t vendor, device, subsystem_vendor, subsystem_device;
    std::string driver;     // "" for none
    int group;
};

class FakeMachine {
public:
    void add(const FakeDevice& d) {
        char text[512];
        std::snprintf(text, sizeof text,
                      "%s Serial controller: Device %04x:%04x\n"
                      "00: %02x %02x %02x %02x 06 00 10 00 00 00 80 07 00 00 00 00\n"
                      "10: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
                      "20: 00 00 00 00 00 00 00 00 00 00 00 00 %02x %02x %02x %02x\n"
                      "30: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n\n",
                      d.bdf.c_str(), d.vendor, d.device, d.vendor & 0xff, d.vendor >> 8, d.device & 0xff,
                      d.device >> 8, d.subsystem_vendor & 0xff, d.subsystem_vendor >> 8, d.subsystem_device & 0xff,
                      d.subsystem_device >> 8);
        m_dump += text;
        tree.write("dump.txt", m_dump);
        const std::string dir = "sys/bus/pci/devices/" + d.bdf;
        tree.mkdir(dir);
        if (!d.driver.empty()) {
            tree.mkdir("sys/bus/pci/drivers/" + d.driver);
            tree.symlink("../../../bus/pci/drivers/" + d.driver, dir + "/driver");
        }
        tree.symlink("../../../kernel/iommu_groups/" + std::to_string(d.group), dir + "/iommu_group");
    }
    void load_vfio() const { tree.write("dev/vfio/vfio", ""); }
    void slot(const std::string& name, const std::string& address) const {
        tree.write("sys/bus/pci/slots/" + name + "/address", address + "\n");
    }
    // Where the tools take their device locks on this machine (never the real /run/lock).
    std::string lock_dir() const { return tree.path("locks"); }
    // The environment assignments that point a tool at this machine.
    std::string environment() const {
        if (m_dump.empty())
            tree.write("dump.txt", "");
        return "PDT_PCI_DUMP_FILE=" + tree.path("dump.txt") + " PDT_SYSFS_ROOT=" + tree.path("sys") +
               " PDT_DEV_VFIO_ROOT=" + tree.path("dev/vfio") + " PDT_PROC_ROOT=" + tree.path("proc") +
               " PDT_LOCK_DIR=" + lock_dir() + " PDT_VFIO_MANAGER_SOCKET=" + tree.path("run/vfio_manager.sock");
    }

    TempTree tree;

private:
    std::string m_dump;
};
