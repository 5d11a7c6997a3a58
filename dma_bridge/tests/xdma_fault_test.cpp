// Every fault the model injects, and the engine errors of bad programming: each is detected
// and named distinctly, and recover() makes the channel usable again.
#include <chrono>
#include <mutex>

#include "dma_bridge/xdma_register_dump.hpp"

#include "xdma_rig.hpp"

using namespace xdma_test;
using namespace std::chrono_literals;
using sim::XdmaDirection;
using sim::XdmaFault;

namespace {

constexpr uint64_t kCard = 0x80000000ull;
// Transfers expected to succeed get a generous wait (a loaded machine under ASan); the
// engines' own 200 ms timeout is for the ones expected to stall.
constexpr auto kPatience = 10s;

struct MemoryRig : Rig {
    explicit MemoryRig(RunMode mode = RunMode::Credits) : Rig(memory_design()) {
        h2c = engine({.direction = Direction::H2C, .mode = mode, .timeout = 200ms});
        c2h = engine({.direction = Direction::C2H, .mode = mode, .timeout = 200ms});
        src = region(0x1000, vfio::DmaAccess::DeviceRead);
        dst = region(0x1000, vfio::DmaAccess::DeviceWrite);
        fill(src.data(), 0x1000, 7);
    }
    // An H2C transfer that must fail; returns the error's message. An error the engine reports
    // is waited for with patience (a loaded machine may not run the model within 200 ms); a
    // stall or hang is waited for with the engine's own 200 ms timeout (stalled = true), once
    // the engine has taken it: had the driver's timeout run out first, recover() would clear
    // Run before the engine stalled, and the fault would hit a later transfer instead.
    std::string failing_h2c(uint64_t iova, uint64_t card, bool stalled = false) {
        EXPECT_TRUE(h2c->submit_memory(iova, card, 256).ok());
        if (stalled) {
            EXPECT_TRUE(fault_applied(*model, XdmaDirection::H2C, 0)) << "the engine did not take the fault in 10 s";
        }
        auto done = stalled ? h2c->wait() : h2c->wait(kPatience);
        EXPECT_FALSE(done.ok());
        return done.ok() ? std::string() : done.error().message();
    }
    void expect_round_trip_works() {
        ASSERT_TRUE(h2c->submit_memory(src.iova(), kCard, 256).ok());
        auto done = h2c->wait(kPatience);
        ASSERT_TRUE(done.ok()) << done.error().message();
        ASSERT_TRUE(c2h->submit_memory(dst.iova(), kCard, 256).ok());
        ASSERT_TRUE(c2h->wait(kPatience).ok());
        EXPECT_EQ(std::memcmp(dst.data(), src.data(), 256), 0);
    }
    std::unique_ptr<xdma::Engine> h2c, c2h;
    vfio::DmaRegion src, dst;
};

}  // namespace

TEST(XdmaFaults, EngineStallTimesOutWithDiagnosticsAndRecovers) {
    MemoryRig rig;
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::EngineStall);
    const std::string message = rig.failing_h2c(rig.src.iova(), kCard, /*stalled=*/true);
    EXPECT_TRUE(has(message, "H2C 0 transfer 0000:15:00.0: Connection timed out")) << message;
    EXPECT_TRUE(has(message, "Timeout after 200 ms")) << message;
    EXPECT_TRUE(has(message, "status 0x00000001 (busy)")) << message;
    EXPECT_TRUE(has(message, "descriptors_started=1 descriptors_completed=0")) << message;
    ASSERT_TRUE(rig.h2c->recover().ok());
    EXPECT_FALSE(rig.h2c->busy());
    rig.expect_round_trip_works();
}

TEST(XdmaFaults, HungEngineNeedsADeviceReset) {
    MemoryRig rig;
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::EngineHang);
    const std::string message = rig.failing_h2c(rig.src.iova(), kCard, /*stalled=*/true);
    EXPECT_TRUE(has(message, "Timeout after 200 ms")) << message;
    auto recovered = rig.h2c->recover();
    ASSERT_FALSE(recovered.ok());
    EXPECT_EQ(recovered.error().code, ETIMEDOUT);
    EXPECT_TRUE(has(recovered.error().message(), "Timeout waiting to become idle after clearing Run bit"))
        << recovered.error().message();
    EXPECT_TRUE(has(recovered.error().message(), "VFIO_DEVICE_RESET")) << recovered.error().message();
    ASSERT_TRUE(rig.device->reset().ok());
    ASSERT_TRUE(rig.device->enable_bus_master().ok());
    ASSERT_TRUE(rig.h2c->recover().ok()) << "after the reset the channel reinitialises";
    ASSERT_TRUE(rig.c2h->recover().ok());
    rig.expect_round_trip_works();
}

