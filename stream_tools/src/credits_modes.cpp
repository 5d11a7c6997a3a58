#include "stream_tools/credits_modes.hpp"

#include <sys/utsname.h>

#include <functional>
#include <iostream>

#include "base/numbers.hpp"
#include "dma_bridge/xdma_probe.hpp"
#include "edu/edu_device.hpp"
#include "stream_tools/card_dma.hpp"

namespace po = boost::program_options;

namespace stream_tools {
namespace {

bool is_edu(const vfio::Device& device) {
    return device.identity().vendor_id == edu::VENDOR_ID && device.identity().device_id == edu::DEVICE_ID;
}

// The simulated edu of --edu_sim, or each device of the selection.
int for_each_device(const designs::Registry& registry, tool_support::TargetSelection selection, bool edu_sim,
                    std::FILE* out, const std::function<int(const tool_support::DeviceTarget&)>& fn) {
    std::fflush(out);
    selection.edu_sim = edu_sim;
    return tool_support::for_each_target(registry, selection, std::cout, fn);
}

std::string kernel_release() {
    struct utsname name {};
    return ::uname(&name) == 0 ? name.release : "unknown";
}

class EduCopier final : public ForkCopier {
public:
    explicit EduCopier(edu::EduDevice device) : m_edu(std::move(device)) {}
    std::string name() const override { return m_edu.name(); }
    unsigned dma_mask_bits() const override { return edu::DMA_MASK_BITS; }
    uint64_t bytes() const override { return 4000; }  // edu's buffer holds 4095 (QEMU 7.2: below its last byte)
    pdt::Result<void> round_trip(const vfio::DmaRegion& source, const vfio::DmaRegion& destination) override {
        const auto bytes32 = static_cast<uint32_t>(bytes());
        PDT_CHECK(m_edu.dma_to_edu(source.iova(), 0, bytes32, edu::Wait::Poll));
        return m_edu.dma_from_edu(0, destination.iova(), bytes32, edu::Wait::Poll);
    }

private:
    edu::EduDevice m_edu;
};

// Card memory of an XDMA memory-mapped design: one page to card address memory_base and back,
// through H2C 0 and C2H 0 (card_dma.hpp).
class XdmaCopier final : public ForkCopier {
public:
    XdmaCopier(XdmaCardDma dma, std::string name, uint64_t card_address)
        : m_dma(std::move(dma)), m_name(std::move(name)), m_card(card_address) {}
    ~XdmaCopier() override { (void)m_dma.stop(); }
    std::string name() const override { return m_name; }
    unsigned dma_mask_bits() const override { return 64; }
    uint64_t bytes() const override { return 4096; }
    pdt::Result<void> round_trip(const vfio::DmaRegion& source, const vfio::DmaRegion& destination) override {
        return m_dma.round_trip(source, destination, {Chunk{0, m_card, bytes()}});
    }

private:
    XdmaCardDma m_dma;
    std::string m_name;
    uint64_t m_card;
};

// The copier of a target: an edu, or an XDMA memory-mapped design with card memory.
pdt::Result<std::unique_ptr<ForkCopier>> open_copier(const tool_support::DeviceTarget& t) {
    const std::string bdf = t.device->identity().address.to_string();
    if (is_edu(*t.device)) {
        auto edu = PDT_TRY(edu::EduDevice::attach(*t.device));
        PDT_TRY(t.device->enable_bus_master());
        return std::unique_ptr<ForkCopier>(std::make_unique<EduCopier>(std::move(edu)));
    }
    for (const designs::Design* d : t.designs)
        if (d->dma_bridge && d->dma_bridge->mode == designs::DmaMode::MemoryMapped && d->dma_bridge->memory_present &&
            d->dma_bridge->memory_size >= 4096) {
            XdmaCardDma::Options options;
            options.dma_bar = d->dma_bridge->bar;
            options.ip = {d->dma_bridge->xdma_ip.descriptor_credits, d->dma_bridge->xdma_ip.poll_mode_writeback,
                          d->dma_bridge->xdma_ip.interrupts};
            PDT_TRY(t.device->enable_bus_master());
            auto dma = PDT_TRY(XdmaCardDma::open(*t.device, options));
            return std::unique_ptr<ForkCopier>(
                std::make_unique<XdmaCopier>(std::move(dma), bdf + " card memory", d->dma_bridge->memory_base));
        }
    return pdt::make_error("fork test", bdf, ENOTSUP,
                           "--fork moves its transfers through QEMU's edu device (1234:11e8) or the card memory of an "
                           "XDMA memory-mapped design; this device is neither");
}

int reset_one(const tool_support::DeviceTarget& t, std::FILE* out) {
    const std::string bdf = t.device->identity().address.to_string();
    std::vector<vfio::ResetRegister> registers;
    std::vector<unsigned> widths{4};
    for (const designs::Design* d : t.designs)
        if (d->dma_bridge && registers.empty())
            registers = xdma::reset_test_registers(d->dma_bridge->bar);
    if (registers.empty() && is_edu(*t.device))
        registers = edu::reset_test_registers(), widths = {4, 8};
    if (registers.empty()) {
        std::fprintf(stderr, "Error: %s: reset test: no registers known for this device (an XDMA design's DMA engine "
                             "or QEMU's edu)\n", bdf.c_str());
        return 1;
    }
    std::fprintf(out, "Reset test %s (kernel %s): registers after open, after writing, after VFIO_DEVICE_RESET\n",
                 bdf.c_str(), t.simulated ? "none: simulated device" : kernel_release().c_str());
    auto report = vfio::registers_across_reset(*t.device, registers, widths);
    if (!report.ok()) {
        std::fprintf(stderr, "Error: %s: %s\n", bdf.c_str(), report.error().message().c_str());
        std::fprintf(out, "Reset test: FAIL\n");
        return 1;
    }
    for (const std::string& line : vfio::format_reset_report(*report))
        std::fprintf(out, "  %s\n", line.c_str());
    std::fprintf(out, "Reset test: PASS (%zu registers read after the reset)\n", registers.size());
    return 0;
}

int fork_one(const tool_support::DeviceTarget& t, const ForkOptions& options, std::FILE* out) {
    const std::string bdf = t.device->identity().address.to_string();
    auto copier = open_copier(t);
    if (!copier.ok()) {
        std::fprintf(stderr, "Error: %s: %s\n", bdf.c_str(), copier.error().message().c_str());
        std::fprintf(out, "Test: FAIL\n");
        return 1;
    }
    std::fprintf(out, "Kernel %s\n", t.simulated ? "none (simulated device: no kernel pins its buffers)" : kernel_release().c_str());
    auto outcome = stream_tools::run_fork_test(*t.device, **copier, options);
    if (!outcome.ok()) {
        std::fprintf(stderr, "Error: %s: %s\n", bdf.c_str(), outcome.error().message().c_str());
        std::fprintf(out, "Test: FAIL\n");
        return 1;
    }
    for (const std::string& line : outcome->lines)
        std::fprintf(out, "%s\n", line.c_str());
    if (outcome->corrupted) {
        std::fprintf(out, "Test: FAIL (the transfer was corrupted)\n");
        return 1;
    }
    std::fprintf(out, "Test: PASS (%llu bytes verified)\n", static_cast<unsigned long long>(outcome->bytes_verified));
    return 0;
}

}  // namespace

void add_credits_mode_options(po::options_description& d, CreditsModeTexts& t) {
    d.add_options()("reset_test,r", po::bool_switch(&t.reset_test),
                    "print the DMA engine's (or edu's) registers after open, after writing them and after "
                    "VFIO_DEVICE_RESET (no credit tests)")(
        "fork,f", po::value(&t.fork),
        "fork a child that touches the DMA buffers during a transfer (edu, XDMA card memory): none, "
        "no_dma_mapping_access, "
        "read_dma_mapping, write_dma_mapping or toggle_dma_mapping (no credit tests)")(
        "fork_mappings,a", po::value(&t.mappings), "with --fork: DMA mappings made before the fork: 0, 1 or 2 (default 2)")(
        "fork_buffers,b", po::value(&t.buffers), "with --fork: heap (default), shared_memory or huge_pages")(
        "dontfork,m", po::bool_switch(&t.dontfork), "with --fork: MADV_DONTFORK on the buffers mapped before the fork")(
        "iova_offsets,o", po::value(&t.iova_offsets),
        "<descriptor>,<H2C>,<C2H> IOVA offsets of an edu transfer, to provoke IOMMU faults (descriptor offset 0; "
        "no credit tests)")(
        "edu_sim", po::bool_switch(&t.edu_sim), "with --reset_test, --fork or --iova_offsets: a simulated edu instead of --device");
}

pdt::Result<CreditsModes> parse_credits_modes(const CreditsModeTexts& t) {
    CreditsModes modes;
    modes.reset_test = t.reset_test;
    modes.edu_sim = t.edu_sim;
    if (t.fork.empty() && (!t.mappings.empty() || !t.buffers.empty() || t.dontfork))
        return pdt::usage_error("parse option", "--fork_mappings/--fork_buffers/--dontfork",
                                "they shape a --fork run: give --fork too");
    if (int(t.reset_test) + int(!t.fork.empty()) + int(!t.iova_offsets.empty()) > 1)
        return pdt::usage_error("parse option", "--reset_test/--fork/--iova_offsets",
                                "each is a run of its own: give one");
    if (!t.iova_offsets.empty())
        modes.iova_offsets = PDT_TRY(parse_iova_offsets(t.iova_offsets));
    if (!t.fork.empty()) {
        ForkOptions fork;
        fork.touch = PDT_TRY(parse_fork_touch(t.fork));
        if (!t.mappings.empty())
            fork.mappings_before_fork = static_cast<unsigned>(PDT_TRY(pdt::parse_number("fork_mappings", t.mappings, 0, 2)));
        if (!t.buffers.empty())
            fork.buffers = PDT_TRY(parse_fork_buffers(t.buffers));
        fork.dontfork = t.dontfork;
        modes.fork = fork;
    }
    if (t.edu_sim && !modes.reset_test && !modes.fork && !modes.iova_offsets)
        return pdt::usage_error("parse option", "--edu_sim", "it serves --reset_test, --fork or --iova_offsets");
    return modes;
}

int run_reset_test(const designs::Registry& registry, const tool_support::TargetSelection& selection, bool edu_sim,
                   std::FILE* out) {
    return for_each_device(registry, selection, edu_sim, out,
                           [&](const tool_support::DeviceTarget& t) { return reset_one(t, out); });
}

int run_fork_test(const designs::Registry& registry, const tool_support::TargetSelection& selection,
                  const ForkOptions& options, bool edu_sim, std::FILE* out) {
    return for_each_device(registry, selection, edu_sim, out,
                           [&](const tool_support::DeviceTarget& t) { return fork_one(t, options, out); });
}

int run_iova_offsets(const designs::Registry& registry, const tool_support::TargetSelection& selection,
                     const IovaOffsets& offsets, bool edu_sim, std::FILE* out) {
    return for_each_device(registry, selection, edu_sim, out,
                           [&](const tool_support::DeviceTarget& t) { return run_iova_offsets_on(t, offsets, out); });
}

}  // namespace stream_tools
