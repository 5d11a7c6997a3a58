// XDMA writeback and descriptor decoding (dma_bridge): the poll-mode completed descriptor count
// writeback, the C2H stream writeback record, Status register decoding, the wrap-extended
// completion count and the Nxt_adj computation, over arbitrary words. Properties: the checks
// the engine relies on (a record longer than its descriptor or with a wrong magic is refused;
// counts never go backwards nor jump past the mask; adjacent blocks never cross 4 KiB).
#include <cstring>

#include "dma_bridge/xdma_registers.hpp"
#include "dma_bridge/xdma_writeback.hpp"
#include "fuzz_support.hpp"

namespace {

template <typename T>
T take(const uint8_t*& data, size_t& size) {
    T value{};
    const size_t n = std::min(sizeof value, size);
    std::memcpy(&value, data, n);
    data += n;
    size -= n;
    return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto wb_word = take<uint32_t>(data, size);
    const auto record = take<xdma::C2hStreamWriteback>(data, size);
    const auto capacity = take<uint32_t>(data, size) & xdma::MAX_DESCRIPTOR_LENGTH;
    const auto known = take<uint64_t>(data, size);
    const auto status_value = take<uint32_t>(data, size);
    const auto next = take<uint16_t>(data, size);
    const auto count = take<uint16_t>(data, size);
    const auto raw = take<xdma::Descriptor>(data, size);

    const xdma::PollWriteback poll = xdma::decode_poll_writeback(wb_word);
    PDT_FUZZ_CHECK(poll.error == ((wb_word >> 31) != 0) && poll.count <= xdma::poll_writeback::COUNT_MASK);
    const uint64_t extended = xdma::extend_count(known, poll.count, xdma::poll_writeback::COUNT_MASK);
    PDT_FUZZ_CHECK(extended - known <= xdma::poll_writeback::COUNT_MASK);
    PDT_FUZZ_CHECK((extended & xdma::poll_writeback::COUNT_MASK) == poll.count);

    const auto stream = xdma::decode_stream_writeback(record, capacity);
    if (stream) {
        PDT_FUZZ_CHECK((record.wb_magic_status >> 16) == xdma::C2H_STREAM_WRITEBACK_MAGIC);
        PDT_FUZZ_CHECK(stream->length <= capacity);
    } else {
        PDT_FUZZ_CHECK(stream.error().code == EPROTO && !stream.error().hint.empty());
    }

    for (auto direction : {xdma::Direction::H2C, xdma::Direction::C2H})
        (void)xdma::decode_status(direction, status_value);

    if (count > 0 && next < count) {
        const unsigned adjacent = xdma::adjacent_after(next, count);
        PDT_FUZZ_CHECK(adjacent <= xdma::MAX_NXT_ADJ && next + adjacent < count);
        const uint64_t first_byte = next * sizeof(xdma::Descriptor);
        const uint64_t last_byte = (next + adjacent + 1) * sizeof(xdma::Descriptor) - 1;
        PDT_FUZZ_CHECK(first_byte / xdma::DESCRIPTOR_BLOCK_BOUNDARY == last_byte / xdma::DESCRIPTOR_BLOCK_BOUNDARY);
    }

    // A descriptor the driver builds from any field values keeps the magic and the field widths.
    const auto made = xdma::Descriptor::make(raw.control, raw.length, raw.src_adr, raw.dst_adr, raw.nxt_adr, raw.nxt_adj);
    PDT_FUZZ_CHECK(made.magic == xdma::DESCRIPTOR_MAGIC && made.length <= xdma::MAX_DESCRIPTOR_LENGTH &&
                   made.nxt_adj <= xdma::MAX_NXT_ADJ);
    return 0;
}
