// How to drive the XDMA IP of a design: PG195 lets a design be customised without descriptor
// credits, without poll-mode writeback, without usable interrupts and with a DMA BAR smaller
// than 64 KiB. The run mode and completion method of each engine follow from what the design
// data states about its IP (IpOptions), what the user asked for (ModeRequest) and, for what is
// not stated, a safe probe: register read-back on an idle channel with descriptor fetch
// halted, never a DMA.
//
//   const xdma::IpOptions stated{.descriptor_credits = false};
//   auto modes = PDT_TRY(xdma::choose_modes(device, bar, 0, Direction::H2C, 0, stated, request));
//   engine_options.mode = modes.mode; engine_options.completion = modes.completion;
#pragma once

#include <optional>
#include <string>

#include "base/spellings.hpp"
#include "dma_bridge/xdma_engine.hpp"

namespace xdma {

// What the XDMA IP was customised with; unset = not stated (probed when it matters).
struct IpOptions {
    std::optional<bool> descriptor_credits;   // "Descriptor credits" (SGDMA Descriptor Credits, 0x8C)
    std::optional<bool> poll_mode_writeback;  // Control.pollmode_wb_enable (bit 26) implemented
    std::optional<bool> interrupts;           // the MSI/MSI-X interrupt path is usable
};

// What is asked of the engines: an engine mode (auto, credits, stop_list) and a completion (auto,
// poll_writeback, completed_count, status, interrupt), spelled as kEngineModeSpellings and
// kCompletionSpellings write them.
enum class EngineModeRequest { Auto, Credits, StopList };
enum class CompletionRequest { Auto, PollWriteback, CompletedCount, Status, Interrupt };
struct ModeRequest {
    EngineModeRequest mode = EngineModeRequest::Auto;
    CompletionRequest completion = CompletionRequest::Auto;
};
// The spellings of the requests, for the command-line layer to parse (pdt::parse_spelling) and
// for progress lines: the driver itself takes the typed request, never option text.
inline constexpr pdt::Spelling<EngineModeRequest> kEngineModeSpellings[] = {
    {EngineModeRequest::Auto, "auto"}, {EngineModeRequest::Credits, "credits"}, {EngineModeRequest::StopList, "stop_list"}};
inline constexpr pdt::Spelling<CompletionRequest> kCompletionSpellings[] = {
    {CompletionRequest::Auto, "auto"},
    {CompletionRequest::PollWriteback, "poll_writeback"},
    {CompletionRequest::CompletedCount, "completed_count"},
    {CompletionRequest::Status, "status"},
    {CompletionRequest::Interrupt, "interrupt"}};
const char* to_string(EngineModeRequest request);  // the option spelling
const char* to_string(CompletionRequest request);

// What register read-back shows the IP implements.
struct ProbedIp {
    bool descriptor_credits = false;
    bool poll_mode_writeback = false;
    bool interrupts = false;  // the IRQ block's Channel Interrupt Enable Mask bit reads back
};
// Probes one channel, which must be idle (Status.busy clear, Control.run clear): halts its
// descriptor fetch (SGDMA Common Descriptor Control W1S), sets and reads back its Descriptor
// Credit Mode Enable bit, its Control.pollmode_wb_enable bit and its IRQ block Channel
// Interrupt Enable Mask bit, then restores every register it touched. Fails with EBUSY on a busy or running channel (another user?).
pdt::Result<ProbedIp> probe_ip(const vfio::RegisterWindow& regs, Direction direction, unsigned channel);

struct Modes {
    RunMode mode = RunMode::Credits;
    CompletionMethod completion = CompletionMethod::PollWriteback;
    std::string basis;  // "stated" / "probed" per option, for progress lines
};
// The line every DMA tool prints for its engines: "memory-mapped, engine mode credits, completion
// poll_writeback (descriptor credits yes (probed), poll-mode writeback yes (probed))".
std::string describe(const Modes& modes, bool stream);

// Resolves the request against the IP. An explicit choice the IP cannot do is a usage error naming
// the request in these words ("engine mode credits", "completion status") and why (stated in the
// design data, or read back as 0); its operation is "choose XDMA engine mode" or "choose XDMA
// completion", for the tool layer to name its options. Auto picks credits when
// the IP has them, else STOP-terminated lists; poll-mode writeback when the IP has it, else
// the Completed Descriptor Count register. Interrupt completion also needs MSI on the device
// (irq_info(Msi) or irq_info(Msix) with at least one vector).
pdt::Result<Modes> choose_modes(vfio::Device& device, unsigned dma_bar, uint64_t register_offset, Direction direction,
                                unsigned channel, const IpOptions& stated, const ModeRequest& request);

// choose_modes for the engine `options` names (bar, offset, direction, channel), then sets its
// mode and completion; for interrupt completion also enables MSI and picks the vector.
pdt::Result<Modes> configure_engine(vfio::Device& device, const IpOptions& stated, const ModeRequest& request,
                                    EngineOptions& options);

// Enables MSI (else MSI-X) on the device with every vector it offers, unless already enabled
// (engines opened earlier keep their eventfds); returns the number of vectors enabled.
pdt::Result<unsigned> enable_msi(vfio::Device& device);
// The vector an engine uses among `vectors`: H2C channels 0..3, then C2H channels 4..7, folded.
unsigned msi_vector_for(Direction direction, unsigned channel, unsigned vectors);

}  // namespace xdma
