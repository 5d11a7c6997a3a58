// XDMA register space decode (PG195 "Register Space"): address = target [15:12] | channel
// [11:8] | byte offset [7:0].
#include <bit>

#include "xdma_internal.hpp"

namespace sim::xdma_impl {
namespace {

constexpr unsigned kTargetH2cChannel = 0x0;
constexpr unsigned kTargetC2hChannel = 0x1;
constexpr unsigned kTargetIrq = 0x2;
constexpr unsigned kTargetConfig = 0x3;
constexpr unsigned kTargetH2cSgdma = 0x4;
constexpr unsigned kTargetC2hSgdma = 0x5;
constexpr unsigned kTargetSgdmaCommon = 0x6;

// Applies a RW / W1S / W1C write at base, base + 4, base + 8.
void rw_w1s_w1c(uint32_t& reg, unsigned which, uint32_t value) {
    if (which == 0)
        reg = value;
    else if (which == 1)
        reg |= value;
    else if (which == 2)
        reg &= ~value;
}

// A performance count's high register: [41:32] in [9:0], and bit 16 once the count is at its most.
uint32_t performance_count_high(uint64_t count) {
    return (static_cast<uint32_t>(count >> 32) & 0x3FF) | (count >= kPerfCountMax ? 1u << 16 : 0);
}

uint32_t channel_bit_mask(const Channel& ch) {
    return (ch.direction == XdmaDirection::H2C ? 1u : 1u << 16) << ch.index;
}

}  // namespace

Channel* Impl::addressed_channel(unsigned target, unsigned index) {
    if (target == kTargetH2cChannel || target == kTargetH2cSgdma)
        return channel(XdmaDirection::H2C, index);
    if (target == kTargetC2hChannel || target == kTargetC2hSgdma)
        return channel(XdmaDirection::C2H, index);
    return nullptr;
}

uint32_t Impl::read_channel_block(Channel& ch, unsigned reg) {
    switch (reg) {
    case 0x04: return config.control_reads_zero ? 0 : ch.control;
    case 0x40: settle(ch); return ch.status;
    case 0x44: {
        settle(ch);
        const uint32_t value = ch.status;
        ch.status &= kStatusBusy;
        update_interrupts();
        return value;
    }
    case 0x48: return config.completed_count_reads_zero ? 0 : ch.completed_count;
    case 0x4C:
        return uint32_t{config.address_alignment} << 16 | uint32_t{config.length_granularity} << 8 | config.address_bits;
    case 0x88: return static_cast<uint32_t>(ch.poll_wb_address);  // 0 without poll-mode writeback
    case 0x8C: return static_cast<uint32_t>(ch.poll_wb_address >> 32);
    case 0x90: return ch.interrupt_enable_mask;
    case 0xC0: return ch.perf_control;
    case 0xC4: return static_cast<uint32_t>(ch.perf_cycles);
    case 0xC8: return performance_count_high(ch.perf_cycles);
    case 0xCC: return static_cast<uint32_t>(ch.perf_data_beats);
    case 0xD0: return performance_count_high(ch.perf_data_beats);
    default: return 0;
    }
}

uint32_t Impl::read_sgdma_block(const Channel& ch, unsigned reg) const {
    switch (reg) {
    case 0x80: return static_cast<uint32_t>(ch.descriptor_address);
    case 0x84: return static_cast<uint32_t>(ch.descriptor_address >> 32);
    case 0x88: return ch.descriptor_adjacent;
    case 0x8C: return ch.credits;
    default: return 0;
    }
}

uint32_t Impl::read32(uint64_t offset) {
    const unsigned target = (offset >> 12) & 0xF;
    const unsigned index = (offset >> 8) & 0xF;
    const unsigned reg = offset & 0xFF;
    const uint32_t version = config.version;
    const uint32_t stream_bit = config.stream ? 1u << 15 : 0;
    auto identifier = [&](unsigned t, uint32_t extra) { return kSubsystemId << 20 | t << 16 | extra | version; };

    if (target == kTargetH2cChannel || target == kTargetC2hChannel || target == kTargetH2cSgdma ||
        target == kTargetC2hSgdma) {
        Channel* ch = addressed_channel(target, index);
        if (!ch)
            return 0;
        if (reg == 0x00)
            return identifier(target, stream_bit | index << 8);
        return target == kTargetH2cChannel || target == kTargetC2hChannel ? read_channel_block(*ch, reg)
                                                                          : read_sgdma_block(*ch, reg);
    }
    if (index != 0)
        return 0;
    if (target == kTargetIrq && !config.interrupts)
        return reg == 0x00 ? identifier(target, 0) : 0;  // no interrupt path: masks and vectors read 0
    if (target == kTargetIrq) {
        uint32_t request = 0;
        for (auto* list : {&h2c, &c2h})
            for (const Channel& ch : *list)
                if (ch.status & ch.interrupt_enable_mask & ~kStatusBusy)
                    request |= 1u << irq_source(ch);
        switch (reg) {
        case 0x00: return identifier(target, 0);
        case 0x04: return user_irq_enable_mask;
        case 0x10: return channel_irq_enable_mask;
        case 0x40: return user_irq_req & user_irq_enable_mask;  // the source AND'd with the mask
        case 0x44: return request;
        case 0x48: return user_irq_req;  // pending until the source drops it (after the ack)
        case 0x4C: return request & channel_irq_enable_mask;
        case 0x80: case 0x84: case 0x88: case 0x8C: return user_vector[(reg - 0x80) / 4];
        case 0xA0: case 0xA4: return channel_vector[(reg - 0xA0) / 4];
        default: return 0;
        }
    }
    if (target == kTargetConfig) {
        switch (reg) {
        case 0x00: return identifier(target, 0);
        case 0x14: return config.interrupts ? 1 : 0;  // MSI enable
        case 0x18: return static_cast<uint32_t>(std::countr_zero(config.data_width_bytes / 8));  // pcie_width
        default: return 0;
        }
    }
    if (target == kTargetSgdmaCommon) {
        switch (reg) {
        case 0x00: return identifier(target, 0);
        case 0x10: return descriptor_control;
        case 0x20: return credit_mode_enable;
        default: return 0;
        }
    }
    return 0;
}

void Impl::write32(uint64_t offset, uint32_t value) {
    const unsigned target = (offset >> 12) & 0xF;
    const unsigned index = (offset >> 8) & 0xF;
    const unsigned reg = offset & 0xFF;
    ++generation;

    if (target == kTargetH2cChannel || target == kTargetC2hChannel) {
        Channel* ch = addressed_channel(target, index);
        if (!ch)
            return;
        if ((reg == 0x08 && config.control_w1s_ignored) || (reg == 0x0C && config.control_w1c_ignored)) {
            // an IP whose Control W1S (W1C) alias does not work: Run does not stick (clear)
        } else if (reg >= 0x04 && reg <= 0x0C) {
            uint32_t control = ch->control;
            rw_w1s_w1c(control, (reg - 0x04) / 4, value);
            if (config.run_clear_ignored && (ch->control & kControlRun))
                control |= kControlRun;  // an engine that ignores stop
            if (!config.poll_mode_writeback)
                control &= ~kControlPollmodeWbEnable;  // IP built without it: reads back 0
            const bool was_run = ch->control & kControlRun;
            ch->control = control;
            if (was_run != ((control & kControlRun) != 0))
                set_run(*ch, !was_run);
        } else if (reg == 0x40) {
            ch->status &= ~(value & ~kStatusBusy);
        } else if ((reg == 0x88 || reg == 0x8C) && !config.poll_mode_writeback) {
            // no Poll Mode Write Back Address registers
        } else if (reg == 0x88) {
            ch->poll_wb_address = (ch->poll_wb_address & ~0xFFFFFFFFull) | value;
        } else if (reg == 0x8C) {
            ch->poll_wb_address = (ch->poll_wb_address & 0xFFFFFFFFull) | uint64_t{value} << 32;
        } else if (reg >= 0x90 && reg <= 0x98) {
            rw_w1s_w1c(ch->interrupt_enable_mask, (reg - 0x90) / 4, value & 0x00FFFFFE);
        } else if (reg == 0xC0) {
            if (value & kPerfClear)
                ch->perf_cycles = ch->perf_data_beats = 0;
            ch->perf_control = value & (kPerfRun | kPerfAuto);
        }
        update_interrupts();
        return;
    }
    if (target == kTargetH2cSgdma || target == kTargetC2hSgdma) {
        Channel* ch = addressed_channel(target, index);
        if (!ch)
            return;
        if (reg == 0x80) {
            ch->descriptor_address = (ch->descriptor_address & ~0xFFFFFFFFull) | value;
        } else if (reg == 0x84) {
            ch->descriptor_address = (ch->descriptor_address & 0xFFFFFFFFull) | uint64_t{value} << 32;
        } else if (reg == 0x88) {
            ch->descriptor_adjacent = value & 0x3F;
        } else if (reg == 0x8C && credit_mode(*ch)) {
            const uint32_t sum = ch->credits + (value & 0x3FF);
            if (sum > kMaxCredits)
                violation(*ch, "descriptor credits overflow: " + std::to_string(ch->credits) + " + " +
                                   std::to_string(value & 0x3FF) + " > 1023");
            ch->credits = std::min(sum, kMaxCredits);
        }
        return;
    }
    if (index != 0)
        return;
    if (target == kTargetIrq) {
        if (!config.interrupts)
            return;  // no interrupt path: writes ignored
        if (reg >= 0x04 && reg <= 0x0C)
            rw_w1s_w1c(user_irq_enable_mask, (reg - 0x04) / 4, value & user_irq_lines());
        else if (reg >= 0x10 && reg <= 0x18)
            rw_w1s_w1c(channel_irq_enable_mask, (reg - 0x10) / 4, value & 0xFF);
        else if (reg >= 0x80 && reg <= 0x8C)
            user_vector[(reg - 0x80) / 4] = value & 0x1F1F1F1F;
        else if (reg == 0xA0 || reg == 0xA4)
            channel_vector[(reg - 0xA0) / 4] = value & 0x1F1F1F1F;
        update_interrupts();
        return;
    }
    if (target == kTargetSgdmaCommon) {
        if (reg >= 0x10 && reg <= 0x18) {
            rw_w1s_w1c(descriptor_control, (reg - 0x10) / 4, value & 0x000F000F);
        } else if (reg >= 0x20 && reg <= 0x28 && config.descriptor_credits) {
            rw_w1s_w1c(credit_mode_enable, (reg - 0x20) / 4, value & 0x000F000F);
            // Disabling credit mode resets the channel's credits (fpga_sio's credit test).
            for (auto* list : {&h2c, &c2h})
                for (Channel& ch : *list)
                    if (!(credit_mode_enable & channel_bit_mask(ch)))
                        ch.credits = 0;
        }
    }
}

void Impl::log_status(Channel& ch, uint32_t bits) { ch.status |= bits & ch.control & kStatusLoggable; }

void Impl::stop_engine(Channel& ch) {
    ch.running = false;
    ch.late_due.reset();
    ch.finish_then_stop = false;
    if (config.busy_after_stop.count() > 0 && (ch.status & kStatusBusy)) {
        ch.busy_until = std::chrono::steady_clock::now() + config.busy_after_stop;
    } else if (ch.status & kStatusBusy) {
        ch.status &= ~kStatusBusy;
        ch.idle_since = std::chrono::steady_clock::now();
    }
}

void Impl::settle(Channel& ch) {
    if (ch.busy_until && !ch.running && std::chrono::steady_clock::now() >= *ch.busy_until) {
        ch.status &= ~kStatusBusy;
        ch.busy_until.reset();
        ch.idle_since = std::chrono::steady_clock::now();
    }
}

bool Impl::halted(const Channel& ch) const { return (descriptor_control & channel_bit_mask(ch)) != 0; }
bool Impl::credit_mode(const Channel& ch) const { return (credit_mode_enable & channel_bit_mask(ch)) != 0; }

// Channel interrupt sources: H2C channels first, then C2H channels (PG195 IRQ block).
unsigned Impl::irq_source(const Channel& ch) const {
    return ch.direction == XdmaDirection::H2C ? ch.index : config.num_h2c + ch.index;
}

void Impl::update_interrupts() {
    for (auto* list : {&h2c, &c2h})
        for (Channel& ch : *list) {
            const unsigned source = irq_source(ch);
            // PG195: a status bit is logged only when its Control ie_* bit is set (log_status); it
            // interrupts when its Interrupt Enable Mask (0x90) bit and the IRQ block's channel
            // interrupt enable mask bit of the channel are set.
            const bool pending = config.interrupts && (ch.status & ch.interrupt_enable_mask & ~kStatusBusy) != 0 &&
                                 (channel_irq_enable_mask & (1u << source)) != 0;
            if (pending && !ch.irq_pending)
                device.raise_msi((channel_vector[source / 4] >> ((source % 4) * 8)) & 0x1F);
            ch.irq_pending = pending;
        }
    update_user_interrupts();
}

void Impl::reset() {
    for (auto* list : {&h2c, &c2h})
        for (Channel& ch : *list) {
            Channel fresh;
            fresh.direction = ch.direction;
            fresh.index = ch.index;
            fresh.processed = ch.processed;
            ch = std::move(fresh);
        }
    descriptor_control = credit_mode_enable = 0;
    user_irq_enable_mask = channel_irq_enable_mask = user_irq_req = 0;
    for (auto& v : user_vector)
        v = 0;
    channel_vector[0] = channel_vector[1] = 0;
    ++generation;
}

Channel* Impl::channel(XdmaDirection direction, unsigned index) {
    auto& list = direction == XdmaDirection::H2C ? h2c : c2h;
    return index < list.size() ? &list[index] : nullptr;
}

const Channel* Impl::channel(XdmaDirection direction, unsigned index) const {
    const auto& list = direction == XdmaDirection::H2C ? h2c : c2h;
    return index < list.size() ? &list[index] : nullptr;
}

}  // namespace sim::xdma_impl
