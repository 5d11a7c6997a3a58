#include "stream_tools/dma_bridge_test.hpp"

#include <cinttypes>

#include "stream_test/report.hpp"
#include "stream_tools/xdma_stream_device.hpp"

namespace stream_tools {
namespace {

bool enabled(const DmaBridgeTestOptions& options, const std::string& test) {
    return options.enabled.empty() || options.enabled.count(test) != 0;
}

void design_header(const identify::IdentifiedDesign& design, uint64_t memory_size, std::FILE* out) {
    // Designs with a board version register (Lite/NiteFury Project-0) name it, as fpga_sio does.
    char version[32] = "";
    if (design.board_version)
        std::snprintf(version, sizeof version, " version 0x%x", *design.board_version);
    std::fprintf(out, "Testing %s design%s with memory size 0x%" PRIx64 "\nPCI device %s IOMMU group %d\n",
                 design.design->name.c_str(), version, memory_size, design.identity.address.to_string().c_str(),
                 design.identity.iommu_group);
}

using MemoryTest = MemoryTestResult (*)(vfio::Device&, CardDma&, const MemoryTestOptions&, std::FILE*);

// One memory test on every channel pair; false when any failed.
bool run_memory_test(identify::IdentifiedDesign& design, const std::string& name, MemoryTest test,
                     const MemoryTestOptions& memory, const DmaBridgeTestOptions& options, bool first_pair_only,
                     std::FILE* out) {
    const unsigned h2c = design.dma_bridge->num_h2c(), c2h = design.dma_bridge->num_c2h();
    bool all_passed = true;
    unsigned combinations = 0;
    design_header(design, memory.memory_size, out);
    for (unsigned h = 0; h < h2c; ++h) {
        for (unsigned c = 0; c < c2h; ++c) {
            if (combinations++ >= options.max_channel_combinations || (first_pair_only && combinations > 1))
                return all_passed;
            CardDma::Options dma_options;
            dma_options.dma_bar = design.dma_bridge->bar;
            dma_options.h2c_channel = h;
            dma_options.c2h_channel = c;
            dma_options.timeout = memory.timeout;
            dma_options.ring_descriptors = name == "memory_variable_transfers" ? 1023 : 64;
            auto dma = CardDma::open(*design.device, dma_options);
            if (!dma.ok()) {
                std::fprintf(out, "TEST FAIL:\n  H2C failure : %s\n", dma.error().message().c_str());
                all_passed = false;
                continue;
            }
            all_passed = test(*design.device, *dma, memory, out).passed && all_passed;
            (void)dma->stop();
        }
    }
    return all_passed;
}

bool run_memory_design(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, std::FILE* out) {
    MemoryTestOptions memory = options.memory;
    memory.memory_base = options.memory_base_override.value_or(design.dma_bridge->memory_base);
    memory.memory_size = options.memory_size_override.value_or(design.dma_bridge->memory_size);
    bool passed = true;
    const std::pair<const char*, MemoryTest> tests[] = {{"memory_fixed_buffers", memory_fixed_buffers},
                                                        {"memory_variable_transfers", memory_variable_transfers},
                                                        {"memory_host_chunks", memory_host_chunks},
                                                        {"memory_addressing", memory_addressing}};
    for (const auto& [name, test] : tests)
        if (enabled(options, name))
            passed = run_memory_test(design, name, test, memory, options,
                                     std::string(name) == "memory_addressing", out) && passed;
    return passed;
}

// A fixed amount of data (min_words per pair) through each loopback route, checked in full.
bool run_stream_design(identify::IdentifiedDesign design, const DmaBridgeTestOptions& options, std::FILE* out) {
    OpenOptions open;
    open.timeout = options.stream.test.transfer_timeout;
    auto device = make_xdma_stream_device(std::move(design), open);
    if (!device.ok()) {
        std::fprintf(out, "TEST FAIL:\n  H2C failure : %s\n", device.error().message().c_str());
        return false;
    }
    bool passed = true;
    const size_t buffers = options.stream.num_descriptors;
    const uint64_t size = (options.stream.mapping_size / buffers) & ~uint64_t{3};
    for (const LoopRoute& route : (*device)->routes()) {
        std::fprintf(out, "Testing using %zu buffers of size 0x%" PRIx64 " bytes, H2C channel %u C2H channel %u\n",
                     buffers, size, route.h2c, route.c2h);
        std::fflush(out);
        const ChannelBuffers channel_buffers{buffers, size, options.stream.allocation};
        auto h2c = (*device)->open_channel(streams::Direction::H2C, route.h2c, channel_buffers);
        auto c2h = (*device)->open_channel(streams::Direction::C2H, route.c2h, channel_buffers);
        if (!h2c.ok() || !c2h.ok()) {
            std::fprintf(out, "TEST FAIL:\n  %s failure : %s\n", h2c.ok() ? "C2H" : "H2C",
                         (h2c.ok() ? c2h.error() : h2c.error()).message().c_str());
            passed = false;
            continue;
        }
        stream_test::Options test_options = options.stream.test;
        test_options.duration.reset();
        test_options.report_interval = std::chrono::hours(24);
        test_options.bytes_per_source = options.memory.min_words * 4;
        stream_test::StreamTest test(test_options);
        const size_t source = *test.add_source(**h2c, 0);
        test.add_pair_row("host-to-card and card-to-host DMA", *test.add_sink(**c2h, source));
        struct Quiet : stream_test::Observer {
            void on_interval(const std::vector<std::pair<std::string, stream_test::Interval>>&) override {}
        } quiet;
        const stream_test::Summary summary = test.run(quiet);
        const auto& row = summary.rows.front();
        std::fprintf(out, "%s\n", stream_test::format_rate_line(row.label, row.total).c_str());
        if (summary.passed()) {
            std::fprintf(out, "Test pattern verified in %" PRIu64 " words\nTEST PASS\n", row.words_verified);
        } else {
            const stream_test::Failure& f = summary.failures.front();
            std::fprintf(out, "TEST FAIL:\n  %s failure : %s %s\n", f.channel.find("H2C") != std::string::npos ? "H2C" : "C2H",
                         f.channel.c_str(), f.message.c_str());
            passed = false;
        }
    }
    return passed;
}

}  // namespace

int run_test_dma_bridge(std::vector<identify::IdentifiedDesign>& designs, const DmaBridgeTestOptions& options,
                        std::FILE* out) {
    bool passed = true;
    unsigned tested = 0;
    for (identify::IdentifiedDesign& design : designs) {
        if (!design.dma_bridge || !design.device)
            continue;
        if (design.dma_bridge->num_h2c() == 0 || design.dma_bridge->num_c2h() == 0) {
            std::fprintf(out, "Skipping design %s num_h2c_channels=%u num_c2h_channels=%u\n", design.design->name.c_str(),
                         design.dma_bridge->num_h2c(), design.dma_bridge->num_c2h());
            continue;
        }
        if (!design.device->enable_bus_master().ok())
            passed = false;
        if (design.dma_bridge->mode == designs::DmaMode::MemoryMapped) {
            ++tested;
            passed = run_memory_design(design, options, out) && passed;
        } else if (enabled(options, "stream_fixed_buffers")) {
            ++tested;
            passed = run_stream_design(std::move(design), options, out) && passed;
        }
        std::fflush(out);
    }
    if (tested == 0)
        std::fprintf(out, "No design with a DMA bridge was tested\n");
    std::fprintf(out, "Overall %s\n", passed && tested > 0 ? "PASS" : "FAIL");
    std::fflush(out);
    return passed && tested > 0 ? 0 : 1;
}

}  // namespace stream_tools
