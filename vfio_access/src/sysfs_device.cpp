#include "vfio_access/sysfs_device.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/little_endian.hpp"
#include "vfio_access/bar_access.hpp"
#include "vfio_access/kernel.hpp"
#include "vfio_access/unique_fd.hpp"

namespace vfio {

SysfsDevice::SysfsDevice(std::string directory, DeviceIdentity identity)
    : m_directory(std::move(directory)),
      m_identity(std::move(identity)),
      m_iova(IovaAllocator::unavailable(not_supported("allocate IOVA"))) {}

pdt::Result<std::unique_ptr<SysfsDevice>> SysfsDevice::open(const std::string& sysfs_root, const PciAddress& address) {
    const std::string directory = sysfs_root + "/bus/pci/devices/" + address.to_string();
    struct stat st {};
    if (::stat(directory.c_str(), &st) != 0)
        return pdt::make_error("open device through sysfs", directory, errno, "no such PCI device");
    // The header's identity (PCI Local Bus 3.0, 6.1): IDs, revision, class code, subsystem IDs.
    DeviceIdentity id;
    id.address = address;
    std::unique_ptr<SysfsDevice> device(new SysfsDevice(directory, id));
    uint8_t header[0x30] = {};
    PDT_CHECK(device->config_read(0, header, sizeof(header)));
    const auto field = [&](uint32_t offset, size_t bytes) { return pdt::load_le({header + offset, bytes}); };
    id.vendor_id = static_cast<uint16_t>(field(cfg::VENDOR_ID, 2));
    id.device_id = static_cast<uint16_t>(field(cfg::DEVICE_ID, 2));
    id.revision = header[cfg::REVISION_ID];
    id.class_code = static_cast<uint32_t>(field(cfg::REVISION_ID + 1, 3));
    id.subsystem_vendor_id = static_cast<uint16_t>(field(cfg::SUBSYSTEM_VENDOR_ID, 2));
    id.subsystem_device_id = static_cast<uint16_t>(field(cfg::SUBSYSTEM_ID, 2));
    device->m_identity = id;
    return device;
}

pdt::Result<void> SysfsDevice::config_read(uint32_t offset, void* data, uint32_t size) {
    const std::string path = m_directory + "/config";
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return pdt::errno_error("read config space", path);
    const ssize_t got = ::pread(fd.get(), data, size, offset);
    if (got != static_cast<ssize_t>(size))
        return pdt::make_error("read config space", path + " offset " + std::to_string(offset), got < 0 ? errno : EIO,
                               got < 0 ? "" : "short read: without root only the first 64 bytes are readable");
    return {};
}

pdt::Result<void> SysfsDevice::config_write(uint32_t, const void*, uint32_t) {
    return not_supported("write config space");
}

pdt::Result<Bar*> SysfsDevice::bar(unsigned index) {
    if (index >= m_bars.size())
        return pdt::make_error("map BAR through sysfs", m_identity.address.to_string(), ENODEV,
                               "BAR " + std::to_string(index) + " does not exist on this device");
    if (m_bars[index])
        return m_bars[index].get();
    const std::string path = m_directory + "/resource" + std::to_string(index);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || st.st_size == 0)
        return pdt::make_error("map BAR through sysfs", path, ENODEV,
                               "BAR " + std::to_string(index) + " does not exist on this device (or is not memory)");
    const MappedResource mapped = PDT_TRY(map_resource_file(path, "map BAR through sysfs"));
    m_bars[index] = std::make_unique<Bar>(index, make_mapped_mmio(mapped.base, mapped.size));
    return m_bars[index].get();
}

pdt::Error SysfsDevice::not_supported(const std::string& operation) const {
    return pdt::make_error(operation, m_identity.address.to_string(), ENOTSUP,
                           "the device is reached through sysfs, not VFIO: BAR access only (no DMA, interrupts or reset)");
}

}  // namespace vfio