TEST(XdmaFaults, DescriptorReadErrorIsNamedLatchedAndRecovered) {
    MemoryRig rig;
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::DescriptorReadError);
    const std::string message = rig.failing_h2c(rig.src.iova(), kCard);
    EXPECT_TRUE(has(message, "descriptor error reported in descriptor write back")) << message;
    EXPECT_TRUE(has(message, "desc_error(unsupported request)")) << message;
    auto latched = rig.h2c->submit_memory(rig.src.iova(), kCard, 64);
    ASSERT_FALSE(latched.ok());
    EXPECT_EQ(latched.error().message(), message) << "the first failure stays until recover()";
    ASSERT_TRUE(rig.h2c->recover().ok());
    rig.expect_round_trip_works();
}

TEST(XdmaFaults, BadMagicIsMagicStopped) {
    MemoryRig rig;
    rig.model->inject(XdmaDirection::C2H, 0, XdmaFault::BadMagic);
    ASSERT_TRUE(rig.c2h->submit_memory(rig.dst.iova(), kCard, 64).ok());
    auto done = rig.c2h->wait();
    ASSERT_FALSE(done.ok());
    EXPECT_EQ(done.error().code, EIO);
    EXPECT_TRUE(has(done.error().message(), "magic_stopped: a descriptor's magic was not 0xAD4B")) << done.error().message();
    EXPECT_TRUE(has(done.error().message(), "C2H 0 transfer")) << done.error().message();
    ASSERT_TRUE(rig.c2h->recover().ok());
    rig.expect_round_trip_works();
}

TEST(XdmaFaults, UnmappedHostSourceIsAnH2cReadError) {
    MemoryRig rig;
    const std::string message = rig.failing_h2c(0x7f0000000000ull, kCard);
    EXPECT_TRUE(has(message, "read error reported")) << message;
    EXPECT_TRUE(has(message, "read_error(unsupported request)")) << message;
    EXPECT_FALSE(rig.device->iommu().faults().empty()) << "the IOMMU logged the fault";
}

TEST(XdmaFaults, CardAddressOutsideMemoryIsADecodeError) {
    MemoryRig rig;
    const std::string message = rig.failing_h2c(rig.src.iova(), kCard + 0x100000 - 16);
    EXPECT_TRUE(has(message, "write error reported")) << message;
    EXPECT_TRUE(has(message, "write_error(decode)")) << message;
    ASSERT_TRUE(rig.c2h->submit_memory(rig.dst.iova(), 0x1000, 64).ok());
    auto done = rig.c2h->wait();
    ASSERT_FALSE(done.ok());
    EXPECT_TRUE(has(done.error().message(), "read_error(decode)")) << done.error().message();
}

TEST(XdmaFaults, StopListEngineReportsErrorsThroughTheStatusRegister) {
    Rig rig(memory_design());
    auto h2c = rig.engine({.direction = Direction::H2C, .mode = RunMode::StopList,
                           .completion = xdma::CompletionMethod::StatusRegister, .timeout = 200ms});
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::BadMagic);
    ASSERT_TRUE(h2c->submit_memory(src.iova(), kCard, 64).ok());
    auto done = h2c->wait();
    ASSERT_FALSE(done.ok());
    EXPECT_TRUE(has(done.error().message(), "magic_stopped: a descriptor's magic was not 0xAD4B reported in status register"))
        << done.error().message();
    ASSERT_TRUE(h2c->recover().ok());
    ASSERT_TRUE(h2c->submit_memory(src.iova(), kCard, 64).ok());
    EXPECT_TRUE(h2c->wait(kPatience).ok());
}

TEST(XdmaFaults, UnalignedAddressesAreRefusedBeforeTheEngineSeesThem) {
    auto config = memory_design();
    config.address_alignment = 64;
    Rig rig(config);
    auto h2c = rig.engine({.direction = Direction::H2C, .timeout = 200ms});
    ASSERT_EQ(h2c->info().address_alignment, 64u);
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    auto bad = h2c->submit_memory(src.iova() + 8, kCard, 64);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, EINVAL);
    EXPECT_TRUE(has(bad.error().message(), "is not a multiple of the channel's address alignment of 64 bytes"))
        << bad.error().message();
    EXPECT_FALSE(h2c->submit_memory(src.iova(), kCard + 32, 64).ok()) << "card address too";
    ASSERT_TRUE(h2c->submit_memory(src.iova(), kCard + 64, 64).ok()) << "not latched: a usage error";
    EXPECT_TRUE(h2c->wait(kPatience).ok());
}

