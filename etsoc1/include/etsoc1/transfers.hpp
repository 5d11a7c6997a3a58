// The adapter's transfer logic, written only against etsoc1::Card: a transfer of any size is
// split at the card's DMA node limits into commands (each at most max_nodes nodes of at most
// max_node_bytes); at most `window` commands per direction are in flight, the rest wait their
// turn; every command carries the barrier flag the configuration gives (never the runtime's
// per-direction default); after every wait that saw a command complete, the stream's errors
// are drained, and any error fails the transfer that command belongs to, naming it (of several,
// the error of the command issued first, whatever order they completed in).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "etsoc1/card.hpp"
#include "streams/kept_memory.hpp"
#include "streams/stream_channel.hpp"

namespace etsoc1 {

using streams::Direction;

// [host, host + bytes) <-> [card, card + bytes) as commands of whole nodes.
std::vector<std::vector<Node>> split(const DmaLimits& limits, uint8_t* host, CardAddress card, uint64_t bytes);

// The same range in other pieces, for reading back what split wrote (docs/verification.md rule
// 3): in halves (a multiple of 4 bytes first) when it fits two nodes, else in nodes of the
// limit; issued last piece first, packed into commands of max_nodes nodes. A card path that
// hands back the bytes it staged for the write (a reused bounce buffer that the DMA never
// refilled) then puts them at the wrong places. A range of 4 bytes or fewer stays one node.
std::vector<std::vector<Node>> split_last_first(const DmaLimits& limits, uint8_t* host, CardAddress card,
                                                uint64_t bytes);

// How a transfer is cut into commands: split, or split_last_first.
enum class Chunking { InOrder, LastPieceFirst };

struct MoverConfig {
    int device = 0;
    unsigned window = 4;             // commands in flight per direction (the card has 4 channels each)
    unsigned streams_per_direction = 4;  // card streams each direction's commands go round-robin over
    bool barrier_to_card = false;    // set on every host-to-card command
    bool barrier_from_card = false;  // set on every card-to-host command (the runtime would default to true)
    // An abandon's aborts, all the direction's streams together, wait at most this long (the
    // tool's transfer timeout, in whole seconds as the card waits).
    std::chrono::milliseconds abort_timeout{5000};
};

using TransferId = uint64_t;

class Mover {
public:
    // Creates the card streams; destroys them when destroyed.
    static pdt::Result<std::unique_ptr<Mover>> open(Card& card, MoverConfig config);
    ~Mover();
    Mover(const Mover&) = delete;
    Mover& operator=(const Mover&) = delete;

    const DmaLimits& limits() const { return m_limits; }
    const MoverConfig& config() const { return m_config; }
    Card& card() { return m_card; }
    // The card stream of a direction's index (< streams_per_direction).
    StreamId stream(Direction direction, unsigned index) const;

    // Queues a transfer and issues what the window allows; returns at once. With a stream
    // index all its commands go on that stream, else round-robin over the direction's streams.
    pdt::Result<TransferId> start(Direction direction, uint8_t* host, CardAddress card, uint64_t bytes,
                                  std::optional<unsigned> stream_index = std::nullopt,
                                  Chunking chunking = Chunking::InOrder);
    // True once every command of the transfer completed (then forgotten); the transfer's error
    // when the card reported one or a command could not be issued. Never blocks.
    pdt::Result<bool> done(TransferId transfer);
    // Blocks (card waits of whole seconds) until done; ETIMEDOUT when no command of the
    // transfer's direction completed within the timeout.
    pdt::Result<void> wait(TransferId transfer, std::chrono::milliseconds timeout);
    // Blocks until any in-flight command completes (or sleeps briefly when none is in flight).
    pdt::Result<void> wait_progress(std::chrono::milliseconds timeout);
    // Aborts the direction's streams (within config.abort_timeout for all of them) and forgets
    // its transfers: the direction is idle after. An abort that did not complete: the error
    // names it, and buffers_at_risk() is set (a warning says so once): its commands may still
    // read or write the host memory they were given, which must then never be freed.
    pdt::Result<void> abandon(Direction direction);
    const streams::BuffersAtRisk& buffers_at_risk() const { return m_at_risk; }
    unsigned in_flight(Direction direction) const;

private:
    struct Command {
        TransferId transfer = 0;
        StreamId stream = 0;
        std::vector<Node> nodes;
        EventId event = 0;
        size_t part = 0;  // the command's place in its transfer
    };
    struct Transfer {
        Direction direction = Direction::H2C;
        size_t outstanding = 0;  // commands not yet complete
        std::optional<pdt::Error> error;
        size_t error_part = 0;  // the command whose error it is
    };

    Mover(Card& card, MoverConfig config, DmaLimits limits) : m_card(card), m_config(config), m_limits(limits) {}
    static size_t at(Direction d) { return d == Direction::H2C ? 0 : 1; }
    pdt::Result<void> progress();  // with m_mutex held
    void complete(Direction direction, const Command& command);  // with m_mutex held
    void fail(TransferId transfer, size_t part, pdt::Error error);  // keeps the earliest part's
    std::optional<std::pair<Direction, EventId>> oldest_in_flight(std::optional<Direction> direction) const;

    Card& m_card;
    MoverConfig m_config;
    DmaLimits m_limits;
    std::vector<StreamId> m_streams[2];
    unsigned m_next_stream[2] = {0, 0};
    mutable std::mutex m_mutex;
    std::deque<Command> m_pending[2];
    std::deque<Command> m_in_flight[2];
    std::map<TransferId, Transfer> m_transfers;
    TransferId m_next_transfer = 1;
    streams::BuffersAtRisk m_at_risk = streams::make_buffers_at_risk();
};

}  // namespace etsoc1
