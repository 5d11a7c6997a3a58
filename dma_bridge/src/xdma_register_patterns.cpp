// The register pattern tests of probe_xilinx_ip --write_tests (xdma_probe.hpp): only on the
// SGDMA descriptor address registers, which PG195 says the engine reads only when the Control
// register's Run bit is set, and only on a channel whose engine is stopped.
#include <cstdio>

#include "base/format.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_probe.hpp"
#include "dma_bridge/xdma_registers.hpp"

namespace xdma {
namespace {

using pdt::hex32;

Direction direction_of_sgdma(uint32_t t) { return t == target::H2C_SGDMA ? Direction::H2C : Direction::C2H; }

std::string channel_text(Direction d, unsigned channel) {
    return std::string(d == Direction::H2C ? "H2C " : "C2H ") + std::to_string(channel);
}

// PG195 "H2C Channel Control (0x04)" bit 0 run; "H2C Channel Status (0x40)" bit 0 busy (read at
// 0x40, RW1C, so the read clears nothing).
pdt::Result<void> check_stopped(const vfio::RegisterWindow& regs, Direction d, unsigned channel) {
    const uint64_t base = block_offset(channel_target(d), channel);
    const uint32_t control_value = regs.read32(base + channel_reg::CONTROL);
    const uint32_t status_value = regs.read32(base + channel_reg::STATUS);
    if ((control_value & control::run) == 0 && (status_value & status::busy) == 0)
        return {};
    char hint[256];
    std::snprintf(hint, sizeof hint,
                  "its engine is running (Control 0x%08x run=%u, Status 0x%08x busy=%u): no register of it is written "
                  "while DMA may be in flight; stop the tool using it first",
                  control_value, control_value & control::run, status_value, status_value & status::busy);
    return pdt::make_error("refuse register write tests", channel_text(d, channel), EBUSY, hint);
}

RegisterTest test_register(const vfio::RegisterWindow& regs, const FoundBlock& sgdma, const ScratchRegister& reg) {
    const Direction d = direction_of_sgdma(sgdma.target());
    const uint64_t offset = sgdma.offset + reg.offset;
    RegisterTest test;
    test.channel = channel_text(d, sgdma.channel_id());
    char name[96];
    std::snprintf(name, sizeof name, "%s %s (0x%04llx)", target_name(sgdma.target()).c_str(), reg.name,
                  static_cast<unsigned long long>(offset));
    test.name = name;
    test.source = reg.source;
    test.original = regs.read32(offset);
    for (uint32_t pattern : test_patterns(reg.mask)) {
        regs.write32(offset, pattern);
        const uint32_t read = regs.read32(offset) & reg.mask;
        ++test.patterns;
        if (read != pattern)
            test.mismatches.push_back("wrote " + hex32(pattern) + " read " + hex32(read) + " (mask " + hex32(reg.mask) + ")");
    }
    regs.write32(offset, test.original);
    test.restored = regs.read32(offset);
    return test;
}

}  // namespace

const std::vector<ScratchRegister>& scratch_registers() {
    // PG195 "H2C SGDMA Registers (0x4)" and "C2H SGDMA Registers (0x5)": dsc_adr[63:0] "is the
    // first descriptor address that is fetched after the Control register Run bit is set", and
    // dsc_adj[5:0] counts the adjacent descriptors of that fetch; with Run clear the engine does
    // not read them. Descriptor Credits (0x8C) is left out: a write adds credits.
    static const std::vector<ScratchRegister> kRegisters = [] {
        std::vector<ScratchRegister> list;
        for (uint32_t t : {target::H2C_SGDMA, target::C2H_SGDMA}) {
            const bool h2c = t == target::H2C_SGDMA;
            list.push_back({t, sgdma_reg::DESCRIPTOR_LOW_ADDRESS, "Descriptor Low Address", 0xFFFFFFFFu,
                            h2c ? "PG195 H2C SGDMA Descriptor Low Address (0x80)" : "PG195 C2H SGDMA Descriptor Low Address (0x80)"});
            list.push_back({t, sgdma_reg::DESCRIPTOR_HIGH_ADDRESS, "Descriptor High Address", 0xFFFFFFFFu,
                            h2c ? "PG195 H2C SGDMA Descriptor High Address (0x84)" : "PG195 C2H SGDMA Descriptor High Address (0x84)"});
            list.push_back({t, sgdma_reg::DESCRIPTOR_ADJACENT, "Descriptor Adjacent", 0x3Fu,
                            h2c ? "PG195 H2C SGDMA Descriptor Adjacent (0x88)" : "PG195 C2H SGDMA Descriptor Adjacent (0x88)"});
        }
        return list;
    }();
    return kRegisters;
}

std::vector<uint32_t> test_patterns(uint32_t mask) {
    std::vector<uint32_t> patterns{0x00000000u, 0xFFFFFFFFu & mask, 0xAAAAAAAAu & mask, 0x55555555u & mask};
    for (unsigned bit = 0; bit < 32; ++bit)
        if (mask & (1u << bit))
            patterns.push_back(1u << bit);  // walking 1
    for (unsigned bit = 0; bit < 32; ++bit)
        if (mask & (1u << bit))
            patterns.push_back(~(1u << bit) & mask);  // walking 0
    return patterns;
}

pdt::Result<std::vector<RegisterTest>> write_tests(const vfio::RegisterWindow& regs, const std::vector<FoundBlock>& blocks) {
    std::vector<const FoundBlock*> sgdma_blocks;
    for (const FoundBlock& block : blocks)
        if (block.target() == target::H2C_SGDMA || block.target() == target::C2H_SGDMA)
            sgdma_blocks.push_back(&block);
    // Every channel is checked before the first write: a running one refuses the whole run.
    for (const FoundBlock* block : sgdma_blocks) {
        const Direction d = direction_of_sgdma(block->target());
        PDT_CHECK(check_block(regs, channel_target(d), block->channel_id()));
        PDT_CHECK(check_stopped(regs, d, block->channel_id()));
    }
    std::vector<RegisterTest> tests;
    for (const FoundBlock* block : sgdma_blocks)
        for (const ScratchRegister& reg : scratch_registers())
            if (reg.target == block->target()) {
                PDT_CHECK(check_stopped(regs, direction_of_sgdma(block->target()), block->channel_id()));
                tests.push_back(test_register(regs, *block, reg));
            }
    return tests;
}

}  // namespace xdma