TEST(XdmaFaults, DataBitFlipShowsInTheDataOnly) {
    MemoryRig rig;
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::DataBitFlip);
    ASSERT_TRUE(rig.h2c->submit_memory(rig.src.iova(), kCard, 256).ok());
    ASSERT_TRUE(rig.h2c->wait(kPatience).ok()) << "the engine cannot see a flipped bit";
    ASSERT_TRUE(rig.c2h->submit_memory(rig.dst.iova(), kCard, 256).ok());
    ASSERT_TRUE(rig.c2h->wait(kPatience).ok());
    EXPECT_EQ(rig.dst.data()[0], rig.src.data()[0] ^ 0x01) << "bit 0 of the first byte flipped";
    EXPECT_EQ(std::memcmp(rig.dst.data() + 1, rig.src.data() + 1, 255), 0);
}

// ---- Stream faults: what the receiver sees ---------------------------------------------------

namespace {

struct StreamRig : Rig {
    StreamRig() : Rig(stream_design()) {
        h2c = engine({.direction = Direction::H2C, .stream = true, .timeout = 200ms});
        c2h = engine({.direction = Direction::C2H, .stream = true, .timeout = 200ms});
        src = region(0x1000, vfio::DmaAccess::DeviceRead);
        dst = region(0x1000, vfio::DmaAccess::DeviceWrite);
        for (int p = 0; p < 3; ++p)
            std::memset(src.data() + p * 64, 'A' + p, 64);  // packets "A", "B", "C"
    }
    // Sends packets A, B, C and returns the first byte of each packet received ('.' when none).
    std::string exchange(std::vector<uint64_t>* lengths = nullptr) {
        for (int p = 0; p < 3; ++p)
            EXPECT_TRUE(c2h->submit_stream(dst.iova() + p * 256, 256, false).ok());
        for (int p = 0; p < 3; ++p)
            EXPECT_TRUE(h2c->submit_stream(src.iova() + p * 64, 64, true).ok());
        std::string seen;
        for (int p = 0; p < 3; ++p) {
            EXPECT_TRUE(h2c->wait(kPatience).ok());
            auto got = c2h->wait(p == 2 ? 500ms : kPatience);
            seen += got.ok() ? static_cast<char>(dst.data()[p * 256]) : '.';
            if (lengths && got.ok())
                lengths->push_back(got->length);
        }
        return seen;
    }
    std::unique_ptr<xdma::Engine> h2c, c2h;
    vfio::DmaRegion src, dst;
};

}  // namespace

TEST(XdmaStreamFaults, NoFaultDeliversInOrder) { EXPECT_EQ(StreamRig().exchange(), "ABC"); }

TEST(XdmaStreamFaults, DroppedPacket) {
    StreamRig rig;
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::DropPacket);
    EXPECT_EQ(rig.exchange(), "BC.");
}

TEST(XdmaStreamFaults, DuplicatedPacket) {
    StreamRig rig;
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::DuplicatePacket);
    EXPECT_EQ(rig.exchange(), "AAB");
}

TEST(XdmaStreamFaults, ReorderedPacket) {
    StreamRig rig;
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::ReorderPacket);
    EXPECT_EQ(rig.exchange(), "BAC");
}

TEST(XdmaStreamFaults, ShortC2hLength) {
    StreamRig rig;
    rig.model->inject(XdmaDirection::C2H, 0, XdmaFault::ShortC2hLength);
    std::vector<uint64_t> lengths;
    EXPECT_EQ(rig.exchange(&lengths), "ABC");
    EXPECT_EQ(lengths, (std::vector<uint64_t>{60, 64, 64}));
}

TEST(XdmaStreamFaults, MissingC2hWritebackIsIncorrectMagic) {
    StreamRig rig;
    // Control bit 27 disables the C2H stream writeback: the records stay zero.
    ASSERT_TRUE(rig.device->bar(0).value()->write(0x1008, 4, 1u << 27).ok());
    ASSERT_TRUE(rig.c2h->submit_stream(rig.dst.iova(), 256, false).ok());
    ASSERT_TRUE(rig.h2c->submit_stream(rig.src.iova(), 64, true).ok());
    auto got = rig.c2h->wait();
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().code, EPROTO);
    EXPECT_TRUE(has(got.error().message(), "Incorrect stream wb_magic_status 0x00000000")) << got.error().message();
}

TEST(XdmaStreamFaults, C2hWithoutDataTimesOutAndRecovers) {
    StreamRig rig;
    ASSERT_TRUE(rig.c2h->submit_stream(rig.dst.iova(), 256, false).ok());
    auto got = rig.c2h->wait(50ms);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().code, ETIMEDOUT);
    EXPECT_TRUE(has(got.error().message(), "C2H 0 transfer")) << got.error().message();
    ASSERT_TRUE(rig.c2h->recover().ok());
    EXPECT_EQ(rig.exchange(), "ABC");
}

