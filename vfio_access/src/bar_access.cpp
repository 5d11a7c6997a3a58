#include "vfio_access/bar_access.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/format.hpp"
#include "vfio_access/unique_fd.hpp"

namespace vfio {
namespace {

std::string access_object(const BarAccess& access) {
    return "BAR " + std::to_string(access.bar) + " offset " + pdt::hex(access.offset) + " width " + std::to_string(access.width);
}

}  // namespace

std::string widths_text(const std::vector<unsigned>& widths) {
    std::string text;
    for (unsigned w : widths)
        text += (text.empty() ? "" : ", ") + std::to_string(w);
    return text;
}

pdt::Result<Bar*> check_bar_access(Device& device, const BarAccess& access, const std::vector<unsigned>& widths) {
    const std::string object = access_object(access);
    auto bar = device.bar(access.bar);
    if (!bar.ok())
        return pdt::make_error("check BAR access", object, ENODEV,
                          "BAR " + std::to_string(access.bar) + " does not exist on this device");
    const uint64_t size = (*bar)->size();
    if (access.offset >= size || access.width > size - access.offset)
        return pdt::make_error("check BAR access", object, ERANGE,
                          "the access ends past BAR " + std::to_string(access.bar) + " of " + pdt::hex(size) + " bytes");
    if (std::find(widths.begin(), widths.end(), access.width) == widths.end())
        return pdt::usage_error("check BAR access", object,
                          "width " + std::to_string(access.width) + " is not one this BAR's registers take (" +
                              widths_text(widths) + " bytes)");
    if (access.width == 0 || access.offset % access.width != 0)
        return pdt::usage_error("check BAR access", object,
                          "offset not aligned to the " + std::to_string(access.width) + "-byte access");
    return *bar;
}

pdt::Result<Bar*> check_bar_region(Device& device, const BarRegion& region, const std::vector<unsigned>& widths) {
    const std::string object = "BAR " + std::to_string(region.bar) + " offset " + pdt::hex(region.offset) + " size " +
                               pdt::hex(region.size) + " width " + std::to_string(region.width);
    auto first = check_bar_access(device, {region.bar, region.offset, region.width}, widths);
    if (!first.ok()) {  // the access's refusal (a usage error stays one), named as the region's
        pdt::Error error = std::move(first).error();
        error.operation = "check BAR region";
        error.object = object;
        return error;
    }
    if (region.size == 0 || region.size % region.width != 0)
        return pdt::usage_error("check BAR region", object,
                          "size " + pdt::hex(region.size) + " is not a multiple of the " + std::to_string(region.width) +
                              "-byte access");
    const uint64_t bar_size = (*first)->size();
    if (region.size > bar_size - region.offset)
        return pdt::make_error("check BAR region", object, ERANGE,
                          "the region ends past BAR " + std::to_string(region.bar) + " of " + pdt::hex(bar_size) + " bytes");
    return *first;
}

WcMapping::~WcMapping() { ::munmap(m_base, m_size); }

pdt::Result<std::unique_ptr<WcMapping>> map_bar_write_combined(const std::string& sysfs_root, const PciAddress& address,
                                                          unsigned bar) {
    const std::string path =
        sysfs_root + "/bus/pci/devices/" + address.to_string() + "/resource" + std::to_string(bar) + "_wc";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return pdt::make_error("map write-combined", path, errno,
                          errno == ENOENT ? "no resource" + std::to_string(bar) + "_wc: BAR " + std::to_string(bar) +
                                                " is not prefetchable (or not a memory BAR)"
                                          : "");
    const MappedResource mapped = PDT_TRY(map_resource_file(path, "map write-combined"));
    return std::make_unique<WcMapping>(mapped.base, mapped.size);
}

pdt::Result<MappedResource> map_resource_file(const std::string& path, const std::string& operation) {
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!fd.valid())
        return pdt::errno_error(operation, path, errno == EACCES ? "sysfs resource files need root" : "");
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return pdt::errno_error(operation, path);
    void* base = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (base == MAP_FAILED)
        return pdt::errno_error(operation, path);
    return MappedResource{base, static_cast<uint64_t>(st.st_size)};
}

}  // namespace vfio
