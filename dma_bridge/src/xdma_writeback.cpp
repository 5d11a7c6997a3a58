#include "dma_bridge/xdma_writeback.hpp"

#include <cstdio>
#include <string>

namespace xdma {

PollWriteback decode_poll_writeback(uint32_t word) {
    return PollWriteback{(word & poll_writeback::ERROR) != 0, word & poll_writeback::COUNT_MASK};
}

pdt::Result<StreamWriteback> decode_stream_writeback(const C2hStreamWriteback& record, uint64_t capacity) {
    if ((record.wb_magic_status >> 16) != C2H_STREAM_WRITEBACK_MAGIC) {
        char text[96];
        std::snprintf(text, sizeof text, "Incorrect stream wb_magic_status 0x%08x (expected magic 0x52B4)",
                      record.wb_magic_status);
        return pdt::make_error("decode C2H stream writeback", "record", EPROTO, text);
    }
    if (record.length > capacity)
        return pdt::make_error("decode C2H stream writeback", "record", EPROTO,
                               "C2H stream writeback length " + std::to_string(record.length) +
                                   " exceeds the descriptor length " + std::to_string(capacity));
    return StreamWriteback{record.length, (record.wb_magic_status & C2H_STREAM_WRITEBACK_EOP) != 0};
}

}  // namespace xdma
