#include "vfio_access/dma.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

#include "base/spellings.hpp"
#include "vfio_access/device.hpp"

namespace vfio {

namespace {

constexpr pdt::Spelling<DmaAccess> kAccessNames[] = {{DmaAccess::DeviceRead, "device-read"},
                                                {DmaAccess::DeviceWrite, "device-write"},
                                                {DmaAccess::DeviceReadWrite, "device-read-write"}};
constexpr pdt::Spelling<BufferKind> kKindNames[] = {{BufferKind::Anonymous, "anonymous"},
                                               {BufferKind::HugePages, "huge pages"},
                                               {BufferKind::SharedMemory, "shared memory"}};

std::string bytes_text(uint64_t size) { return std::to_string(size) + " bytes"; }

// A named value of /proc/meminfo ("HugePages_Free:"), or -1 when absent.
long long meminfo_value(const std::string& path, const std::string& key) {
    std::FILE* file = std::fopen(path.c_str(), "re");
    if (file == nullptr)
        return -1;
    char line[256];
    long long value = -1;
    while (std::fgets(line, sizeof line, file) != nullptr) {
        if (std::strncmp(line, key.c_str(), key.size()) == 0) {
            value = std::strtoll(line + key.size(), nullptr, 10);
            break;
        }
    }
    std::fclose(file);
    return value;
}

}  // namespace

const char* to_string(DmaAccess access) { return pdt::spelling(access, kAccessNames); }

const char* to_string(BufferKind kind) { return pdt::spelling(kind, kKindNames); }

pdt::Result<uint64_t> default_huge_page_size(const std::string& meminfo_path) {
    const long long kib = meminfo_value(meminfo_path, "Hugepagesize:");
    if (kib <= 0)
        return pdt::make_error("read default huge page size", meminfo_path, ENOTSUP,
                          "no Hugepagesize line: the kernel has no huge page support");
    return static_cast<uint64_t>(kib) * 1024;
}

pdt::Result<HostBuffer> HostBuffer::allocate(uint64_t size, BufferKind kind) {
    if (size == 0)
        return pdt::make_error("allocate host buffer", "0 bytes", EINVAL, "size must be non-zero");
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    HostBuffer buffer;
    buffer.m_kind = kind;
    buffer.m_size = size;
    buffer.m_mapped_size = (size + page - 1) / page * page;
    switch (kind) {
    case BufferKind::HugePages: PDT_CHECK(map_huge_pages(buffer)); return buffer;
    case BufferKind::SharedMemory: PDT_CHECK(map_shared_memory(buffer)); return buffer;
    case BufferKind::Anonymous: break;
    }
    // MAP_POPULATE faults every page in for writing now. Without it an untouched page is the
    // shared zero page: VFIO_IOMMU_MAP_DMA with READ only pins that, the process's first
    // write then copies the page, and the device keeps reading zeros (seen with edu).
    void* p = mmap(nullptr, buffer.m_mapped_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        return pdt::errno_error("mmap", bytes_text(buffer.m_mapped_size));
    buffer.m_data = p;  // anonymous pages are zero-filled
    return buffer;
}

pdt::Result<void> HostBuffer::map_huge_pages(HostBuffer& buffer) {
    const uint64_t huge = PDT_TRY(default_huge_page_size());
    // Rounded up to whole huge pages, or munmap() fails with EINVAL.
    buffer.m_mapped_size = (buffer.m_size + huge - 1) / huge * huge;
    void* p = mmap(nullptr, buffer.m_mapped_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) {
        const int code = errno;
        const long long total = meminfo_value("/proc/meminfo", "HugePages_Total:");
        const long long free_pages = meminfo_value("/proc/meminfo", "HugePages_Free:");
        const uint64_t needed = buffer.m_mapped_size / huge;
        std::string hint = total <= 0 ? "no huge pages are reserved" : std::to_string(free_pages) + " of " +
                                                                           std::to_string(total) + " huge pages free";
        hint += "; this buffer needs " + std::to_string(needed) + " huge page(s) of " + std::to_string(huge / 1024) +
                " KiB: echo <n> > /proc/sys/vm/nr_hugepages";
        return pdt::make_error("mmap MAP_HUGETLB", bytes_text(buffer.m_mapped_size), code, hint);
    }
    buffer.m_data = p;
    return {};
}

pdt::Result<void> HostBuffer::map_shared_memory(HostBuffer& buffer) {
    static std::atomic<unsigned> counter{0};
    const std::string name = "/pdt_dma_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return pdt::errno_error("shm_open", name, errno == ENOENT ? "is /dev/shm (tmpfs) mounted?" : "");
    buffer.m_shm_name = name;  // from here release() unlinks it, on every path
    auto fail = [&](pdt::Error error) {
        ::close(fd);
        return error;
    };
    if (ftruncate(fd, static_cast<off_t>(buffer.m_mapped_size)) != 0)
        return fail(pdt::errno_error("ftruncate", name + " to " + bytes_text(buffer.m_mapped_size)));
    // Reserve the pages now: a full /dev/shm then fails here, not with SIGBUS on first touch.
    if (const int rc = posix_fallocate(fd, 0, static_cast<off_t>(buffer.m_mapped_size)); rc != 0)
        return fail(pdt::make_error("posix_fallocate", name + " " + bytes_text(buffer.m_mapped_size), rc,
                               rc == ENOSPC ? "/dev/shm is full" : ""));
    void* p = mmap(nullptr, buffer.m_mapped_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return fail(pdt::errno_error("mmap", name));
    ::close(fd);
    buffer.m_data = p;
    return {};
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept { *this = std::move(other); }

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_mapped_size = std::exchange(other.m_mapped_size, 0);
        m_kind = other.m_kind;
        m_shm_name = std::exchange(other.m_shm_name, std::string());
    }
    return *this;
}

HostBuffer::~HostBuffer() { release(); }

void HostBuffer::release() {
    if (m_data != nullptr)
        munmap(m_data, m_mapped_size);
    m_data = nullptr;
    if (!m_shm_name.empty())
        shm_unlink(m_shm_name.c_str());
    m_shm_name.clear();
}

pdt::Result<DmaRegion> DmaRegion::allocate_physical(std::shared_ptr<PhysicalPool> pool, uint64_t size, Options options) {
    if (size == 0)
        return pdt::make_error("allocate host buffer", "0 bytes", EINVAL, "size must be non-zero");
    DmaRegion region;
    region.m_run = PDT_TRY(pool->allocate(size, options.dma_mask_bits));
    region.m_pool = std::move(pool);
    region.m_size = size;
    region.m_iova = region.m_run.phys;
    region.m_mapped_size = region.m_run.size;
    region.m_access = options.access;
    return region;
}

pdt::Result<DmaRegion> DmaRegion::allocate(Device& device, uint64_t size, Options options) {
    // No-IOMMU devices get physical buffers, or the refusal of a mode the caller did not opt into.
    if (std::shared_ptr<PhysicalPool> pool = PDT_TRY(device.physical_pool())) {
        std::lock_guard lock(device.dma_fence().allocation_mutex());
        DmaRegion region = PDT_TRY(allocate_physical(std::move(pool), size, options));
        region.m_device = &device;
        return region;
    }
    HostBuffer buffer = PDT_TRY(HostBuffer::allocate(size, options.kind));
    std::lock_guard lock(device.dma_fence().allocation_mutex());
    IovaAllocator& allocator = device.iova_allocator();
    const uint64_t mapped = allocator.round_up(buffer.mapped_size());
    const uint64_t iova = PDT_TRY(allocator.allocate(mapped, options.dma_mask_bits));
    auto mapped_ok = device.dma_map(iova, buffer.data(), mapped, options.access);
    if (!mapped_ok) {
        (void)allocator.free(iova, mapped);
        return std::move(mapped_ok).error();
    }
    DmaRegion region;
    region.m_device = &device;
    region.m_buffer = std::move(buffer);
    region.m_iova = iova;
    region.m_mapped_size = mapped;
    region.m_access = options.access;
    return region;
}

DmaRegion::DmaRegion(DmaRegion&& other) noexcept { *this = std::move(other); }

DmaRegion& DmaRegion::operator=(DmaRegion&& other) noexcept {
    if (this != &other) {
        (void)release();
        m_device = std::exchange(other.m_device, nullptr);
        m_buffer = std::move(other.m_buffer);
        m_pool = std::move(other.m_pool);
        m_run = other.m_run;
        m_size = other.m_size;
        m_iova = other.m_iova;
        m_mapped_size = other.m_mapped_size;
        m_access = other.m_access;
    }
    return *this;
}

DmaRegion::~DmaRegion() {
    auto released = release();
    if (!released)
        std::fprintf(stderr, "Warning: %s\n", released.error().message().c_str());
}

namespace {

pdt::Result<void> unmap_and_free(Device& device, uint64_t iova, uint64_t size) {
    const uint64_t unmapped = PDT_TRY(device.dma_unmap(iova, size));
    if (unmapped != size) {
        char object[64];
        std::snprintf(object, sizeof object, "IOVA 0x%llx", static_cast<unsigned long long>(iova));
        return pdt::make_error("VFIO_IOMMU_UNMAP_DMA", object, EIO,
                          "unmapped " + std::to_string(unmapped) + " of " + std::to_string(size) +
                              " bytes; was the mapping made by another process?");
    }
    return device.iova_allocator().free(iova, size);
}

}  // namespace

pdt::Result<void> DmaRegion::release() {
    if (m_device == nullptr) {
        if (m_pool)  // a physical run never given to a device
            std::exchange(m_pool, nullptr)->free(std::exchange(m_run, PhysicalRun()));
        return {};
    }
    Device* device = std::exchange(m_device, nullptr);
    std::lock_guard lock(device->dma_fence().allocation_mutex());
    // Under a live engine (dma_fence.hpp) the mapping and the memory are kept until its stop is
    // proven; an error of that later release can only be reported.
    if (m_pool) {
        auto pool = std::exchange(m_pool, nullptr);
        const PhysicalRun run = std::exchange(m_run, PhysicalRun());
        if (!device->dma_fence().defer([pool, run] { pool->free(run); }))
            pool->free(run);
        return {};
    }
    auto buffer = std::make_shared<HostBuffer>(std::move(m_buffer));
    const uint64_t iova = m_iova, size = m_mapped_size;
    if (device->dma_fence().defer([device, buffer, iova, size]() mutable {
            if (auto done = unmap_and_free(*device, iova, size); !done)
                std::fprintf(stderr, "Warning: %s\n", done.error().message().c_str());
            buffer.reset();
        }))
        return {};
    return unmap_and_free(*device, iova, size);
}

}  // namespace vfio
