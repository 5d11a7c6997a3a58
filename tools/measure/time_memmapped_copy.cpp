// time_memmapped --copy (time_memmapped_run.hpp): fpga_sio's time_memmapped_libpciaccess on one
// target: the window copied host-to-card and card-to-host by the CPU through the uncached
// mapping and, where the kernel gives one, the write-combined one; each copy verified
// (measure/bar_copy.hpp), fpga_sio's timing blocks (transfer_timing.c) printed per mapping.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "bar_memory_region.hpp"
#include "base/format.hpp"
#include "time_memmapped_run.hpp"
#include "tool_support/open_designs.hpp"

namespace time_memmapped {
namespace {

using Target = tool_support::DeviceTarget;

// fpga_sio's heading of a tested BAR (its libpciaccess names of vendor and device left out).
std::string heading(const Target& t, const measure::BarCopyRequest& q) {
    const vfio::DeviceIdentity& id = t.device->identity();
    return pdt::format("Testing BAR %u memory size 0x%llx for domain=%04x bus=%02x dev=%02x func=%02x\n"
                       "  vendor_id=%04x device_id=%04x subvendor_id=%04x subdevice_id=%04x\n",
                       q.bar, static_cast<unsigned long long>(q.size), id.address.domain, id.address.bus,
                       id.address.device, id.address.function, id.vendor_id, id.device_id, id.subsystem_vendor_id,
                       id.subsystem_device_id);
}

// fpga_sio's timing block (transfer_timing.c, display_transfer_timing_statistics): "<name> timing
// for <N> transfers of <bytes> bytes:", then the rate of the slowest copy (" Min", only when
// N > 1), of them all ("Mean") and of the fastest (" Max"), each "  <name> = %0.6f (Mbytes/sec)".
std::string timing_block(const std::string& name, uint64_t bytes, const std::vector<std::chrono::nanoseconds>& times) {
    std::string text = pdt::format("%s timing for %zu transfers of %" PRIu64 " bytes:\n", name.c_str(), times.size(), bytes);
    if (times.empty())
        return text;
    const auto rate = [](uint64_t moved, std::chrono::nanoseconds t) {
        return static_cast<double>(moved) * 1e3 / static_cast<double>(std::max<int64_t>(t.count(), 1));
    };
    const auto [fastest, slowest] = std::minmax_element(times.begin(), times.end());
    std::chrono::nanoseconds total{0};
    for (std::chrono::nanoseconds t : times)
        total += t;
    if (times.size() > 1)
        text += pdt::format("   Min = %.6f (Mbytes/sec)\n", rate(bytes, *slowest));
    text += pdt::format("  Mean = %.6f (Mbytes/sec)\n", rate(bytes * times.size(), total));
    if (times.size() > 1)
        text += pdt::format("   Max = %.6f (Mbytes/sec)\n", rate(bytes, *fastest));
    return text;
}

// One mapping's run, written as fpga_sio writes it, then our verified-bytes line; the bytes
// verified, 0 when a copy did not verify.
uint64_t report(const measure::BarCopyRun& run, const char* description, const measure::BarCopyRequest& q) {
    std::cout << (run.passed() ? "Test pattern pass\n"
                               : "Test pattern FAIL at BAR " + std::to_string(q.bar) + " " + run.describe_mismatch() + "\n");
    std::cout << timing_block(std::string("host-to-card PIO mapped with ") + description, q.size, run.to_card)
              << timing_block(std::string("card-to-host PIO mapped with ") + description, q.size, run.to_host);
    std::cout << "Verified " << run.bytes_verified << " bytes (" << run.mapping << ": " << run.bytes_verified / q.size
              << " copies each way of " << pdt::hex(q.size) << " bytes at BAR offset " << pdt::hex(q.offset)
              << ", a decoy in the destination before each)\n";
    return run.passed() ? run.bytes_verified : 0;
}

// The window: --size, or from the offset to the BAR's end; checked as memory before any access.
pdt::Result<vfio::Bar*> check_window(const Target& t, unsigned bar, measure::BarCopyRequest& q) {
    vfio::Bar* whole = PDT_TRY(t.device->bar(bar));
    if (q.size == 0 && q.offset < whole->size())
        q.size = whole->size() - q.offset;
    return bar_memory_region::check(t, {bar, q.offset, q.size, 8}, {8});
}

}  // namespace

int copy_target(const Target& t, const Selection& s) {
    const std::string bdf = t.device->identity().address.to_string();
    measure::BarCopyRequest q = s.copy_request;
    auto bar = check_window(t, s.bar, q);
    if (!bar.ok()) {
        std::cerr << "Error: " << bdf << ": " << bar.error().message() << "\n";
        return bar.error().usage ? tool_support::kUsageError : 1;
    }
    std::cout << heading(t, q);
    if (t.simulated)
        std::cout << "Note: simulated design: these figures are the model's cost, not a device's\n";
    uint64_t verified = report(measure::copy_bar_window(*measure::uncached_accessor(**bar), q), "uncached-minus", q);
    bool passed = verified > 0;
    std::string wc_note;
    if (auto wc = wc_accessor(t, s.bar, wc_note); wc && passed) {
        const uint64_t wc_verified = report(measure::copy_bar_window(*wc, q), "write-combining (flush posted writes)", q);
        passed = wc_verified > 0;
        verified += wc_verified;
    }
    std::cout << wc_note << "\n";
    if (passed)
        std::cout << "Verdict: PASS (" << verified << " bytes verified)\n";
    else
        std::cout << "Verdict: FAIL (a copy did not verify: see the Test pattern line)\n";
    return passed ? 0 : 1;
}

}  // namespace time_memmapped
