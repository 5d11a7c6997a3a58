// The Descriptor Credits register check (xdma_credit_register_check.hpp).
#include "dma_bridge/xdma_credit_register_check.hpp"

#include <chrono>
#include <optional>
#include <string>

#include "base/format.hpp"
#include "dma_bridge/xdma_register_dump.hpp"
#include "dma_bridge/xdma_registers.hpp"
#include "dma_bridge/xdma_run_control.hpp"

namespace xdma {
namespace {

using pdt::hex;

constexpr uint32_t kRing = 1023;  // the most descriptors the credit register can release

pdt::Error credit_error(const std::string& what) {
    return pdt::make_error("Descriptor Credits register test", "H2C 0", EIO, what);
}

}  // namespace

pdt::Result<void> check_descriptor_credit_register(const vfio::RegisterWindow& regs) {
    const uint64_t channel = block_offset(target::H2C_CHANNEL, 0);
    const uint64_t sgdma = block_offset(target::H2C_SGDMA, 0);
    const uint64_t common = block_offset(target::SGDMA_COMMON);
    const uint32_t bit = sgdma_common_reg::channel_bit(Direction::H2C, 0);
    if (regs.read32(channel + channel_reg::STATUS) & status::busy)
        return pdt::make_error("Descriptor Credits register test", "H2C 0", EBUSY, "the channel is busy");
    // Halt descriptor fetch, so Run with credits fetches nothing. Run is set and cleared with
    // proof (xdma_run_control.hpp), so that an IP that ignores the W1C alias is left stopped.
    regs.write32(common + sgdma_common_reg::DESCRIPTOR_CONTROL_W1S, bit);
    RunControl run(regs, channel, "H2C 0", [](std::string text) { notify_warning("H2C 0", text); });
    run.write_control(regs.read32(channel + channel_reg::CONTROL));
    std::optional<pdt::Error> failure;
    if (auto started = run.start(std::chrono::seconds(1)); !started)
        failure = started.error();
    for (uint32_t k = 1; k < kRing && !failure; ++k) {
        regs.write32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE_W1S, bit);
        uint32_t expected = 0;
        if (const uint32_t first = regs.read32(sgdma + sgdma_reg::DESCRIPTOR_CREDITS) & 0x3FF; first != 0)
            failure = credit_error("credits read " + std::to_string(first) + " after enabling credit mode, expected 0");
        while (!failure && expected + k <= kRing) {
            regs.write32(sgdma + sgdma_reg::DESCRIPTOR_CREDITS, k);
            expected += k;
            const uint32_t read = regs.read32(sgdma + sgdma_reg::DESCRIPTOR_CREDITS) & 0x3FF;
            if (read != expected)
                failure = credit_error("adding " + std::to_string(k) + " at a time: read " + std::to_string(read) +
                                       ", expected " + std::to_string(expected));
        }
        regs.write32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE_W1C, bit);
        if (const uint32_t left = regs.read32(sgdma + sgdma_reg::DESCRIPTOR_CREDITS) & 0x3FF; !failure && left != 0)
            failure = credit_error("disabling credit mode left " + std::to_string(left) + " credits");
    }
    auto stopped = run.stop(std::chrono::seconds(1), [&] { return hex(regs.read32(channel + channel_reg::STATUS)); });
    regs.write32(common + sgdma_common_reg::DESCRIPTOR_CONTROL_W1C, bit);
    if (failure)
        return *failure;
    return stopped;
}

}  // namespace xdma
