#include <fcntl.h>
#include <linux/vfio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "kernel_internal.hpp"
#include "vfio_access/permission_hint.hpp"
#include "vfio_access/proc_holders.hpp"

namespace vfio {
namespace fs = std::filesystem;

int xioctl(int fd, unsigned long request, void* arg) {
    int rc;
    do {
        rc = ::ioctl(fd, request, arg);
    } while (rc < 0 && errno == EINTR);
    return rc;
}

int xioctl(int fd, unsigned long request, unsigned long arg) {
    int rc;
    do {
        rc = ::ioctl(fd, request, arg);
    } while (rc < 0 && errno == EINTR);
    return rc;
}

namespace {

struct ExtensionName {
    unsigned long id;
    const char* name;
};
constexpr ExtensionName k_extensions[] = {
    {VFIO_TYPE1_IOMMU, "TYPE1"},     {VFIO_SPAPR_TCE_IOMMU, "SPAPR_TCE"},
    {VFIO_TYPE1v2_IOMMU, "TYPE1v2"}, {VFIO_DMA_CC_IOMMU, "DMA_CC"},
    {VFIO_EEH, "EEH"},               {VFIO_TYPE1_NESTING_IOMMU, "TYPE1_NESTING"},
    {VFIO_SPAPR_TCE_v2_IOMMU, "SPAPR_TCE_v2"}, {VFIO_NOIOMMU_IOMMU, "NOIOMMU"},
};

}  // namespace

pdt::Result<std::shared_ptr<Container>> Container::open(const std::string& dev_vfio_root) {
    PDT_CHECK(check_vfio_available(dev_vfio_root));
    auto container = std::make_shared<Container>();
    container->m_path = dev_vfio_root + "/vfio";
    container->m_fd.reset(::open(container->m_path.c_str(), O_RDWR | O_CLOEXEC));
    if (!container->m_fd.valid()) {
        if (errno == EACCES || errno == EPERM)
            return pdt::errno_error("open", container->m_path, "no permission on " + container->m_path);
        return pdt::errno_error("open", container->m_path);
    }
    container->m_api_version = xioctl(container->fd(), VFIO_GET_API_VERSION, 0ul);
    if (container->m_api_version != VFIO_API_VERSION)
        return pdt::make_error("VFIO_GET_API_VERSION", container->m_path, EPROTO,
                          "kernel VFIO API version " + std::to_string(container->m_api_version) + ", expected " +
                              std::to_string(VFIO_API_VERSION));
    container->forget_iommu();
    return container;
}

std::shared_ptr<Container> Container::adopt(UniqueFd fd, std::string path, int iommu_type, IovaAllocator allocator) {
    auto container = std::make_shared<Container>();
    container->m_fd = std::move(fd);
    container->m_path = std::move(path);
    container->m_api_version = xioctl(container->fd(), VFIO_GET_API_VERSION, 0ul);
    container->m_iommu_type = iommu_type;
    if (iommu_type != VFIO_NOIOMMU_IOMMU)
        (void)container->load_iommu_info();  // page sizes and IOVA ranges for reports; best effort
    container->m_allocator = std::move(allocator);  // IOVA still comes from the other process
    return container;
}

void Container::forget_iommu() {
    m_iommu_type = 0;
    m_iommu.reset();
    m_allocator = IovaAllocator::unavailable(
        pdt::make_error("allocate IOVA", m_path, ENODEV, "no group attached to the container yet"));
}

void Container::group_detached() {
    if (m_groups > 0 && --m_groups == 0)
        forget_iommu();
}

bool Container::has_extension(unsigned long extension) const {
    return xioctl(fd(), VFIO_CHECK_EXTENSION, extension) > 0;
}

ContainerInfo Container::info() const {
    ContainerInfo info;
    info.api_version = m_api_version;
    for (const ExtensionName& e : k_extensions)
        info.extensions.emplace_back(e.name, has_extension(e.id));
    info.iommu_type = m_iommu_type;
    info.iommu = m_iommu;
    return info;
}

pdt::Result<void> Container::set_iommu(bool noiommu) {
    ++m_groups;  // the caller's group is attached; undone by group_detached()
    if (m_iommu_type != 0) {
        if ((m_iommu_type == VFIO_NOIOMMU_IOMMU) != noiommu)
            return pdt::make_error("VFIO_SET_IOMMU", m_path, EINVAL,
                              "cannot mix no-IOMMU and IOMMU groups in one container: run the no-IOMMU device "
                              "on its own through the device selection, or bind every device of the run the same way");
        return {};
    }
    int type;
    if (noiommu)
        type = VFIO_NOIOMMU_IOMMU;
    else if (has_extension(VFIO_TYPE1v2_IOMMU))
        type = VFIO_TYPE1v2_IOMMU;
    else if (has_extension(VFIO_TYPE1_IOMMU))
        type = VFIO_TYPE1_IOMMU;
    else
        return pdt::make_error("VFIO_CHECK_EXTENSION", m_path, ENOTSUP, "the kernel offers neither TYPE1v2 nor TYPE1 IOMMU");
    if (xioctl(fd(), VFIO_SET_IOMMU, static_cast<unsigned long>(type)) < 0)
        return pdt::errno_error("VFIO_SET_IOMMU", m_path + " type " + std::to_string(type),
                           noiommu ? "no-IOMMU mode needs CAP_SYS_RAWIO: sudo setcap cap_sys_rawio=ep <executable>" : "");
    m_iommu_type = type;
    if (noiommu) {
        m_allocator = IovaAllocator::unavailable(pdt::make_error(
            "allocate IOVA", m_path, ENOTSUP, "no-IOMMU mode: DMA needs physical addresses, VFIO_IOMMU_MAP_DMA is unavailable"));
        return {};
    }
    return load_iommu_info();
}

pdt::Result<std::shared_ptr<PhysicalPool>> Container::physical_pool(const PhysicalPoolOptions& options) {
    if (!m_pool)
        m_pool = PDT_TRY(PhysicalPool::create(options));
    return m_pool;
}

pdt::Result<void> Container::load_iommu_info() {
    vfio_iommu_type1_info probe{};
    probe.argsz = sizeof probe;
    if (xioctl(fd(), VFIO_IOMMU_GET_INFO, &probe) < 0)
        return pdt::errno_error("VFIO_IOMMU_GET_INFO", m_path);
    std::vector<uint8_t> bytes(std::max<size_t>(probe.argsz, sizeof probe), 0);
    const uint32_t argsz = static_cast<uint32_t>(bytes.size());
    std::memcpy(bytes.data(), &argsz, sizeof argsz);
    if (xioctl(fd(), VFIO_IOMMU_GET_INFO, bytes.data()) < 0)
        return pdt::errno_error("VFIO_IOMMU_GET_INFO", m_path);
    m_iommu = PDT_TRY(parse_iommu_info(bytes));
    auto allocator = make_iova_allocator(*m_iommu);
    m_allocator = allocator ? std::move(allocator).value() : IovaAllocator::unavailable(allocator.error());
    return {};
}

std::vector<std::string> group_functions(const std::string& sysfs_root, const std::string& group_path) {
    const std::string name = fs::path(group_path).filename().string();
    const size_t digits = name.find_first_of("0123456789");
    std::vector<std::string> functions;
    if (digits == std::string::npos)
        return functions;
    std::error_code ec;
    const fs::path dir = fs::path(sysfs_root) / "kernel/iommu_groups" / name.substr(digits) / "devices";
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec))
        functions.push_back(entry.path().filename().string());
    std::sort(functions.begin(), functions.end());
    return functions;
}

