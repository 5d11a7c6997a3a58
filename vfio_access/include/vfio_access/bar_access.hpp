// A BAR access a user names (a tool's --bar/--offset/--width), checked before any access, and
// the write-combined mapping of a prefetchable BAR through sysfs (resource<N>_wc), beside
// VFIO's uncached one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vfio_access/device.hpp"

namespace vfio {

struct BarAccess {
    unsigned bar = 0;
    uint64_t offset = 0;
    unsigned width = 4;  // bytes
};

// The checks, in order, each an error naming "BAR <n> offset 0x<o> width <w>" and why, made
// without touching a register: the BAR exists (ENODEV), the access lies inside it (ERANGE), the
// width is one of `widths` (a usage error, naming those the BAR takes), the offset is aligned to the
// width (a usage error; a 64-byte access to 64 bytes). Returns the BAR.
pdt::Result<Bar*> check_bar_access(Device& device, const BarAccess& access, const std::vector<unsigned>& widths);

// A region of a BAR a tool accesses `width` bytes at a time (memmapped_persistence).
struct BarRegion {
    unsigned bar = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    unsigned width = 4;
};
// check_bar_access for the region's first access, then: the size is a multiple of the width
// (a usage error, "size 0x.. is not a multiple of the 4-byte access"; a size 0 is one) and the region
// ends inside the BAR (ERANGE, "the region ends past BAR <n> of 0x.. bytes"). Made before any
// access; each error names "BAR <n> offset 0x<o> size 0x<s> width <w>".
pdt::Result<Bar*> check_bar_region(Device& device, const BarRegion& region, const std::vector<unsigned>& widths);

// "1, 2, 4" for an error or a help text.
std::string widths_text(const std::vector<unsigned>& widths);

// A write-combined mapping of one BAR: /sys/bus/pci/devices/<bdf>/resource<N>_wc mmap()ed. The
// kernel offers that file only for a prefetchable memory BAR; opening it needs root.
class WcMapping {
public:
    WcMapping(void* base, uint64_t size) : m_base(static_cast<uint8_t*>(base)), m_size(size) {}
    ~WcMapping();
    WcMapping(const WcMapping&) = delete;
    WcMapping& operator=(const WcMapping&) = delete;
    uint8_t* base() const { return m_base; }
    uint64_t size() const { return m_size; }

private:
    uint8_t* m_base;
    uint64_t m_size;
};
// A sysfs resource file (resource<N>, resource<N>_wc) mmap()ed read-write and shared, whole:
// its base and size, which the caller unmaps. The open error (EACCES with a hint to run as root)
// or the mmap error, under `operation`; the caller checks first that the file exists.
struct MappedResource {
    void* base = nullptr;
    uint64_t size = 0;
};
pdt::Result<MappedResource> map_resource_file(const std::string& path, const std::string& operation);

// ENOENT "no resource<N>_wc: BAR <N> is not prefetchable (or not a memory BAR)" when the file is
// absent; the open or mmap error (EACCES with a hint to run as root) otherwise.
// sysfs_root: "/sys" (tests pass another).
pdt::Result<std::unique_ptr<WcMapping>> map_bar_write_combined(const std::string& sysfs_root, const PciAddress& address,
                                                          unsigned bar);

}  // namespace vfio
