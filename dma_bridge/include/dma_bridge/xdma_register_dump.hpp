// The registers of one XDMA engine decoded with PG195's register and field names, for the
// failure report a tool prints on a DMA timeout or error (so a report from the field can be read
// without a second run), and the process-wide hook through which engines announce failures.
//
//   xdma::set_failure_observer([](const xdma::FailureReport& r) { print(r.registers); });
//
// Reading the dump changes nothing: Status is read at 0x40 (RW1C, not the clear-on-read 0x44).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dma_bridge/xdma_direction.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/mmio.hpp"

namespace xdma {

// One line per register, e.g.
//   "H2C Channel 0 Status (0x0040) = 0x00000011: busy+ descriptor_stopped- ... magic_stopped+ ..."
// Channel (0x00, 0x04, 0x40, 0x48, 0x4C, 0x88/0x8C, 0x90), SGDMA (0x80/0x84, 0x88, 0x8C),
// the channel's bits of the SGDMA Common (0x10, 0x20) and IRQ block (0x10, 0x44, 0x4C) registers.
// regs: the DMA register space (64 KiB, split 64-bit accesses).
std::vector<std::string> dump_channel_registers(const vfio::RegisterWindow& regs, Direction direction, unsigned channel);

// "run+ ie_descriptor_stopped- ..." for a Control value; every field.
std::string decode_control_bits(Direction direction, uint32_t value);
// "ie_descriptor_stopped- ... ie_desc_error: ..." for an Interrupt Enable Mask value (0x90).
std::string decode_enable_bits(Direction direction, uint32_t value);
// "busy+ descriptor_stopped- ... read_error: unsupported_request- ..." for a Status value; every field.
std::string decode_status_bits(Direction direction, uint32_t value);

// An engine's failure: its name ("0000:15:00.0 H2C 0"), what went wrong, its registers read at
// the moment of the failure, and the device (for the tool to add its PCIe error status).
struct FailureReport {
    std::string engine;
    std::string what;
    std::vector<std::string> registers;
    vfio::Device* device = nullptr;
};
using FailureObserver = std::function<void(const FailureReport&)>;
// Process-wide (tools install one that prints the report); an empty function removes it. The
// observer may be called from several threads at once.
void set_failure_observer(FailureObserver observer);
void notify_failure(const FailureReport& report);
// Whether an observer is installed (a report need not be built otherwise).
bool failure_observed();

// Warnings of the driver: an IP that behaves unlike PG195 but can still be driven (a fallback
// was taken), or a register value that makes no sense and was ignored. engine: "0000:15:00.0
// H2C 0". Without an observer each distinct warning goes to stderr once per process, as
// "Warning: <engine>: <text>". Process-wide; an empty function restores the default.
using WarningObserver = std::function<void(const std::string& engine, const std::string& text)>;
void set_warning_observer(WarningObserver observer);
void notify_warning(const std::string& engine, const std::string& text);

}  // namespace xdma
