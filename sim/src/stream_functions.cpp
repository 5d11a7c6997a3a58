// The card side of the XDMA model's AXI4-Stream channels: H2C data flows piece by piece into
// the card function (a loopback through the routing table, a CRC-64 engine, or a fixed-data
// sink), C2H channels read bounded input FIFOs (or the fixed-data source), and H2C stalls
// while the FIFO it feeds is full, as AXI4-Stream tready backpressure does.
#include <algorithm>
#include <array>

#include "xdma_internal.hpp"

namespace sim::xdma_impl {
namespace {

constexpr uint64_t kPiece = 0x10000;  // the most bytes one engine step moves
constexpr uint64_t kCrcResultBytes = 8;
constexpr uint64_t kCrcPolynomial = 0xC96C5795D7870F42ull;  // ECMA-182, reflected

// CRC-64 one byte at a time, least significant bit first (a reflected CRC): the same as
// taking each 64-bit little-endian word at once, as the card's parallel CRC does.
uint64_t crc64_update(uint64_t crc, const uint8_t* data, size_t n) {
    static const std::array<uint64_t, 256> table = [] {
        std::array<uint64_t, 256> t{};
        for (unsigned i = 0; i < 256; ++i) {
            uint64_t c = i;
            for (int bit = 0; bit < 8; ++bit)
                c = (c >> 1) ^ ((c & 1) ? kCrcPolynomial : 0);
            t[i] = c;
        }
        return t;
    }();
    for (size_t i = 0; i < n; ++i)
        crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

using Function = XdmaStreamFunction;

// Starts an H2C packet: where it goes, and the packet faults that apply to it.
void open_packet(Impl& impl, Channel& ch) {
    ch.packet_open = true;
    ch.packet_held = ch.packet_duplicated = false;
    ch.packet.clear();
    ch.crc = ~0ull;
    ch.packet_bytes = 0;
    ch.packet_to = impl.config.stream_function == Function::FixedData ? std::nullopt : impl.route_of(ch.index);
    if (!ch.packet_to)
        return;
    if (impl.take_fault(ch, XdmaFault::DropPacket))
        ch.packet_to.reset();
    else if (impl.take_fault(ch, XdmaFault::ReorderPacket))
        ch.packet_held = true;
    else if (impl.take_fault(ch, XdmaFault::DuplicatePacket))
        ch.packet_duplicated = true;
}

// Sends a piece of the packet (loopback data, or the CRC result) towards its C2H channel.
void send_piece(Impl& impl, Channel& ch, std::vector<uint8_t> data, bool last) {
    if (!ch.packet_to)
        return;  // dropped, or no route: the switch discards it
    if (ch.packet_held || ch.packet_duplicated)
        ch.packet.insert(ch.packet.end(), data.begin(), data.end());
    if (!ch.packet_held)
        impl.push_c2h_locked(*ch.packet_to, std::move(data), last);
}

// Ends the packet: a held packet waits for the next one; a duplicate goes again; a packet
// held before goes after this one.
void close_packet(Impl& impl, Channel& ch) {
    ch.packet_open = false;
    if (!ch.packet_to)
        return;
    if (ch.packet_held) {
        ch.held_packet = std::exchange(ch.packet, {});
        return;
    }
    if (ch.packet_duplicated)
        impl.push_c2h_locked(*ch.packet_to, std::exchange(ch.packet, {}), true);
    if (ch.held_packet)
        impl.push_c2h_locked(*ch.packet_to, *std::exchange(ch.held_packet, std::nullopt), true);
}

// CRC-64 engine: the whole packet in, its CRC out as one 8-byte packet at the end.
void crc_piece(Impl& impl, Channel& ch, const std::vector<uint8_t>& data, bool last) {
    ch.crc = crc64_update(ch.crc, data.data(), data.size());
    ch.packet_bytes += data.size();
    if (!last)
        return;
    const uint64_t beat = impl.config.stream_tdata_bytes;
    if (const uint64_t partial = ch.packet_bytes % beat; partial != 0) {
        impl.violation(ch, "CRC64 packet of " + std::to_string(ch.packet_bytes) + " bytes is not a multiple of the " +
                               std::to_string(beat) + "-byte tdata width (the CRC covers whole beats)");
        const std::vector<uint8_t> pad(beat - partial, 0);
        ch.crc = crc64_update(ch.crc, pad.data(), pad.size());
    }
    std::vector<uint8_t> result(kCrcResultBytes);
    for (size_t i = 0; i < kCrcResultBytes; ++i)
        result[i] = static_cast<uint8_t>(ch.crc >> (8 * i));
    send_piece(impl, ch, std::move(result), true);
}

}  // namespace

std::optional<unsigned> Impl::route_of(unsigned h2c_index) const {
    const std::optional<unsigned> to = router ? router(h2c_index) : routes[h2c_index];
    return to && *to < c2h.size() ? to : std::nullopt;
}

uint64_t Impl::fifo_free(unsigned c2h_index) const {
    const uint64_t used = c2h[c2h_index].input_bytes;
    return used >= config.stream_fifo_bytes ? 0 : config.stream_fifo_bytes - used;
}

bool Impl::h2c_stream_ready(const Channel& ch) const {
    const Descriptor& d = *ch.current;
    const std::optional<unsigned> to = ch.packet_open ? ch.packet_to : route_of(ch.index);
    switch (config.stream_function) {
    case Function::FixedData: return true;  // the sink is always ready
    case Function::Crc64: {
        // The CRC engine takes data at line rate; only the result needs room in the FIFO.
        const bool ends_packet = (d.control() & kDescEop) && d.length - ch.current_filled <= kPiece;
        return !ends_packet || !to || fifo_free(*to) >= kCrcResultBytes;
    }
    case Function::Loopback: return !to || ch.packet_held || fifo_free(*to) > 0;
    }
    return true;
}

bool Impl::c2h_stream_ready(const Channel& ch) const {
    return config.stream_function == Function::FixedData || !ch.input.empty();
}

void Impl::abort_stream_packet(Channel& ch) {
    ch.packet_open = false;
    ch.packet_held = ch.packet_duplicated = false;
    ch.packet.clear();
}

void Impl::push_c2h_locked(unsigned c2h_index, std::vector<uint8_t> data, bool eop) {
    if (c2h_index >= c2h.size())
        return;
    Channel& ch = c2h[c2h_index];
    ch.input_bytes += data.size();
    peak_pending = std::max(peak_pending, ch.input_bytes);
    ch.input.push_back(StreamChunk{std::move(data), 0, eop});
    ++generation;
}

bool move_h2c_stream(Impl& impl, Channel& ch) {
    if (!impl.h2c_stream_ready(ch))
        return false;
    const Descriptor d = *ch.current;
    if (!ch.packet_open)
        open_packet(impl, ch);
    const bool loopback = impl.config.stream_function == Function::Loopback;
    uint64_t n = std::min<uint64_t>(d.length - ch.current_filled, kPiece);
    if (loopback && ch.packet_to && !ch.packet_held)
        n = std::min(n, impl.fifo_free(*ch.packet_to));
    std::vector<uint8_t> data(n);
    if (n > 0 && !impl.device.dma_read(d.src_adr + ch.current_filled, data.data(), n)) {
        impl.abort_stream_packet(ch);
        stop_with_error(impl, ch, kStatusReadErrorUr);
        return true;
    }
    flip_bit(impl, ch, data);
    impl.bytes_moved += n;
    ch.current_filled += n;
    const bool eop = d.control() & kDescEop;
    const bool last = eop && ch.current_filled == d.length;
    switch (impl.config.stream_function) {
    case Function::FixedData: break;  // the sink discards it
    case Function::Loopback: send_piece(impl, ch, std::move(data), last); break;
    case Function::Crc64: crc_piece(impl, ch, data, last); break;
    }
    if (last)
        close_packet(impl, ch);
    if (ch.current_filled == d.length)
        complete(impl, ch, eop);
    return true;
}

namespace {

// The fixed-data source: zeros, always valid, tlast never set.
void fill_fixed_data(Impl& impl, Channel& ch) {
    const Descriptor& d = *ch.current;
    const uint64_t n = std::min<uint64_t>(d.length - ch.current_filled, kPiece);
    std::vector<uint8_t> zeros(n, 0);
    flip_bit(impl, ch, zeros);
    deliver(impl, ch, false, d.dst_adr + ch.current_filled, zeros.data(), n);
    impl.bytes_moved += n;
    ch.current_filled += n;
    if (ch.current_filled == d.length)
        complete(impl, ch, false);
}

}  // namespace

void move_c2h_stream(Impl& impl, Channel& ch) {
    if (impl.config.stream_function == Function::FixedData) {
        fill_fixed_data(impl, ch);
        return;
    }
    const Descriptor& d = *ch.current;
    bool eop = false;
    while (!ch.input.empty() && ch.current_filled < d.length) {
        StreamChunk& chunk = ch.input.front();
        const uint64_t n = std::min<uint64_t>(chunk.data.size() - chunk.consumed, d.length - ch.current_filled);
        std::vector<uint8_t> piece(chunk.data.begin() + static_cast<long>(chunk.consumed),
                                   chunk.data.begin() + static_cast<long>(chunk.consumed + n));
        flip_bit(impl, ch, piece);
        deliver(impl, ch, false, d.dst_adr + ch.current_filled, piece.data(), n);
        chunk.consumed += n;
        ch.input_bytes -= n;
        impl.bytes_moved += n;
        ch.current_filled += n;
        if (chunk.consumed == chunk.data.size()) {
            eop = chunk.eop;
            ch.input.pop_front();
            if (eop)
                break;
        }
    }
    if (eop || ch.current_filled == d.length)
        complete(impl, ch, eop);
}

}  // namespace sim::xdma_impl
