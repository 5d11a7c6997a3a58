// memmapped_persistence (fpga_sio's name): writes a keyed pattern into a memory-backed region of
// a BAR (block RAM, a shared-memory BAR), then checks it from a new process and after a VFIO
// device reset (VFIO_DEVICE_RESET), and says whether the content stayed. The region is the
// user's to name: it must be memory; the XDMA DMA BAR and a design's peripheral registers are
// refused, as is a region past the BAR, a width the BAR cannot take or an unaligned offset,
// before any access. --access sysfs maps the BAR from the kernel's sysfs resource<N> file instead
// of opening the device through vfio-pci (which resets it): fpga_sio's
// memmapped_persistence_libpciaccess, the name under which it is the default; the content is
// then checked in a new process only (no VFIO_DEVICE_RESET). Exit status: 0 the content was
// kept, 1 it was not (or a device failed or the region was refused), 2 usage error.
#include "base/numbers.hpp"
#include "cli/invoked_name.hpp"
#include "memmapped_persistence_run.hpp"
#include "tool_support/bar_tool_main.hpp"

namespace po = boost::program_options;

namespace {

// --access's default: sysfs under fpga_sio's name memmapped_persistence_libpciaccess, else vfio.
std::string g_default_access = "vfio";

struct Options : cli::DeviceSelection {
    std::string bar, offset, size, width = "4", key = "1", access = g_default_access;
    bool write = false, verify = false, reset = false;
};

void add_persistence_options(po::options_description& desc, Options& o) {
    desc.add_options()("bar", po::value(&o.bar), "the BAR holding the memory (required)")(
        "offset", po::value(&o.offset), "byte offset of the region in the BAR (required)")(
        "size", po::value(&o.size), "bytes of the region (required; e.g. 4096, 4k)")(
        "width", po::value(&o.width), "access width in bytes: 1, 2, 4 or 8 (default 4)")(
        "key", po::value(&o.key), "the pattern's key (default 1)")(
        "write", po::bool_switch(&o.write), "only write the pattern (and read it back)")(
        "verify", po::bool_switch(&o.verify), "only compare the region with the pattern (no write)")(
        "reset", po::bool_switch(&o.reset), "only write, VFIO_DEVICE_RESET, compare")(
        "access", po::value(&o.access)->default_value(o.access),
        "vfio (open through vfio-pci, which resets the device) or sysfs (mmap the --device's "
        "/sys/bus/pci/devices/<bdf>/resource<N> as libpciaccess does: no reset, no VFIO)");
}

std::optional<std::string> parse_request(const Options& o, memmapped_persistence::Request& q) {
    if (o.bar.empty() || o.offset.empty() || o.size.empty())
        return "--bar, --offset and --size name the memory region: all three are required";
    if (int(o.write) + int(o.verify) + int(o.reset) > 1)
        return "--write, --verify and --reset each run one step: give at most one";
    if (auto error = tool_support::unnamed_device_error(o))
        return error;
    if (o.access != "vfio" && o.access != "sysfs")
        return "--access " + o.access + ": vfio or sysfs";
    q.sysfs = o.access == "sysfs";
    if (q.sysfs && !o.sim_designs.empty())
        return "--access sysfs maps a kernel device's BAR: name it with --device (a --sim_design has no sysfs files)";
    if (q.sysfs && o.reset)
        return "--reset is VFIO_DEVICE_RESET: not with --access sysfs, which opens no VFIO device";
    auto bar = pdt::parse_number("bar", o.bar, 0, 5);
    auto offset = pdt::parse_number("offset", o.offset, 0, UINT64_MAX);
    auto size = o.size.rfind("0x", 0) == 0 ? pdt::parse_number("size", o.size, 0, UINT64_MAX) : pdt::parse_size(o.size);
    auto width = pdt::parse_number("width", o.width, 1, 8);
    auto key = pdt::parse_number("key", o.key, 0, UINT64_MAX);
    if (auto error = tool_support::first_error(bar, offset, size, width, key))
        return error;
    if (*size > (256ull << 20))
        return "--size " + o.size + ": at most 256 MiB";
    q.region = {static_cast<unsigned>(*bar), *offset, *size, static_cast<unsigned>(*width)};
    q.key = *key;
    q.step = o.write    ? memmapped_persistence::Step::Write
             : o.verify ? memmapped_persistence::Step::Verify
             : o.reset  ? memmapped_persistence::Step::Reset
                        : memmapped_persistence::Step::All;
    q.selection = {o.sim_designs, o.devices};
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    if (cli::invoked_name(argc > 0 ? argv[0] : "") == "memmapped_persistence_libpciaccess")
        g_default_access = "sysfs";
    memmapped_persistence::Request request;
    request.argv.assign(argv, argv + argc);  // Step::All: the new process repeats the command line
    const char* summary = g_default_access == "sysfs"
                              ? "Checks whether a BAR's memory keeps its content across processes, mapped through sysfs "
                                "without VFIO (writes the region)."
                              : "Checks whether a BAR's memory keeps its content across processes and a VFIO device reset "
                                "(writes the region).";
    return tool_support::bar_tool_main<Options, memmapped_persistence::Request>(
        argc, argv, {summary, {}, add_persistence_options, parse_request, memmapped_persistence::run},
        std::move(request));
}
