#include <sys/stat.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sysfs_backend.hpp"

namespace pcie {
namespace fs = std::filesystem;

namespace {
std::string device_dir(const PciAddress& a) { return "/sys/bus/pci/devices/" + a.to_string(); }

std::string link_name(const std::string& path) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    return ec ? std::string() : target.filename().string();
}
}  // namespace

SystemInfo sysfs_system_info(const PciAddress& address) {
    SystemInfo info;
    const std::string dir = device_dir(address);
    const std::string group = link_name(dir + "/iommu_group");
    if (!group.empty())
        info.iommu_group = std::atoi(group.c_str());
    info.driver = link_name(dir + "/driver");
    info.module = link_name(dir + "/driver/module");
    if (std::ifstream numa(dir + "/numa_node"); numa)
        numa >> info.numa_node;
    std::error_code ec;
    const std::string slot_address = address.to_string().substr(0, 10);  // dddd:bb:dd
    for (const auto& slot : fs::directory_iterator("/sys/bus/pci/slots", ec)) {
        std::ifstream in(slot.path() / "address");
        std::string text;
        if (in >> text && text == slot_address)
            info.physical_slot = slot.path().filename().string();
    }
    if (std::ifstream resource(dir + "/resource"); resource) {
        std::string line;
        for (unsigned i = 0; i < 6 && std::getline(resource, line); ++i) {
            uint64_t start = 0, end = 0, flags = 0;
            if (std::sscanf(line.c_str(), "%" SCNx64 " %" SCNx64 " %" SCNx64, &start, &end, &flags) == 3 && end > start)
                info.bar_size[i] = end - start + 1;
        }
    }
    return info;
}

std::optional<PciAddress> sysfs_parent(const PciAddress& address) {
    std::error_code ec;
    const fs::path real = fs::canonical(device_dir(address), ec);
    if (ec)
        return std::nullopt;
    auto parent = PciAddress::parse(real.parent_path().filename().string());
    if (!parent)
        return std::nullopt;
    return *parent;
}

uint32_t sysfs_config_size(const PciAddress& address) {
    struct stat st {};
    return ::stat((device_dir(address) + "/config").c_str(), &st) == 0 && st.st_size >= 4096 ? 4096 : 256;
}

Result<void> SysfsSpace::check_read(uint32_t offset, uint32_t length) const {
    if (offset + length <= m_size)
        return {};
    return access_error("read config", offset, length, m_size == 64 ? EPERM : EIO,
                        m_size == 64 ? "only 64 bytes are readable without CAP_SYS_ADMIN; run as root" : "");
}

Result<std::optional<PciAddress>> SysfsBackend::parent(const PciAddress& address) {
    if (auto up = sysfs_parent(address))
        return std::optional<PciAddress>(*up);
    return ConfigBackend::parent(address);
}

}  // namespace pcie
