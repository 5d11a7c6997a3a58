// QEMU's edu device as its specification states it (QEMU docs/specs/edu.rst, hw/misc/edu.c):
// the model's own copy of the register map, written from the spec and not taken from the edu
// adapter (edu/), so that the model checks the adapter instead of sharing its mistakes.
#pragma once

#include <cstdint>

namespace sim::edu_spec {

inline constexpr uint16_t VENDOR_ID = 0x1234;  // edu.rst: "PCI ID: 1234:11e8"
inline constexpr uint16_t DEVICE_ID = 0x11e8;
inline constexpr uint64_t BAR0_SIZE = 1u << 20;  // "MMIO area spec": BAR0, 1 MB

// edu.rst "MMIO area spec" (offsets into BAR0)
namespace reg {
inline constexpr uint64_t IDENTIFICATION = 0x00;  // 0xRRrr00ed: major RR, minor rr
inline constexpr uint64_t LIVENESS = 0x04;        // reads back the bitwise NOT of the value written
inline constexpr uint64_t FACTORIAL = 0x08;
inline constexpr uint64_t STATUS = 0x20;
inline constexpr uint64_t IRQ_STATUS = 0x24;
inline constexpr uint64_t IRQ_RAISE = 0x60;
inline constexpr uint64_t IRQ_ACK = 0x64;
inline constexpr uint64_t DMA_SRC = 0x80;
inline constexpr uint64_t DMA_DST = 0x88;
inline constexpr uint64_t DMA_COUNT = 0x90;
inline constexpr uint64_t DMA_CMD = 0x98;
}  // namespace reg

// 0x98 "DMA command register": bit 0 start (reads 1 until done), bit 1 direction (0 RAM to edu,
// 1 edu to RAM), bit 2 raise interrupt 0x100 when done.
inline constexpr uint32_t DMA_CMD_START = 0x1;
inline constexpr uint32_t DMA_CMD_TO_RAM = 0x2;
inline constexpr uint32_t DMA_CMD_IRQ = 0x4;
inline constexpr uint32_t DMA_IRQ = 0x100;
// "DMA controller": the device's buffer is at edu address 0x40000, 4096 bytes; hw/misc/edu.c
// masks host addresses with its dma_mask (28 bits by default).
inline constexpr uint64_t DMA_BUFFER_ADDRESS = 0x40000;
inline constexpr uint32_t DMA_BUFFER_SIZE = 4096;
inline constexpr unsigned DMA_MASK_BITS = 28;

}  // namespace sim::edu_spec
