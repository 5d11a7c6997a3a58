// Choosing the run mode and completion method for the XDMA IP of a design, and the safe probe
// for what the design data does not state.
//
// Probe reasoning (PG195 "Register Space"):
//  - An IP customised without descriptor credits has no credit logic: the SGDMA Common
//    "Descriptor Credit Mode Enable" register (0x6020, W1S 0x6024, W1C 0x6028) and the SGDMA
//    "Descriptor Credits" register (0x8C) read back 0 and ignore writes. Setting the channel's
//    credit-mode bit with W1S and reading 0x6020 tells the two apart.
//  - Without poll-mode writeback the Control register's pollmode_wb_enable (bit 26, "Channel
//    Control" table) is not implemented and reads back 0 after W1S. It is tried again with a
//    plain write of Control, which tells an IP whose Control W1S alias does not work apart.
//  - Both are register writes only. They are made on an idle channel (Status.busy clear, Run
//    clear) with its descriptor fetch halted (SGDMA Common "Descriptor Control" halt bit, W1S
//    0x6014), so no descriptor is fetched and no data moves; every bit touched is put back.
//  - An IP whose interrupt path is not usable has no IRQ block logic: its Channel Interrupt
//    Enable Mask (0x2010, W1S 0x2014, W1C 0x2018) reads back 0. The probe sets and reads back
//    the channel's bit with the channel's own Interrupt Enable Mask (0x90) still 0, so nothing
//    can be raised. Interrupt completion also needs MSI vectors on the device.
#include "dma_bridge/xdma_ip.hpp"
#include "dma_bridge/xdma_registers.hpp"

#include <algorithm>
#include <vector>

#include "base/format.hpp"

namespace xdma {
namespace {

// A refusal's hint for a mode the IP lacks: "engine mode credits: the IP has no descriptor
// credits (<why>); use <alternatives>", why being the design data's statement or, probed,
// what read back 0 (probe_text).
std::string lacking_feature_hint(const std::string& request, const char* feature, const std::optional<bool>& stated,
                                 const char* probe_text, const std::string& alternatives) {
    return request + ": the IP has no " + feature + " (" +
           (stated ? std::string("the design data states the XDMA IP has none") : std::string(probe_text)) + "); use " +
           alternatives;
}

// The channel's interrupt source in the IRQ block: H2C channels first, then C2H channels.
unsigned irq_source(const vfio::RegisterWindow& regs, Direction direction, unsigned channel) {
    if (direction == Direction::H2C)
        return channel;
    const bool stream = identifier::stream(regs.read32(block_offset(channel_target(direction), channel)));
    auto h2c = discover(regs, Direction::H2C, stream);
    return static_cast<unsigned>(h2c.ok() ? h2c->size() : 0) + channel;
}

}  // namespace

const char* to_string(EngineModeRequest request) { return pdt::spelling(request, kEngineModeSpellings); }

const char* to_string(CompletionRequest request) { return pdt::spelling(request, kCompletionSpellings); }

std::string describe(const Modes& modes, bool stream) {
    return std::string(stream ? "stream" : "memory-mapped") + ", engine mode " + option_name(modes.mode) +
           ", completion " + option_name(modes.completion) + " (" + modes.basis + ")";
}

pdt::Result<ProbedIp> probe_ip(const vfio::RegisterWindow& regs, Direction direction, unsigned channel) {
    const uint64_t ch = block_offset(channel_target(direction), channel);
    const uint64_t common = block_offset(target::SGDMA_COMMON);
    const uint32_t bit = sgdma_common_reg::channel_bit(direction, channel);
    const std::string object = std::string(to_string(direction)) + " " + std::to_string(channel);
    const uint32_t id = regs.read32(ch + channel_reg::IDENTIFIER);
    if (identifier::subsystem_identifier(id) != identifier::SUBSYSTEM_IDENTIFIER ||
        identifier::target(id) != channel_target(direction) || identifier::channel_id(id) != channel)
        return pdt::make_error("probe XDMA IP options", object, ENODEV,
                               "no such channel: its identifier reads " + pdt::hex(id));
    const uint32_t status_value = regs.read32(ch + channel_reg::STATUS);
    const uint32_t control_value = regs.read32(ch + channel_reg::CONTROL);
    if ((status_value & status::busy) || (control_value & control::run))
        return pdt::make_error("probe XDMA IP options", object, EBUSY,
                               "the channel is busy or running (status " + decode_status(direction, status_value) +
                                   "); probing needs an idle channel (another user of the channel?)");
    const uint32_t halt_before = regs.read32(common + sgdma_common_reg::DESCRIPTOR_CONTROL);
    const uint32_t credit_before = regs.read32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE);
    regs.write32(common + sgdma_common_reg::DESCRIPTOR_CONTROL_W1S, bit);  // halt descriptor fetch

