// A fake sysfs tree of one PCI device for the tests of what maps BARs without VFIO
// (vfio::SysfsDevice): <root>/bus/pci/devices/<bdf>/config holding the header's IDs (64 bytes,
// what a non-root reader sees) and a resource<N> file of each BAR's size (zeros).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace fake_sysfs {

struct FakeIds {
    uint16_t vendor = 0x10ee, device = 0x9038, subsystem_vendor = 0x0002, subsystem_device = 0x00b0;
    uint8_t revision = 0;
    uint32_t class_code = 0x058000;
};

// The device's directory (made afresh; `root` is emptied first).
inline std::string make_device(const std::string& root, const std::string& bdf, const FakeIds& ids,
                               const std::map<unsigned, uint64_t>& bar_sizes) {
    std::filesystem::remove_all(root);
    const std::string dir = root + "/bus/pci/devices/" + bdf;
    std::filesystem::create_directories(dir);
    std::vector<uint8_t> config(64, 0);
    const auto put = [&](size_t at, uint32_t value, size_t bytes) {
        for (size_t i = 0; i < bytes; ++i)
            config[at + i] = static_cast<uint8_t>(value >> (8 * i));
    };
    put(0x00, ids.vendor, 2);
    put(0x02, ids.device, 2);
    put(0x08, ids.revision, 1);
    put(0x09, ids.class_code, 3);
    put(0x2C, ids.subsystem_vendor, 2);
    put(0x2E, ids.subsystem_device, 2);
    std::ofstream(dir + "/config", std::ios::binary).write(reinterpret_cast<const char*>(config.data()), 64);
    for (const auto& [bar, size] : bar_sizes) {
        std::ofstream(dir + "/resource" + std::to_string(bar), std::ios::binary).close();
        std::filesystem::resize_file(dir + "/resource" + std::to_string(bar), size);
    }
    return dir;
}

// The tests' device: 0000:3b:00.0 with the IDs of docs/examples/bram_bar_design.json and a 16 KiB
// BAR 0 (its block RAM at 0x2000); `root` is returned.
inline std::string make_bram_device(const std::string& root) {
    make_device(root, "0000:3b:00.0", {}, {{0, 0x4000}});
    return root;
}

}  // namespace fake_sysfs
