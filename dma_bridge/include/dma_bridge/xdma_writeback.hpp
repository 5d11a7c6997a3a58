// Decoding what the XDMA engine writes back to host memory (PG195 "Poll Mode" completed
// descriptor count writeback and the C2H stream writeback record): plain functions over the raw
// words, so the engine and the fuzz targets (fuzz/) check them the same way.
#pragma once

#include <cstdint>

#include "base/result.hpp"
#include "dma_bridge/xdma_descriptor.hpp"

namespace xdma {

// The poll-mode writeback word: bit 31 error, [23:0] completed descriptor count.
struct PollWriteback {
    bool error = false;
    uint32_t count = 0;
};
PollWriteback decode_poll_writeback(uint32_t word);

// One C2H stream writeback record, checked against the length of its descriptor (`capacity`).
struct StreamWriteback {
    uint32_t length = 0;  // bytes the engine wrote, <= capacity
    bool end_of_packet = false;
};
// EPROTO naming the fault: "Incorrect stream wb_magic_status 0x... (expected magic 0x52B4)" or
// "C2H stream writeback length N exceeds the descriptor length M" (in the hint).
pdt::Result<StreamWriteback> decode_stream_writeback(const C2hStreamWriteback& record, uint64_t capacity);

}  // namespace xdma
