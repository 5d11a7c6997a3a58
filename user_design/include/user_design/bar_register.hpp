// A register of a user's design at a BAR offset, read, or written with its value before and after
// (reg_rw): 8, 16, 32 or 64 bits, checked before any access (vfio::check_bar_access: the BAR
// exists, the access lies inside it, the width is one the BAR takes, the offset is aligned).
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/device.hpp"

namespace user_design {

struct RegisterAccess {
    unsigned bar = 0;
    uint64_t offset = 0;  // bytes from the BAR's start
    unsigned bits = 32;   // 8, 16, 32 or 64
};

struct RegisterWrite {
    uint64_t before = 0;   // read before the write
    uint64_t written = 0;
    uint64_t after = 0;    // read after it (a register need not keep what was written)
};

// The value there. Errors as vfio::check_bar_access words them (ENODEV no such BAR, ERANGE outside
// it; a usage error for a width the BAR does not take, of `widths` bytes, or a misaligned offset).
pdt::Result<uint64_t> read_register(vfio::Device& device, const RegisterAccess& access,
                                    const std::vector<unsigned>& widths);
// `value` written there, read before and after. A usage error, before any access, for a value
// wider than the access.
pdt::Result<RegisterWrite> write_register(vfio::Device& device, const RegisterAccess& access, uint64_t value,
                                          const std::vector<unsigned>& widths);

}  // namespace user_design
