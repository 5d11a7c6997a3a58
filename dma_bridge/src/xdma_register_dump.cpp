// Decoded XDMA register dumps (PG195 register and field names) and the failure observer.
#include "dma_bridge/xdma_register_dump.hpp"
#include "dma_bridge/xdma_registers.hpp"

#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <set>

namespace xdma {
namespace {

// Status / Control bits 0..6 (PG195 channel Control 0x04 and Status 0x40).
const char* const kEventBits[] = {"descriptor_stopped", "descriptor_completed", "align_mismatch",
                                  "magic_stopped",      "invalid_length",       "idle_stopped"};
// Per-bit meanings of the error fields (PG195 Status [13:9], [18:14], [23:19]).
const char* const kH2cRead[] = {"unsupported_request", "completer_abort", "parity", "header_ep",
                                "unexpected_completion"};
const char* const kC2hRead[] = {"decode", "slave", "bit11", "bit12", "bit13"};
const char* const kWrite[] = {"decode", "slave", "bit16", "bit17", "bit18"};
const char* const kDesc[] = {"unsupported_request", "completer_abort", "parity", "header_ep",
                             "unexpected_completion"};

std::string flag(const std::string& name, bool set) { return name + (set ? "+" : "-"); }

std::string error_field(const char* name, uint32_t value, unsigned first, const char* const* bits) {
    std::string text = std::string(name) + ":";
    for (unsigned i = 0; i < 5; ++i)
        text += " " + flag(bits[i], value & (1u << (first + i)));
    return text;
}

std::string line(const std::string& block, const char* name, uint32_t offset, uint32_t value, const std::string& decoded) {
    char head[160];
    std::snprintf(head, sizeof head, "%s %s (0x%04" PRIx32 ") = 0x%08" PRIx32, block.c_str(), name, offset, value);
    return decoded.empty() ? head : std::string(head) + ": " + decoded;
}

std::mutex g_observer_mutex;
FailureObserver g_observer;

}  // namespace

std::string decode_status_bits(Direction direction, uint32_t value) {
    std::string text = flag("busy", value & status::busy);
    for (unsigned bit = 1; bit < 7; ++bit)
        text += " " + flag(kEventBits[bit - 1], value & (1u << bit));
    text += ", " + error_field("read_error", value, 9, direction == Direction::H2C ? kH2cRead : kC2hRead);
    text += ", " + error_field("write_error", value, 14, kWrite);
    text += ", " + error_field("desc_error", value, 19, kDesc);
    return text;
}

std::string decode_enable_bits(Direction direction, uint32_t value) {
    std::string text;
    for (unsigned bit = 1; bit < 7; ++bit)
        text += (bit > 1 ? " " : "") + flag(std::string("ie_") + kEventBits[bit - 1], value & (1u << bit));
    text += ", " + error_field("ie_read_error", value, 9, direction == Direction::H2C ? kH2cRead : kC2hRead);
    text += ", " + error_field("ie_write_error", value, 14, kWrite);
    text += ", " + error_field("ie_desc_error", value, 19, kDesc);
    return text;
}

std::string decode_control_bits(Direction direction, uint32_t value) {
    std::string text = flag("run", value & control::run) + " " + decode_enable_bits(direction, value);
    text += ", " + flag("non_inc_mode", value & control::non_inc_mode) + " " +
            flag("pollmode_wb_enable", value & control::pollmode_wb_enable) + " " +
            flag("stream_wb_disable", value & control::stream_wb_disable);
    return text;
}

std::vector<std::string> dump_channel_registers(const vfio::RegisterWindow& regs, Direction direction, unsigned channel) {
    const uint32_t ch = static_cast<uint32_t>(block_offset(channel_target(direction), channel));
    const uint32_t sg = static_cast<uint32_t>(block_offset(sgdma_target(direction), channel));
    const uint32_t common = static_cast<uint32_t>(block_offset(target::SGDMA_COMMON));
    const uint32_t irq = static_cast<uint32_t>(block_offset(target::IRQ_BLOCK));
    const std::string d = to_string(direction), n = std::to_string(channel);
    const std::string chan = d + " Channel " + n, sgdma = d + " SGDMA " + n;
    auto r = [&](uint32_t offset) { return regs.read32(offset); };
    std::vector<std::string> out;
    const uint32_t id = r(ch + channel_reg::IDENTIFIER);
    char text[160];
    std::snprintf(text, sizeof text, "subsystem 0x%03x target %u stream%c channel_id %u version %u",
                  identifier::subsystem_identifier(id), identifier::target(id), identifier::stream(id) ? '+' : '-',
                  identifier::channel_id(id), identifier::version(id));
    out.push_back(line(chan, "Identifier", ch, id, text));
    out.push_back(line(chan, "Control", ch + channel_reg::CONTROL, r(ch + channel_reg::CONTROL),
                       decode_control_bits(direction, r(ch + channel_reg::CONTROL))));
    out.push_back(line(chan, "Status", ch + channel_reg::STATUS, r(ch + channel_reg::STATUS),
                       decode_status_bits(direction, r(ch + channel_reg::STATUS))));
    const uint32_t count = r(ch + channel_reg::COMPLETED_DESCRIPTOR_COUNT);
    out.push_back(line(chan, "Completed Descriptor Count", ch + channel_reg::COMPLETED_DESCRIPTOR_COUNT, count,
                       std::to_string(count)));
    const uint32_t align = r(ch + channel_reg::ALIGNMENTS);
    out.push_back(line(chan, "Alignments", ch + channel_reg::ALIGNMENTS, align,
                       "address_alignment " + std::to_string(align >> 16 & 0xFF) + " length_granularity " +
                           std::to_string(align >> 8 & 0xFF) + " address_bits " + std::to_string(align & 0xFF)));
    const uint32_t wb_lo = r(ch + channel_reg::POLL_MODE_LOW_WRITE_BACK_ADDRESS);
    const uint32_t wb_hi = r(ch + channel_reg::POLL_MODE_HIGH_WRITE_BACK_ADDRESS);
    out.push_back(line(chan, "Poll Mode Low Write Back Address", ch + channel_reg::POLL_MODE_LOW_WRITE_BACK_ADDRESS,
                       wb_lo, ""));
    out.push_back(line(chan, "Poll Mode High Write Back Address",
                       ch + channel_reg::POLL_MODE_HIGH_WRITE_BACK_ADDRESS, wb_hi,
                       "write back address 0x" + [&] {
                           char a[24];
                           std::snprintf(a, sizeof a, "%016" PRIx64, uint64_t{wb_hi} << 32 | wb_lo);
                           return std::string(a);
                       }()));
    const uint32_t mask = r(ch + channel_reg::INTERRUPT_ENABLE_MASK);
    out.push_back(line(chan, "Interrupt Enable Mask", ch + channel_reg::INTERRUPT_ENABLE_MASK, mask,
                       decode_enable_bits(direction, mask)));
    out.push_back(line(sgdma, "Descriptor Low Address", sg + sgdma_reg::DESCRIPTOR_LOW_ADDRESS,
                       r(sg + sgdma_reg::DESCRIPTOR_LOW_ADDRESS), ""));
    out.push_back(line(sgdma, "Descriptor High Address", sg + sgdma_reg::DESCRIPTOR_HIGH_ADDRESS,
                       r(sg + sgdma_reg::DESCRIPTOR_HIGH_ADDRESS), ""));
    const uint32_t adjacent = r(sg + sgdma_reg::DESCRIPTOR_ADJACENT);
    out.push_back(line(sgdma, "Descriptor Adjacent", sg + sgdma_reg::DESCRIPTOR_ADJACENT, adjacent,
                       std::to_string(adjacent & 0x3F)));
    const uint32_t credits = r(sg + sgdma_reg::DESCRIPTOR_CREDITS);
    out.push_back(line(sgdma, "Descriptor Credits", sg + sgdma_reg::DESCRIPTOR_CREDITS, credits,
                       std::to_string(credits & 0x3FF)));
    const uint32_t bit = sgdma_common_reg::channel_bit(direction, channel);
    const uint32_t halt = r(common + sgdma_common_reg::DESCRIPTOR_CONTROL);
    out.push_back(line("SGDMA Common", "Descriptor Control", common + sgdma_common_reg::DESCRIPTOR_CONTROL, halt,
                       flag(d + " " + n + " halt", halt & bit)));
    const uint32_t credit_mode = r(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE);
    out.push_back(line("SGDMA Common", "Descriptor Credit Mode Enable",
                       common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE, credit_mode,
                       flag(d + " " + n, credit_mode & bit)));
    // IRQ block channel interrupt sources: H2C channels first, then C2H (the C2H index needs
    // the H2C count, which the dump does not know: it names the register's set bits instead).
    for (const auto& [name, offset] : {std::pair{"Channel Interrupt Enable Mask", irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK},
                                       std::pair{"Channel Interrupt Request", irq_reg::CHANNEL_INTERRUPT_REQUEST},
                                       std::pair{"Channel Interrupt Pending", irq_reg::CHANNEL_INTERRUPT_PENDING}}) {
        const uint32_t value = r(irq + offset);
        std::string sources;
        for (unsigned i = 0; i < 8; ++i)
            if (value & (1u << i))
                sources += (sources.empty() ? "sources " : " ") + std::to_string(i);
        out.push_back(line("IRQ Block", name, irq + offset, value, sources.empty() ? "none" : sources));
    }
    return out;
}

void set_failure_observer(FailureObserver observer) {
    std::lock_guard lock(g_observer_mutex);
    g_observer = std::move(observer);
}

bool failure_observed() {
    std::lock_guard lock(g_observer_mutex);
    return static_cast<bool>(g_observer);
}

void notify_failure(const FailureReport& report) {
    FailureObserver observer;
    {
        std::lock_guard lock(g_observer_mutex);
        observer = g_observer;
    }
    if (observer)
        observer(report);
}

namespace {
std::mutex g_warning_mutex;
WarningObserver g_warning_observer;
std::set<std::string> g_warned;  // the default's lines already printed
}  // namespace

void set_warning_observer(WarningObserver observer) {
    std::lock_guard lock(g_warning_mutex);
    g_warning_observer = std::move(observer);
}

void notify_warning(const std::string& engine, const std::string& text) {
    WarningObserver observer;
    {
        std::lock_guard lock(g_warning_mutex);
        observer = g_warning_observer;
        if (!observer) {
            const std::string line = "Warning: " + engine + ": " + text + "\n";
            if (g_warned.insert(line).second) {
                std::fputs(line.c_str(), stderr);
                std::fflush(stderr);
            }
            return;
        }
    }
    observer(engine, text);
}

}  // namespace xdma