pdt::Error group_open_error(const KernelOptions& options, const std::string& path, int code) {
    switch (code) {
    case ENOENT:
        return pdt::make_error("open", path, code, path + " does not exist: is the device bound to vfio-pci?");
    case EACCES:
        return pdt::make_error("open", path, code, group_permission_hint(path, describe_device_file(path),
                                                                    group_functions(options.sysfs_root, path)));
    case EBUSY:
        return pdt::make_error("open", path, code,
                          describe_file_holders(path, find_file_holders(options.proc_root, path), options.proc_root));
    case EPERM:
        if (path.find("noiommu-") == std::string::npos)  // an LSM or a device cgroup: as EACCES
            return pdt::make_error("open", path, code, group_permission_hint(path, describe_device_file(path),
                                                                        group_functions(options.sysfs_root, path)));
        return pdt::make_error("open", path, code,
                          "no-IOMMU groups need CAP_SYS_RAWIO: sudo setcap cap_sys_rawio=ep <executable>");
    default:
        return pdt::make_error("open", path, code);
    }
}

pdt::Error group_not_viable_error(const std::string& sysfs_root, int group, const std::string& path) {
    const fs::path dir = fs::path(sysfs_root) / "kernel/iommu_groups" / std::to_string(group) / "devices";
    std::vector<std::string> names;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    std::string culprits;
    for (const std::string& name : names) {
        auto address = PciAddress::parse(name);
        const std::string driver = address ? bound_driver(sysfs_root, *address) : "";
        if (driver.empty() || driver == "vfio-pci" || driver == "pcieport")
            continue;
        culprits += (culprits.empty() ? "" : ", ") + name + " is bound to " + driver;
    }
    std::string hint = "IOMMU group " + std::to_string(group) + " is not viable: every device in it must be bound to vfio-pci or to no driver";
    if (!culprits.empty())
        hint += "; " + culprits;
    return pdt::make_error("VFIO_GROUP_GET_STATUS", path, EPERM, hint);
}