// A failure reaches the process's observer with the engine's registers decoded by PG195 name,
// read at the failure: a timeout after the whole transfer timeout, and a latched error; a wait
// shorter than the transfer timeout (a caller's slice) is not a failure.
TEST(XdmaFaults, FailuresReachTheObserverWithDecodedRegisters) {
    std::vector<xdma::FailureReport> reports;
    std::mutex mutex;
    xdma::set_failure_observer([&](const xdma::FailureReport& r) {
        std::lock_guard lock(mutex);
        reports.push_back(r);
    });
    struct Unset {
        ~Unset() { xdma::set_failure_observer({}); }  // also when an assertion returns early
    } unset;
    MemoryRig rig;
    rig.model->inject(XdmaDirection::H2C, 0, XdmaFault::EngineStall);
    ASSERT_TRUE(rig.h2c->submit_memory(rig.src.iova(), kCard, 256).ok());
    EXPECT_FALSE(rig.h2c->wait(20ms).ok());
    EXPECT_TRUE(reports.empty()) << "a 20 ms slice of a 200 ms transfer timeout is no failure";
    EXPECT_FALSE(rig.h2c->wait().ok());
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].engine, "0000:15:00.0 H2C 0");
    EXPECT_TRUE(has(reports[0].what, "Timeout after 200 ms")) << reports[0].what;
    EXPECT_EQ(reports[0].device, rig.device.get());
    std::string dump;
    for (const std::string& line : reports[0].registers)
        dump += line + "\n";
    EXPECT_TRUE(has(dump, "H2C Channel 0 Status (0x0040) = 0x00000001: busy+ descriptor_stopped-")) << dump;
    EXPECT_TRUE(has(dump, "H2C Channel 0 Control (0x0004) = ")) << dump;
    EXPECT_TRUE(has(dump, ": run+ ")) << dump;
    EXPECT_TRUE(has(dump, "H2C Channel 0 Completed Descriptor Count (0x0048) = 0x00000000: 0")) << dump;
    EXPECT_TRUE(has(dump, "H2C Channel 0 Alignments (0x004c) = ")) << dump;
    EXPECT_TRUE(has(dump, "H2C Channel 0 Poll Mode High Write Back Address (0x008c)")) << dump;
    EXPECT_TRUE(has(dump, "H2C SGDMA 0 Descriptor Credits (0x408c) = 0x00000001: 1")) << dump;
    EXPECT_TRUE(has(dump, "SGDMA Common Descriptor Credit Mode Enable (0x6020)")) << dump;
    ASSERT_TRUE(rig.h2c->recover().ok());

    rig.model->inject(XdmaDirection::C2H, 0, XdmaFault::DescriptorReadError);
    ASSERT_TRUE(rig.c2h->submit_memory(rig.dst.iova(), kCard, 64).ok());
    EXPECT_FALSE(rig.c2h->wait().ok());
    ASSERT_EQ(reports.size(), 2u);
    EXPECT_EQ(reports[1].engine, "0000:15:00.0 C2H 0");
    dump.clear();
    for (const std::string& line : reports[1].registers)
        dump += line + "\n";
    EXPECT_TRUE(has(dump, "desc_error: unsupported_request+ completer_abort-")) << dump;
    EXPECT_TRUE(has(dump, "C2H Channel 0 Status (0x1040) = 0x00080000: busy-")) << dump;
}

TEST(XdmaRegisterDump, ControlAndStatusDecodeEveryField) {
    EXPECT_EQ(xdma::decode_status_bits(Direction::C2H, 1u << 9 | 1u << 4),
              "busy- descriptor_stopped- descriptor_completed- align_mismatch- magic_stopped+ invalid_length- "
              "idle_stopped-, read_error: decode+ slave- bit11- bit12- bit13-, write_error: decode- slave- bit16- "
              "bit17- bit18-, desc_error: unsupported_request- completer_abort- parity- header_ep- "
              "unexpected_completion-");
    const std::string control = xdma::decode_control_bits(Direction::H2C, 1u | 1u << 26);
    EXPECT_TRUE(has(control, "run+ ie_descriptor_stopped-")) << control;
    EXPECT_TRUE(has(control, "pollmode_wb_enable+ stream_wb_disable-")) << control;
    EXPECT_FALSE(has(xdma::decode_enable_bits(Direction::H2C, 0), "run")) << "the mask has no Run bit";
}
