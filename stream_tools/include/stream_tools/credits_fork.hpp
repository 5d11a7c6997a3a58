// test_dma_descriptor_credits --fork (fpga_sio's -f/-a/-b/-m): what fork() does to DMA buffers
// the kernel has pinned for a device (VFIO_IOMMU_MAP_DMA). A child touches the parent's DMA
// buffers (not at all, reads, writes zeros, or toggles every byte) while the parent moves a
// pattern it wrote after the fork through the device (host -> card -> host) and checks it.
//
// The run, in order: the buffers mapped before the fork (`mappings_before_fork`: 0, the source,
// or source and destination) get pattern A (source) and 0xEE bytes (destination), MADV_DONTFORK
// where asked; fork(); the parent writes pattern B into the source and 0xDD bytes into the
// destination (its first writes after the fork: where copy-on-write would move its pages); the
// child looks at each buffer it has (what it sees: A, B, zeros, other, or a fault), touches it,
// reports, and waits; the parent maps the remaining buffers, copies source -> card ->
// destination and compares the destination with B; then the child exits.
//
// A transfer is corrupted when the destination is not B: the child's touch reached the parent's
// buffer (shared memory), the device read a page the parent no longer maps (it shows A), or it
// wrote one (it shows 0xDD). Heap and huge-page buffers are private: on a kernel that copies
// pinned pages into the child at fork() (Linux 5.8 and later for anonymous memory), the child
// sees its own copy. With MADV_DONTFORK the child has no mapping: its touch faults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vfio_access/device.hpp"
#include "vfio_access/dma.hpp"

namespace stream_tools {

// fpga_sio's -f names: none (no fork), no_dma_mapping_access, read_dma_mapping,
// write_dma_mapping (zeros), toggle_dma_mapping (every byte inverted).
enum class ForkTouch { None, NoAccess, Read, Write, Toggle };
pdt::Result<ForkTouch> parse_fork_touch(const std::string& text);
const char* to_string(ForkTouch touch);
// fpga_sio's -b names: heap (private anonymous memory), shared_memory (a POSIX shared memory
// object), huge_pages (private MAP_HUGETLB).
pdt::Result<vfio::BufferKind> parse_fork_buffers(const std::string& text);
const char* fork_buffers_name(vfio::BufferKind kind);

struct ForkOptions {
    ForkTouch touch = ForkTouch::None;
    unsigned mappings_before_fork = 2;  // -a: 0, 1 (source) or 2 (source and destination)
    vfio::BufferKind buffers = vfio::BufferKind::Anonymous;
    bool dontfork = false;  // -m: MADV_DONTFORK on the buffers mapped before the fork
};

// The device's copy: `bytes` from source to the card, then back into destination.
class ForkCopier {
public:
    virtual ~ForkCopier() = default;
    virtual std::string name() const = 0;  // "edu 0000:01:00.0"
    virtual unsigned dma_mask_bits() const = 0;
    virtual uint64_t bytes() const = 0;    // the size of one transfer
    virtual pdt::Result<void> round_trip(const vfio::DmaRegion& source, const vfio::DmaRegion& destination) = 0;
};

struct ForkOutcome {
    std::vector<std::string> lines;  // the run's description, the child's view, the transfer
    bool corrupted = false;
    uint64_t bytes_verified = 0;     // the destination bytes that held pattern B (all, unless corrupted)
};

// The run above; errors: a buffer not allocated or mapped, fork() or the copy failing.
pdt::Result<ForkOutcome> run_fork_test(vfio::Device& device, ForkCopier& copier, const ForkOptions& options);

}  // namespace stream_tools
