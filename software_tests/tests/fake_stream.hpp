// An in-memory loopback pair of stream channels for tests of the stream-test driver: what
// the H2C channel sends comes back, packet by packet, on the C2H channel. One fault can be
// injected at a chosen packet, to prove the driver catches each kind of error, and the C2H
// side can lie on every transfer as docs/verification.md defines (Lie).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "streams/stream_channel.hpp"

namespace fake {

enum class Fault {
    None,
    BitFlip,      // one bit of word 5 of the packet flipped
    Drop,         // the packet never arrives
    Duplicate,    // the packet arrives twice
    Reorder,      // the packet arrives after the next one
    Stale,        // the C2H completion is reported but the buffer is not written
    ShortLength,  // the packet arrives 64 bytes short (with EOP)
    Stall,        // from this packet on nothing reaches the C2H side
    WaitError,    // the C2H channel reports an error instead of this packet
};

// How the C2H side lies on every transfer: it completes each on time, with the right length
// and end of packet, and
//   MovesNothing    writes no byte of it into the buffer;
//   CompletesEarly  writes all but its last 64 bytes (all of a shorter piece): those land only
//                   when the C2H side starts its next transfer, which it does once the buffer of
//                   the previous completion is queued again (so every completion is checked
//                   before its last bytes land, and they then land in a buffer queued again).
//   StaleAfter      writes its first LoopbackConfig::stale_after transfers, then no byte: each
//                   buffer keeps what an earlier transfer of the stream brought.
enum class Lie { None, MovesNothing, CompletesEarly, StaleAfter };

struct LoopbackConfig {
    std::string bdf = "0000:15:00.0";
    unsigned h2c_channel = 0;
    unsigned c2h_channel = 1;
    size_t buffers = 8;
    uint64_t buffer_size = 4096;
    size_t c2h_buffers = 0;         // 0: as buffers
    uint64_t c2h_buffer_size = 0;   // 0: as buffer_size
    Fault fault = Fault::None;
    uint64_t fault_packet = 3;      // 0-based index of the H2C packet the fault hits
    size_t fifo_packets = 2;        // packets in flight between the two sides
    bool stop_leaves_busy = false;  // a broken stop(): the C2H channel keeps its queued buffers
    Lie lie = Lie::None;
    uint64_t stale_after = 0;       // Lie::StaleAfter: the C2H transfers written before it lies
    // C2H buffer i starts out holding the pattern of this stream (pass 0) from word
    // i * c2h_buffer_size / 4 on: what a loopback of that stream puts there on the first pass
    // through the ring. Stale bytes that happen to be right: only a poison before the submit
    // makes a lying C2H side fail on its first transfer.
    std::optional<uint64_t> c2h_prefill_stream;
};

class FakeChannel;

class FakeLoopback {
public:
    explicit FakeLoopback(LoopbackConfig config);
    ~FakeLoopback();
    streams::StreamChannel& h2c();
    streams::StreamChannel& c2h();
    uint64_t packets_sent() const;

private:
    friend class FakeChannel;
    bool stop_leaves_busy() const { return m_config.stop_leaves_busy; }
    struct Packet {
        std::vector<uint8_t> data;
        bool stale = false;
        size_t consumed = 0;
    };
    void pump();  // called with m_mutex held
    void move_h2c();
    void move_c2h();
    void deliver(Packet packet);
    void write_c2h(size_t buffer, const uint8_t* data, size_t length);
    void c2h_submitted(size_t buffer);

    LoopbackConfig m_config;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::unique_ptr<FakeChannel> m_h2c;
    std::unique_ptr<FakeChannel> m_c2h;
    std::deque<Packet> m_fifo;
    std::optional<Packet> m_held;  // Reorder: the packet waiting for its successor
    struct Late {  // CompletesEarly: the last bytes of the last C2H transfer, not landed yet
        size_t buffer;
        size_t offset;
        std::vector<uint8_t> bytes;
    };
    std::optional<Late> m_late;
    uint64_t m_c2h_transfers = 0;  // C2H transfers the fake has written or lied about
    std::optional<size_t> m_awaiting_resubmit;  // CompletesEarly: the buffer of the last transfer
    uint64_t m_packets = 0;
    bool m_stalled = false;
    bool m_error_pending = false;
};

}  // namespace fake
