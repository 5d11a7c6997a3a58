// Design data to model: the XDMA IP options of dma_bridge.xdma_ip / simulation.xdma_ip, the
// busy time after a stop, a DMA BAR below 64 KiB, wildcard subsystem IDs and enumeration-only
// bridges reach the simulated XDMA; the test design files in sim/tests/designs/ load and
// instantiate; card memory of the largest built-in design costs no host memory until written.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"

namespace {

std::string test_design(const std::string& name) { return std::string(PDT_SIM_TEST_DESIGNS) + "/" + name + ".json"; }

struct Loaded {
    designs::Registry registry;
    sim::DesignInstance instance;
};

Loaded load(const std::string& name, bool from_test_file = true) {
    Loaded l{from_test_file ? designs::Registry::load({test_design(name)}).value() : designs::Registry::builtin().value(),
             {}};
    const designs::Design* d = l.registry.find(name);
    EXPECT_NE(d, nullptr) << name;
    auto made = sim::instantiate_design(*d, sim::simulated_identity(*d, sim::simulated_address(0), 41), true);
    EXPECT_TRUE(made.ok()) << made.error().message();
    l.instance = std::move(made).value();
    return l;
}

uint32_t read32(vfio::Device& device, unsigned bar, uint64_t offset) {
    return static_cast<uint32_t>(device.bar(bar).value()->read(offset, 4).value());
}

// Resident set size of this process in KiB (/proc/self/status VmRSS).
uint64_t rss_kib() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stoull(line.substr(6));
    return 0;
}

}  // namespace

TEST(DesignIpOptions, EachTestDesignFileGivesItsXdmaConfiguration) {
    // One XDMA IP configuration a row: its memory-mapped design and its stream design (nullptr:
    // none), which share the IP's options.
    struct Expect {
        const char* mm;
        const char* stream;
        bool credits, poll_wb, interrupts;
        long busy_us;
    } cases[] = {
        {"test_xdma_no_credits_mm", "test_xdma_no_credits_stream", false, true, true, 0},
        {"test_xdma_no_poll_wb_mm", "test_xdma_no_poll_wb_stream", true, false, true, 0},
        {"test_xdma_small_bar_mm", "test_xdma_small_bar_stream", true, true, true, 0},
        {"test_xdma_interrupts_only_mm", "test_xdma_interrupts_only_stream", false, false, true, 0},
        {"test_xdma_busy_after_stop_mm", "test_xdma_busy_after_stop_stream", false, true, true, 2000},
        {"test_xdma_no_interrupts_mm", nullptr, true, true, false, 0},
        {"test_xdma_any_subsystem", nullptr, true, true, true, 0},
    };
    for (const Expect& e : cases)
        for (const bool stream : {false, true}) {
            const char* name = stream ? e.stream : e.mm;
            if (!name)
                continue;
            Loaded l = load(name);
            ASSERT_NE(l.instance.xdma, nullptr) << name;
            const sim::XdmaConfig& c = l.instance.xdma->config();
            EXPECT_EQ(c.descriptor_credits, e.credits) << name;
            EXPECT_EQ(c.poll_mode_writeback, e.poll_wb) << name;
            EXPECT_EQ(c.interrupts, e.interrupts) << name;
            EXPECT_EQ(c.busy_after_stop.count(), e.busy_us) << name;
            EXPECT_EQ(c.stream, stream) << name;
            EXPECT_TRUE(c.card_memory_present) << name;
        }
}

TEST(DesignIpOptions, AllTestDesignFilesLoadTogetherAndInstantiate) {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(PDT_SIM_TEST_DESIGNS))
        files.push_back(entry.path().string());
    ASSERT_EQ(files.size(), 13u) << "a new test design file needs its row in EachTestDesignFileGivesItsXdmaConfiguration";
    auto registry = designs::Registry::load(files);
    ASSERT_TRUE(registry.ok()) << registry.error().message();
    for (const designs::Design& d : registry->designs()) {
        if (d.source.rfind("built-in", 0) == 0)
            continue;
        auto made = sim::instantiate_design(d, sim::simulated_identity(d, sim::simulated_address(0), 41), true);
        ASSERT_TRUE(made.ok()) << d.name << ": " << made.error().message();
        EXPECT_EQ(registry->match(made.value().device->identity()), &d) << d.name << " identifies as itself";
    }
}

