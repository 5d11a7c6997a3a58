// XDMA descriptor (PG195 "Descriptors", 32 bytes, little-endian, 32-byte aligned) and the
// writeback records the engine writes to host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace xdma {

inline constexpr uint16_t DESCRIPTOR_MAGIC = 0xAD4B;
inline constexpr uint32_t MAX_DESCRIPTOR_LENGTH = (1u << 28) - 1;  // Length [27:0]
inline constexpr unsigned MAX_NXT_ADJ = 63;                         // Nxt_adj [13:8]
inline constexpr uint64_t DESCRIPTOR_BLOCK_BOUNDARY = 4096;         // adjacent blocks must not cross it

// Descriptor control field bits (dword 0 [7:0]).
namespace descriptor_control {
inline constexpr uint8_t STOP = 1u << 0;
inline constexpr uint8_t COMPLETED = 1u << 1;
inline constexpr uint8_t EOP = 1u << 4;
}  // namespace descriptor_control

struct Descriptor {
    uint8_t control = 0;        // +0 [7:0]: STOP, COMPLETED, EOP
    uint8_t nxt_adj = 0;        // +1 [13:8] of dword 0 (bits 7:6 of this byte reserved)
    uint16_t magic = 0;         // +2 [31:16] of dword 0: 0xAD4B
    uint32_t length = 0;        // +4 [27:0] bytes; [31:28] reserved
    uint64_t src_adr = 0;       // +8
    uint64_t dst_adr = 0;       // +16
    uint64_t nxt_adr = 0;       // +24: bus address of the next descriptor

    static Descriptor make(uint8_t control, uint32_t length, uint64_t src, uint64_t dst, uint64_t next,
                           unsigned adjacent = 0) {
        return Descriptor{control, static_cast<uint8_t>(adjacent & 0x3F), DESCRIPTOR_MAGIC,
                          length & MAX_DESCRIPTOR_LENGTH, src, dst, next};
    }
};
static_assert(sizeof(Descriptor) == 32);

// Stores `d` at `at` (a ring slot) as its four little-endian 64-bit words, each assembled in a
// register and stored on its own: copying a Descriptor built field by field on the stack (or
// an array of the words) makes the wide loads of the copy wait on store forwarding.
inline void store_descriptor(uint8_t* at, const Descriptor& d) {
    const uint64_t word0 = uint64_t{d.control} | uint64_t{d.nxt_adj} << 8 | uint64_t{d.magic} << 16 |
                           uint64_t{d.length} << 32;
    std::memcpy(at, &word0, 8);
    std::memcpy(at + 8, &d.src_adr, 8);
    std::memcpy(at + 16, &d.dst_adr, 8);
    std::memcpy(at + 24, &d.nxt_adr, 8);
}

static_assert(offsetof(Descriptor, control) == 0);
static_assert(offsetof(Descriptor, nxt_adj) == 1);
static_assert(offsetof(Descriptor, magic) == 2);
static_assert(offsetof(Descriptor, length) == 4);
static_assert(offsetof(Descriptor, src_adr) == 8);
static_assert(offsetof(Descriptor, dst_adr) == 16);
static_assert(offsetof(Descriptor, nxt_adr) == 24);

// Poll-mode completed descriptor count writeback: bit 31 = error, [23:0] completed count.
namespace poll_writeback {
inline constexpr uint32_t ERROR = 1u << 31;
inline constexpr uint32_t COUNT_MASK = 0x00FFFFFF;
}  // namespace poll_writeback

// Extends a completed-descriptor count the hardware keeps in `mask` bits (24 in the poll-mode
// writeback, 32 in the register) to the 64-bit count the driver keeps: `known` plus the
// progress since, with wrap.
inline uint64_t extend_count(uint64_t known, uint32_t hardware, uint32_t mask) {
    return known + ((hardware - static_cast<uint32_t>(known)) & mask);
}

// C2H stream writeback record, one per C2H descriptor at the descriptor's src_adr.
struct C2hStreamWriteback {
    uint32_t wb_magic_status = 0;  // [31:16] 0x52B4, bit 0 EOP
    uint32_t length = 0;           // bytes the engine wrote for the descriptor
};
static_assert(sizeof(C2hStreamWriteback) == 8);
inline constexpr uint16_t C2H_STREAM_WRITEBACK_MAGIC = 0x52B4;
inline constexpr uint32_t C2H_STREAM_WRITEBACK_EOP = 1u << 0;

// The number of extra descriptors contiguous after descriptor `next` (Nxt_adj of the descriptor
// that points to it, or SGDMA Descriptor Adjacent for the first), for a list occupying indices
// [0, count) laid out contiguously from a 4 KiB-aligned base: limited by the list end, the
// 4 KiB boundary and the 6-bit field.
inline unsigned adjacent_after(size_t next, size_t count) {
    const size_t per_block = DESCRIPTOR_BLOCK_BOUNDARY / sizeof(Descriptor);
    const size_t block_end = (next / per_block + 1) * per_block;  // first index of the next block
    const size_t last = (count < block_end ? count : block_end) - 1;
    const size_t extra = last - next;
    return static_cast<unsigned>(extra < MAX_NXT_ADJ ? extra : MAX_NXT_ADJ);
}

}  // namespace xdma
