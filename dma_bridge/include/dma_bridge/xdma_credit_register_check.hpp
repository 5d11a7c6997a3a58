// The Descriptor Credits register of H2C channel 0 checked by read-back (PG195: H2C SGDMA
// Descriptor Credits, 0x408C; SGDMA Common Descriptor Credit Mode Enable, 0x6020/24/28): with
// descriptor fetch halted (SGDMA Common Descriptor Control, 0x6010) and Run set, credits added k
// at a time for every k from 1 to 1022 read back as their sum up to 1023, and disabling credit
// mode resets them to 0. Leaves Run clear and fetch not halted. The channel must be idle.
#pragma once

#include "base/result.hpp"
#include "vfio_access/mmio.hpp"

namespace xdma {

pdt::Result<void> check_descriptor_credit_register(const vfio::RegisterWindow& regs);

}  // namespace xdma