TEST(DesignIpOptions, AlignmentsReachTheChannelAlignmentsRegister) {
    Loaded l = load("test_xdma_aligned_mm");
    EXPECT_EQ(l.instance.xdma->config().address_alignment, 64u);
    EXPECT_EQ(l.instance.xdma->config().length_granularity, 64u);
    EXPECT_EQ(read32(*l.instance.device, 0, 0x004C), 0x00404040u) << "H2C 0 Alignments";
    EXPECT_EQ(read32(*l.instance.device, 0, 0x104C), 0x00404040u) << "C2H 0 Alignments";
}

TEST(DesignIpOptions, StatedOptionsAreKeptApartFromSimulatedOnes) {
    Loaded stated = load("test_xdma_no_credits_mm");
    EXPECT_EQ(stated.registry.find("test_xdma_no_credits_mm")->dma_bridge->xdma_ip.descriptor_credits, false);
    Loaded probed = load("test_xdma_no_credits_stream");
    const designs::Design* d = probed.registry.find("test_xdma_no_credits_stream");
    EXPECT_FALSE(d->dma_bridge->xdma_ip.descriptor_credits.has_value()) << "not stated: the driver probes";
    EXPECT_EQ(d->simulation.xdma_ip.descriptor_credits, false);
}

TEST(DesignIpOptions, CreditsOffDesignReadsCreditRegistersAsZero) {
    Loaded l = load("test_xdma_no_credits_stream");
    vfio::Device& dev = *l.instance.device;
    ASSERT_TRUE(dev.bar(0).value()->write(0x6024, 4, 0x1).ok());
    EXPECT_EQ(read32(dev, 0, 0x6020), 0u);
    Loaded on = load("test_xdma_small_bar_stream");
    ASSERT_TRUE(on.instance.device->bar(0).value()->write(0x6024, 4, 0x1).ok());
    EXPECT_EQ(read32(*on.instance.device, 0, 0x6020), 1u) << "credits implemented by default";
}

TEST(DesignIpOptions, SmallDmaBarHoldsTheRegisterBlocksThatFit) {
    Loaded l = load("test_xdma_small_bar_mm");
    vfio::Bar* bar = l.instance.device->bar(0).value();
    EXPECT_EQ(bar->size(), 0x8000u);
    EXPECT_EQ(read32(*l.instance.device, 0, 0x6000), 0x1FC60006u);
    EXPECT_EQ(read32(*l.instance.device, 0, 0x1000), 0x1FC10006u);
}

TEST(DesignIpOptions, WildcardSubsystemIdsMatchAnyValue) {
    Loaded l = load("test_xdma_any_subsystem");
    const vfio::DeviceIdentity& id = l.instance.device->identity();
    EXPECT_EQ(id.subsystem_vendor_id, 0x10ee) << "the IP's default subsystem IDs when simulated";
    EXPECT_EQ(id.subsystem_device_id, 0x0007);
    const designs::Design* d = l.registry.find("test_xdma_any_subsystem");
    vfio::DeviceIdentity other = id;
    other.subsystem_vendor_id = 0x1234;
    other.subsystem_device_id = 0xabcd;
    EXPECT_TRUE(d->match.matches(other));
    other.device_id = 0x9032;
    EXPECT_FALSE(d->match.matches(other)) << "the device ID still has to match";
}

TEST(DesignIpOptions, EnumerationOnlyDesignsHaveNoMemoryBehindTheBridge) {
    for (const char* name : {"AS02MC04_enum", "U200_enum", "VD100_enum", "U200_slr_ids"}) {
        Loaded l = load(name, false);
        ASSERT_NE(l.instance.xdma, nullptr) << name;
        EXPECT_FALSE(l.instance.xdma->config().card_memory_present) << name;
        EXPECT_EQ(l.instance.xdma->config().card_memory_size, 0x1000u) << name << ": fpga_sio's \"MM 4096\"";
    }
    Loaded ddr = load("TEF1001_dma_ddr3", false);
    EXPECT_TRUE(ddr.instance.xdma->config().card_memory_present);
}

TEST(DesignIpOptions, EnumerationOnlyDesignDmaNeverCompletes) {
    Loaded l = load("U200_enum", false);
    vfio::Device& dev = *l.instance.device;
    ASSERT_TRUE(dev.enable_bus_master().ok());
    alignas(4096) static uint8_t host[0x2000] = {};
    ASSERT_TRUE(dev.dma_map(0x200000, host, sizeof host, vfio::DmaAccess::DeviceReadWrite).ok());
    const uint32_t word0 = 0xAD4Bu << 16 | 0x13;  // STOP | COMPLETED | EOP
    const uint32_t length = 64;
    const uint64_t src = 0x201000, dst = 0, nxt = 0;
    std::memcpy(host, &word0, 4);
    std::memcpy(host + 4, &length, 4);
    std::memcpy(host + 8, &src, 8);
    std::memcpy(host + 16, &dst, 8);
    std::memcpy(host + 24, &nxt, 8);
    vfio::Bar* bar = dev.bar(1).value();
    ASSERT_TRUE(bar->write(0x4080, 4, 0x200000).ok());
    ASSERT_TRUE(bar->write(0x0004, 4, 0x7).ok());  // ie_descriptor_stopped | completed | Run
    l.instance.xdma->run_until_idle();
    EXPECT_EQ(read32(dev, 1, 0x0040), 1u) << "busy, never stopped";
    EXPECT_EQ(read32(dev, 1, 0x0048), 0u);
}