    ProbedIp probed;
    regs.write32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE_W1S, bit);
    probed.descriptor_credits = (regs.read32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE) & bit) != 0;
    if (!(credit_before & bit))
        regs.write32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE_W1C, bit);

    regs.write32(ch + channel_reg::CONTROL_W1S, control::pollmode_wb_enable);
    probed.poll_mode_writeback = (regs.read32(ch + channel_reg::CONTROL) & control::pollmode_wb_enable) != 0;
    if (!probed.poll_mode_writeback) {  // an IP whose W1S alias does not work: a plain write tells
        regs.write32(ch + channel_reg::CONTROL, control_value | control::pollmode_wb_enable);
        probed.poll_mode_writeback = (regs.read32(ch + channel_reg::CONTROL) & control::pollmode_wb_enable) != 0;
        regs.write32(ch + channel_reg::CONTROL, control_value);
    } else if (!(control_value & control::pollmode_wb_enable)) {
        regs.write32(ch + channel_reg::CONTROL_W1C, control::pollmode_wb_enable);
    }

    const uint64_t irq = block_offset(target::IRQ_BLOCK);
    const unsigned source = irq_source(regs, direction, channel);
    const uint32_t irq_before = regs.read32(irq + irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK);
    if (regs.read32(ch + channel_reg::INTERRUPT_ENABLE_MASK) == 0) {
        regs.write32(irq + irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK_W1S, 1u << source);
        probed.interrupts = (regs.read32(irq + irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK) >> source) & 1;
        if (!((irq_before >> source) & 1))
            regs.write32(irq + irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK_W1C, 1u << source);
    } else {
        probed.interrupts = true;  // the channel's mask holds bits: the IP kept them
    }

    if (!(halt_before & bit))
        regs.write32(common + sgdma_common_reg::DESCRIPTOR_CONTROL_W1C, bit);
    return probed;
}

