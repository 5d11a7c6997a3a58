// Container and group of the kernel backend (private to vfio_access).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "vfio_access/kernel.hpp"

namespace vfio {

// ioctl() that retries on EINTR; returns -1 with errno set on failure.
int xioctl(int fd, unsigned long request, void* arg);
int xioctl(int fd, unsigned long request, unsigned long arg);

class Container {
public:
    static pdt::Result<std::shared_ptr<Container>> open(const std::string& dev_vfio_root);
    // A container another process (the VFIO manager) set up: its fd, IOMMU model and an
    // allocator that asks that process for IOVA.
    static std::shared_ptr<Container> adopt(UniqueFd fd, std::string path, int iommu_type, IovaAllocator allocator);

    int fd() const { return m_fd.get(); }
    const std::string& path() const { return m_path; }
    bool has_extension(unsigned long extension) const;
    ContainerInfo info() const;
    // VFIO_SET_IOMMU on the first group attached (type1v2, or no-IOMMU for a noiommu group);
    // later groups must use the same model. Then VFIO_IOMMU_GET_INFO seeds the allocator.
    pdt::Result<void> set_iommu(bool noiommu);
    int iommu_type() const { return m_iommu_type; }
    IovaAllocator& allocator() { return m_allocator; }
    // No-IOMMU: the buffer pool of every device in this container, made on first use.
    pdt::Result<std::shared_ptr<PhysicalPool>> physical_pool(const PhysicalPoolOptions& options);
    // Called when a group leaves the container. With the last group the kernel drops the
    // IOMMU model, so the next group attached sets it again.
    void group_detached();

private:
    pdt::Result<void> load_iommu_info();
    void forget_iommu();

    UniqueFd m_fd;
    std::string m_path;
    int m_api_version = 0;
    int m_iommu_type = 0;
    int m_groups = 0;  // groups attached
    std::optional<IommuInfo> m_iommu;
    IovaAllocator m_allocator;
    std::shared_ptr<PhysicalPool> m_pool;
};

class Group {
public:
    Group() = default;
    Group(const Group&) = delete;
    Group& operator=(const Group&) = delete;
    ~Group();
    // Opens <root>/<N> (or noiommu-<N>), checks viability and attaches it to the container.
    static pdt::Result<std::shared_ptr<Group>> open(const KernelOptions& options, int number,
                                               std::shared_ptr<Container> container);
    // A group held by the VFIO manager: no fd here, only its status and container.
    static std::shared_ptr<Group> brokered(GroupStatus status, std::shared_ptr<Container> container);
    pdt::Result<UniqueFd> device_fd(const PciAddress& address);
    const GroupStatus& status() const { return m_status; }
    Container& container() { return *m_container; }
    const std::shared_ptr<Container>& shared_container() const { return m_container; }

private:
    std::shared_ptr<Container> m_container;  // declared first: the group fd closes first
    UniqueFd m_fd;
    GroupStatus m_status;
    bool m_attached = false;
};

}  // namespace vfio