pdt::Result<std::shared_ptr<Group>> Group::open(const KernelOptions& options, int number, std::shared_ptr<Container> container) {
    auto group = std::make_shared<Group>();
    group->m_status.number = number;
    group->m_status.path = options.dev_vfio_root + "/" + std::to_string(number);
    const std::string noiommu_path = options.dev_vfio_root + "/noiommu-" + std::to_string(number);
    if (::access(group->m_status.path.c_str(), F_OK) != 0 && ::access(noiommu_path.c_str(), F_OK) == 0) {
        group->m_status.path = noiommu_path;
        group->m_status.noiommu = true;
    }
    const std::string& path = group->m_status.path;
    group->m_fd.reset(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!group->m_fd.valid())
        return group_open_error(options, path, errno);
    vfio_group_status status{};
    status.argsz = sizeof status;
    if (xioctl(group->m_fd.get(), VFIO_GROUP_GET_STATUS, &status) < 0)
        return pdt::errno_error("VFIO_GROUP_GET_STATUS", path);
    group->m_status.viable = (status.flags & VFIO_GROUP_FLAGS_VIABLE) != 0;
    group->m_status.container_was_set = (status.flags & VFIO_GROUP_FLAGS_CONTAINER_SET) != 0;
    if (!group->m_status.viable)
        return group_not_viable_error(options.sysfs_root, number, path);
    int container_fd = container->fd();
    if (!group->m_status.container_was_set && xioctl(group->m_fd.get(), VFIO_GROUP_SET_CONTAINER, &container_fd) < 0)
        return pdt::errno_error("VFIO_GROUP_SET_CONTAINER", path);
    group->m_container = std::move(container);
    group->m_attached = true;
    PDT_CHECK(group->m_container->set_iommu(group->m_status.noiommu));
    return group;
}

std::shared_ptr<Group> Group::brokered(GroupStatus status, std::shared_ptr<Container> container) {
    auto group = std::make_shared<Group>();
    group->m_status = std::move(status);
    group->m_container = std::move(container);
    return group;
}

Group::~Group() {
    m_fd.reset();  // closing the group fd detaches it from the container
    if (m_attached)
        m_container->group_detached();
}

pdt::Result<UniqueFd> Group::device_fd(const PciAddress& address) {
    std::string name = address.to_string();
    UniqueFd fd(xioctl(m_fd.get(), VFIO_GROUP_GET_DEVICE_FD, name.data()));
    if (!fd.valid())
        return pdt::errno_error("VFIO_GROUP_GET_DEVICE_FD", name + " in " + m_status.path,
                           errno == EBUSY ? "the device is already open (in this or another process)" : "");
    return fd;
}

}  // namespace vfio