pdt::Result<Modes> choose_modes(vfio::Device& device, unsigned dma_bar, uint64_t register_offset, Direction direction,
                                unsigned channel, const IpOptions& stated, const ModeRequest& request) {
    const std::string object =
        device.identity().address.to_string() + " " + to_string(direction) + " " + std::to_string(channel);
    auto refuse = [&](const std::string& option, const std::string& hint) {
        return pdt::usage_error("choose XDMA " + option, object, hint);
    };
    std::optional<ProbedIp> probed;
    auto probe = [&]() -> pdt::Result<void> {
        const vfio::RegisterWindow regs = PDT_TRY(dma_registers(device, dma_bar, register_offset));
        PDT_CHECK(check_engine_blocks(regs, direction, channel));
        probed = PDT_TRY(probe_ip(regs, direction, channel));
        return {};
    };
    const bool need_probe = !stated.descriptor_credits || !stated.poll_mode_writeback ||
                            (request.completion == CompletionRequest::Interrupt && !stated.interrupts);
    if (need_probe)
        PDT_CHECK(probe());
    const bool credits = stated.descriptor_credits.value_or(probed && probed->descriptor_credits);
    const bool writeback = stated.poll_mode_writeback.value_or(probed && probed->poll_mode_writeback);
    Modes modes;
    modes.basis = std::string("descriptor credits ") + (credits ? "yes" : "no") +
                  (stated.descriptor_credits ? " (stated)" : " (probed)") + ", poll-mode writeback " +
                  (writeback ? "yes" : "no") + (stated.poll_mode_writeback ? " (stated)" : " (probed)");

    switch (request.mode) {
    case EngineModeRequest::Credits:
        if (!credits)
            return refuse("engine mode", lacking_feature_hint("engine mode credits", "descriptor credits",
                                                              stated.descriptor_credits,
                                                              "Descriptor Credit Mode Enable read back 0", "stop_list or auto"));
        modes.mode = RunMode::Credits;
        break;
    case EngineModeRequest::StopList: modes.mode = RunMode::StopList; break;
    case EngineModeRequest::Auto: modes.mode = credits ? RunMode::Credits : RunMode::StopList; break;
    }

    // Interrupt completion works when the IP's interrupt path is usable (stated, else probed)
    // and the device offers MSI or MSI-X vectors.
    auto interrupts_usable = [&] {
        if (!stated.interrupts && !probed && !probe().ok())
            return false;
        if (!stated.interrupts.value_or(probed && probed->interrupts))
            return false;
        auto msi = device.irq_info(vfio::IrqIndex::Msi);
        auto msix = device.irq_info(vfio::IrqIndex::Msix);
        return (msi.ok() && msi->count > 0) || (msix.ok() && msix->count > 0);
    };
    // Every completion that works on this IP but the refused one, for a refusal:
    // "poll_writeback, completed_count, status (with engine mode stop_list), interrupt or auto".
    auto working = [&](CompletionRequest refused) {
        std::vector<std::string> names;
        if (writeback && refused != CompletionRequest::PollWriteback)
            names.push_back("poll_writeback");
        if (refused != CompletionRequest::CompletedCount)
            names.push_back("completed_count");
        if (refused != CompletionRequest::Status)
            names.push_back(modes.mode == RunMode::StopList ? "status" : "status (with engine mode stop_list)");
        if (refused != CompletionRequest::Interrupt && interrupts_usable())
            names.push_back("interrupt");
        std::string text;
        for (const std::string& name : names)
            text += (text.empty() ? "" : ", ") + name;
        return text + " or auto";
    };

    switch (request.completion) {
    case CompletionRequest::PollWriteback:
        if (!writeback)
            return refuse("completion", lacking_feature_hint("completion poll_writeback", "poll-mode writeback",
                                                             stated.poll_mode_writeback,
                                                             "Control.pollmode_wb_enable read back 0",
                                                             working(request.completion)));
        modes.completion = CompletionMethod::PollWriteback;
        break;
    case CompletionRequest::CompletedCount: modes.completion = CompletionMethod::CompletedCountRegister; break;
    case CompletionRequest::Status:
        if (modes.mode != RunMode::StopList)
            return refuse("completion", "completion status needs STOP-terminated lists: the engine runs a "
                                        "credits ring that never stops; add engine mode stop_list, or use " +
                                            working(request.completion));
        modes.completion = CompletionMethod::StatusRegister;
        break;
    case CompletionRequest::Interrupt: {
        if (!stated.interrupts.value_or(probed && probed->interrupts))
            return refuse("completion", "completion interrupt: " +
                                            std::string(stated.interrupts
                                                            ? "the design data states the XDMA IP's interrupts are not usable"
                                                            : "the IRQ block's Channel Interrupt Enable Mask reads back 0, "
                                                              "the XDMA IP's interrupts are not usable") +
                                            "; use " + working(request.completion));
        auto msi = device.irq_info(vfio::IrqIndex::Msi);
        auto msix = device.irq_info(vfio::IrqIndex::Msix);
        if ((!msi.ok() || msi->count == 0) && (!msix.ok() || msix->count == 0))
            return refuse("completion", "completion interrupt: the device offers no MSI or MSI-X vectors" +
                                            (msi.ok() ? std::string() : " (" + msi.error().message() + ")") +
                                            "; use " + working(request.completion));
        modes.completion = CompletionMethod::Interrupt;
        break;
    }
    case CompletionRequest::Auto:
        modes.completion = writeback ? CompletionMethod::PollWriteback : CompletionMethod::CompletedCountRegister;
        break;
    }
    return modes;
}

pdt::Result<Modes> configure_engine(vfio::Device& device, const IpOptions& stated, const ModeRequest& request,
                                    EngineOptions& options) {
    const Modes modes = PDT_TRY(choose_modes(device, options.dma_bar, options.register_offset, options.direction,
                                             options.channel, stated, request));
    options.mode = modes.mode;
    options.completion = modes.completion;
    options.completion_auto = request.completion == CompletionRequest::Auto;
    if (modes.completion == CompletionMethod::Interrupt) {
        const unsigned vectors = PDT_TRY(enable_msi(device));
        options.msi_vector = msi_vector_for(options.direction, options.channel, vectors);
    }
    return modes;
}

pdt::Result<unsigned> enable_msi(vfio::Device& device) {
    unsigned enabled = 0;
    while (enabled < 32 && device.irq_eventfd(enabled).ok())
        ++enabled;
    if (enabled > 0)
        return enabled;  // enabled earlier (by another engine of this run): keep its eventfds
    // MSI as fpga_sio's designs use it; MSI-X when the IP was customised with it instead.
    for (const vfio::IrqIndex index : {vfio::IrqIndex::Msi, vfio::IrqIndex::Msix}) {
        auto info = device.irq_info(index);
        if (!info.ok() || info->count == 0)
            continue;
        PDT_CHECK(device.irq_enable(index, info->count));
        return info->count;
    }
    return pdt::make_error("enable MSI", device.identity().address.to_string(), ENOTSUP,
                           "the device offers no MSI or MSI-X vectors");
}

unsigned msi_vector_for(Direction direction, unsigned channel, unsigned vectors) {
    const unsigned source = (direction == Direction::H2C ? 0u : MAX_CHANNELS) + channel;
    return vectors == 0 ? 0 : source % vectors;
}

}  // namespace xdma
