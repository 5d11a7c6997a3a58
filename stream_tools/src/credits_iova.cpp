// test_dma_descriptor_credits -o (credits_modes.hpp): an edu transfer whose IOVAs are moved by
// offsets, to provoke IOMMU faults; what reached host memory is checked byte by byte.
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/format.hpp"
#include "base/numbers.hpp"
#include "edu/edu_device.hpp"
#include "stream_tools/credits_modes.hpp"

namespace stream_tools {
namespace {

constexpr uint32_t kBytes = 4000;
constexpr uint8_t kCardBefore = 0x5A, kDestination = 0xDD, kCanary = 0xC3;

// Host bytes a test owns, with what each must still hold.
struct Owned {
    const char* name;
    const vfio::DmaRegion* region;
    uint64_t from, to;  // the bytes the transfer may change: none when from == to
};

// The first byte of `o` outside [from, to) that no longer holds `expect(i)`, described.
template <typename Expect>
std::optional<std::string> changed(const Owned& o, Expect expect) {
    for (uint64_t i = 0; i < o.region->size(); ++i)
        if ((i < o.from || i >= o.to) && o.region->data()[i] != expect(i))
            return std::string(o.name) + " byte " + std::to_string(i) + " (IOVA " + pdt::hex(o.region->iova() + i) +
                   ") changed to " + pdt::hex(o.region->data()[i]);
    return std::nullopt;
}

std::string holds(const uint8_t* d, const std::vector<uint8_t>& b) {
    if (std::memcmp(d, b.data(), kBytes) == 0)
        return "the source's bytes (the transfer arrived)";
    bool card = true, untouched = true, zeros = true, ones = true;
    for (uint32_t i = 0; i < kBytes; ++i) {
        card = card && d[i] == kCardBefore, untouched = untouched && d[i] == kDestination;
        zeros = zeros && d[i] == 0, ones = ones && d[i] == 0xff;
    }
    char first[64];
    std::snprintf(first, sizeof first, "other bytes (first %02x %02x %02x %02x)", d[0], d[1], d[2], d[3]);
    return card        ? "the card's bytes of before (0x5a): the device's read of the source was blocked"
           : untouched ? "its own bytes (0xdd): the device's write did not reach it"
           : zeros     ? "zeros: the device's read of the source was blocked and it moved zeros instead"
           : ones      ? "0xff bytes: the device's read of the source was blocked and it moved all-ones instead"
                       : first;
}

// Where [iova, iova + kBytes) falls among the test's mappings.
std::string landing(uint64_t iova, const std::vector<std::pair<const char*, const vfio::DmaRegion*>>& mappings) {
    for (const auto& [name, r] : mappings)
        if (iova >= r->iova() && iova + kBytes <= r->iova() + r->size())
            return std::string("inside the ") + name + " mapping";
    for (const auto& [name, r] : mappings)
        if (iova < r->iova() + r->size() && r->iova() < iova + kBytes)
            return std::string("partly inside the ") + name + " mapping";
    return "outside every mapping of this test";
}

}  // namespace

pdt::Result<IovaOffsets> parse_iova_offsets(const std::string& text) {
    IovaOffsets o;
    uint64_t* fields[] = {&o.descriptors, &o.h2c, &o.c2h};
    size_t at = 0;
    for (size_t i = 0; i < 3; ++i) {
        const size_t comma = text.find(',', at);
        if ((i < 2) != (comma != std::string::npos))
            return pdt::usage_error("parse option --iova_offsets", "\"" + text + "\"",
                                    "expected <descriptor offset>,<H2C offset>,<C2H offset>");
        *fields[i] = PDT_TRY(pdt::parse_number("iova_offsets", text.substr(at, comma - at), 0, 1ull << 40));
        at = comma + 1;
    }
    return o;
}

int run_iova_offsets_on(const tool_support::DeviceTarget& t, const IovaOffsets& offsets, std::FILE* out) {
    const std::string bdf = t.device->identity().address.to_string();
    auto fail = [&](const std::string& why) {
        std::fprintf(stderr, "Error: %s: %s\n", bdf.c_str(), why.c_str());
        std::fprintf(out, "Test: FAIL\n");
        return 1;
    };
    if (t.device->identity().vendor_id != edu::VENDOR_ID || t.device->identity().device_id != edu::DEVICE_ID)
        return fail("--iova_offsets moves its transfer through QEMU's edu device (1234:11e8) or --edu_sim; other "
                    "devices are not supported");
    if (offsets.descriptors != 0)
        return fail("--iova_offsets: an edu transfer has no descriptors: the descriptor offset must be 0");
    auto edu = edu::EduDevice::attach(*t.device);
    if (!edu.ok() || !t.device->enable_bus_master().ok())
        return fail(edu.ok() ? "cannot enable Bus Master" : edu.error().message());
    auto region = [&](vfio::DmaAccess access) {
        return vfio::DmaRegion::allocate(*t.device, 4096, {access, vfio::BufferKind::Anonymous, edu::DMA_MASK_BITS});
    };
    auto fill = region(vfio::DmaAccess::DeviceRead), source = region(vfio::DmaAccess::DeviceRead),
         destination = region(vfio::DmaAccess::DeviceWrite), canary = region(vfio::DmaAccess::DeviceReadWrite);
    for (auto* r : {&fill, &source, &destination, &canary})
        if (!r->ok())
            return fail(r->error().message());
    std::vector<uint8_t> b(4096);
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = static_cast<uint8_t>(i * 7 + 1);
    std::memset(fill->data(), kCardBefore, 4096);
    std::memcpy(source->data(), b.data(), 4096);
    std::memset(destination->data(), kDestination, 4096);
    std::memset(canary->data(), kCanary, 4096);
    std::fprintf(out, "IOVA offsets on %s: source IOVA %s + %s, destination IOVA %s + %s (mapped 4 KiB each; another "
                      "mapping, the canary, at %s)\n",
                 edu->name().c_str(), pdt::hex(source->iova()).c_str(), pdt::hex(offsets.h2c).c_str(),
                 pdt::hex(destination->iova()).c_str(), pdt::hex(offsets.c2h).c_str(), pdt::hex(canary->iova()).c_str());
    const std::vector<std::pair<const char*, const vfio::DmaRegion*>> mappings = {
        {"fill", &*fill}, {"source", &*source}, {"destination", &*destination}, {"canary", &*canary}};
    std::fprintf(out, "the device reads %s (%s) and writes %s (%s)\n", pdt::hex(source->iova() + offsets.h2c).c_str(),
                 landing(source->iova() + offsets.h2c, mappings).c_str(),
                 pdt::hex(destination->iova() + offsets.c2h).c_str(),
                 landing(destination->iova() + offsets.c2h, mappings).c_str());
    // The card first holds 0x5a bytes, so a blocked read of the source shows.
    auto moved = edu->dma_to_edu(fill->iova(), 0, kBytes, edu::Wait::Poll);
    if (moved.ok())
        moved = edu->dma_to_edu(source->iova() + offsets.h2c, 0, kBytes, edu::Wait::Poll);
    if (moved.ok())
        moved = edu->dma_from_edu(0, destination->iova() + offsets.c2h, kBytes, edu::Wait::Poll);
    if (!moved.ok())
        return fail(moved.error().message());
    if (t.simulated)
        for (const std::string& fault : t.device->iommu_faults())
            std::fprintf(out, "IOMMU fault: %s\n", fault.c_str());
    else if (offsets.h2c || offsets.c2h)
        std::fprintf(out, "IOMMU faults, if any: in the kernel log (dmesg: DMAR ... fault addr 0x...)\n");
    const bool in_place = offsets.c2h == 0;
    std::fprintf(out, "destination holds %s\n", holds(destination->data(), b).c_str());
    const Owned owned[] = {{"source", &*source, 0, 0},
                           {"destination", &*destination, 0, in_place ? kBytes : 0},
                           {"canary", &*canary, 0, 0}};
    std::optional<std::string> change = changed(owned[0], [&](uint64_t i) { return b[i]; });
    if (!change)
        change = changed(owned[1], [](uint64_t) { return kDestination; });
    if (!change)
        change = changed(owned[2], [](uint64_t) { return kCanary; });
    if (change) {
        std::fprintf(out, "host memory outside the transfer changed: %s\nTest: FAIL (the device wrote outside the "
                          "transfer; an IOMMU stops only addresses no mapping covers)\n", change->c_str());
        return 1;
    }
    const uint64_t verified = 3 * 4096 - (in_place ? kBytes : 0);
    std::fprintf(out, "Test: PASS (%llu host bytes outside the transfer verified unchanged)\n",
                 static_cast<unsigned long long>(verified));
    return 0;
}

}  // namespace stream_tools