namespace xdma {

std::vector<vfio::ResetRegister> reset_test_registers(unsigned dma_bar) {
    const uint64_t h2c = block_offset(target::H2C_CHANNEL), sgdma = block_offset(target::H2C_SGDMA),
                   common = block_offset(target::SGDMA_COMMON);
    return {
        {"H2C 0 Control (0x0004)", dma_bar, h2c + channel_reg::CONTROL, 4, std::nullopt},
        {"H2C 0 Status (0x0040)", dma_bar, h2c + channel_reg::STATUS, 4, std::nullopt},
        {"SGDMA Common Descriptor Credit Mode Enable (0x6020)", dma_bar, common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE,
         4, 0x1},
        {"H2C SGDMA 0 Descriptor Credits (0x408C)", dma_bar, sgdma + sgdma_reg::DESCRIPTOR_CREDITS, 4, 0x1FD},
        {"H2C 0 Poll Mode Low Write Back Address (0x0088)", dma_bar, h2c + channel_reg::POLL_MODE_LOW_WRITE_BACK_ADDRESS,
         4, 0xdeadbeef},
        {"H2C 0 Poll Mode High Write Back Address (0x008C)", dma_bar, h2c + channel_reg::POLL_MODE_HIGH_WRITE_BACK_ADDRESS,
         4, 0xfeedabba},
    };
}

}  // namespace xdma