TEST(DesignIpOptions, LargestBuiltInCardMemoryCostsNoHostMemoryUntilWritten) {
    const designs::Registry registry = designs::Registry::builtin().value();
    const designs::Design* largest = nullptr;
    uint64_t largest_size = 0;
    for (const designs::Design& d : registry.designs())
        if (d.dma_bridge && d.dma_bridge->mode == designs::DmaMode::MemoryMapped) {
            const uint64_t size = d.dma_bridge->memory_for_revision(d.simulation.revision).size;
            if (size > largest_size)
                largest = &d, largest_size = size;
        }
    ASSERT_NE(largest, nullptr);
    ASSERT_GE(largest_size, 8ull << 30) << "a built-in design has at least 8 GiB (TEF1001_dma_ddr3)";

    const uint64_t before = rss_kib();
    auto made = sim::instantiate_design(*largest, sim::simulated_identity(*largest, sim::simulated_address(0), 41), true);
    ASSERT_TRUE(made.ok()) << made.error().message();
    sim::XdmaModel& xdma = *made.value().xdma;
    const uint64_t base = xdma.config().card_memory_base, size = xdma.config().card_memory_size;
    // A byte at each end and every 1 GiB: a handful of 64 KiB pages.
    for (uint64_t at = 0; at < size; at += 1ull << 30) {
        const uint8_t v = static_cast<uint8_t>(at >> 30 | 1);
        ASSERT_TRUE(xdma.card_write(base + at, &v, 1));
    }
    const uint8_t last = 0x77;
    ASSERT_TRUE(xdma.card_write(base + size - 1, &last, 1));
    uint8_t read[2] = {};
    ASSERT_TRUE(xdma.card_read(base + size - 2, read, 2));
    EXPECT_EQ(read[0], 0u) << "unwritten bytes read as zero";
    EXPECT_EQ(read[1], 0x77u);
    EXPECT_EQ(xdma.card_memory_resident_bytes(), (size >> 30) * 0x10000 + 0x10000) << "one 64 KiB page per write";
    const uint64_t grown = rss_kib() - before;
    std::printf("%s: %llu GiB of card memory, RSS grew by %llu KiB\n", largest->name.c_str(),
                static_cast<unsigned long long>(size >> 30), static_cast<unsigned long long>(grown));
    EXPECT_LT(grown, 32u * 1024) << "KiB of host memory for a few written bytes of " << largest->name;
}

TEST(DesignIpOptions, CardMemoryReadWriteSpeedHolds) {
    Loaded l = load("TEF1001_dma_ddr3", false);
    sim::XdmaModel& xdma = *l.instance.xdma;
    constexpr uint64_t kChunk = 1 << 20, kTotal = 64ull << 20;
    std::vector<uint8_t> buffer(kChunk, 0xA5);
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    for (uint64_t at = 0; at < kTotal; at += kChunk)
        ASSERT_TRUE(xdma.card_write(at + 0x1000, buffer.data(), kChunk));  // unaligned to the 64 KiB pages
    const auto t1 = clock::now();
    for (uint64_t at = 0; at < kTotal; at += kChunk)
        ASSERT_TRUE(xdma.card_read(at + 0x1000, buffer.data(), kChunk));
    const auto t2 = clock::now();
    const double write_gbs = kTotal / std::chrono::duration<double>(t1 - t0).count() / 1e9;
    const double read_gbs = kTotal / std::chrono::duration<double>(t2 - t1).count() / 1e9;
    std::printf("card_write %.2f GB/s, card_read %.2f GB/s (64 MiB in 1 MiB pieces)\n", write_gbs, read_gbs);
    EXPECT_EQ(buffer[0], 0xA5);
    // A floor far below memcpy speed: a per-byte or per-page-allocation collapse fails it.
    EXPECT_GT(write_gbs, 0.05);
    EXPECT_GT(read_gbs, 0.05);
}
