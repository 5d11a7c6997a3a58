// What a VFIO device reset (VFIO_DEVICE_RESET) does to a device's registers: a list of
// registers read after open, written with known values and read again, then read after the
// reset (fpga_sio's test_dma_descriptor_credits -r). Each register's BAR access is checked
// (check_bar_access) before any register is touched. The caller chooses registers whose reads
// have no side effect and whose writes start nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vfio_access/device.hpp"

namespace vfio {

struct ResetRegister {
    std::string name;                // "H2C 0 Control (0x0004)"
    unsigned bar = 0;
    uint64_t offset = 0;
    unsigned width = 4;
    std::optional<uint64_t> write;   // the value written before the reset; none: read only
};

struct ResetReport {
    std::vector<ResetRegister> registers;
    // One value per register, in order.
    std::vector<uint64_t> after_open, after_write, after_reset;
};

// The reads, writes and reset above; `widths`: the widths the BARs take. Errors: a register
// refused by check_bar_access (nothing touched), the reset refused by the kernel (ENOTTY when
// the device has no reset method: the written registers are then given back their values after
// open, last first).
pdt::Result<ResetReport> registers_across_reset(Device& device, const std::vector<ResetRegister>& registers,
                                           const std::vector<unsigned>& widths);

// One line per register: "<name>: after open 0x.., after write 0x.., after reset 0x.. (<verdict>)",
// verdict "reset to its value after open", "kept the written value", "neither" or "read only".
std::vector<std::string> format_reset_report(const ResetReport& report);

}  // namespace vfio
