// Splitting, the in-flight window, explicit barriers and error draining (transfers.hpp).
#include "etsoc1/transfers.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace etsoc1 {

std::vector<std::vector<Node>> split(const DmaLimits& limits, uint8_t* host, CardAddress card, uint64_t bytes) {
    std::vector<std::vector<Node>> commands;
    uint64_t offset = 0;
    while (offset < bytes) {
        std::vector<Node> nodes;
        while (offset < bytes && nodes.size() < limits.max_nodes) {
            const uint64_t n = std::min(limits.max_node_bytes, bytes - offset);
            nodes.push_back(Node{host + offset, card + offset, n});
            offset += n;
        }
        commands.push_back(std::move(nodes));
    }
    return commands;
}

std::vector<std::vector<Node>> split_last_first(const DmaLimits& limits, uint8_t* host, CardAddress card,
                                                uint64_t bytes) {
    const uint64_t most = limits.max_node_bytes;
    std::vector<Node> pieces;
    if (bytes > 4 && bytes <= 2 * most) {  // halves; neither over the limit
        const uint64_t first = std::max(std::min(most, std::max<uint64_t>(4, bytes / 2 / 4 * 4)),
                                        bytes > most ? bytes - most : 0);
        pieces = {Node{host, card, first}, Node{host + first, card + first, bytes - first}};
    } else {
        for (uint64_t offset = 0; offset < bytes;) {
            const uint64_t n = std::min(most, bytes - offset);
            pieces.push_back(Node{host + offset, card + offset, n});
            offset += n;
        }
    }
    std::vector<std::vector<Node>> commands;
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
        if (commands.empty() || commands.back().size() == limits.max_nodes)
            commands.emplace_back();
        commands.back().push_back(*it);
    }
    return commands;
}

pdt::Result<std::unique_ptr<Mover>> Mover::open(Card& card, MoverConfig config) {
    const std::string object = "ET-SoC-1 " + std::to_string(config.device);
    if (card.device_count() <= config.device || config.device < 0)
        return pdt::make_error("open", object, ENODEV,
                               "the runtime sees " + std::to_string(card.device_count()) + " card(s)");
    const DmaLimits limits = PDT_TRY(card.limits(config.device));
    if (config.window == 0 || config.streams_per_direction == 0 || limits.max_nodes == 0 || limits.max_node_bytes == 0)
        return pdt::make_error("open", object, EINVAL, "needs a window and streams of at least one, and DMA limits");
    std::unique_ptr<Mover> mover(new Mover(card, config, limits));
    for (auto& streams : mover->m_streams)
        for (unsigned i = 0; i < config.streams_per_direction; ++i)
            streams.push_back(PDT_TRY(card.create_stream(config.device)));
    return mover;
}

Mover::~Mover() {
    for (Direction d : {Direction::H2C, Direction::C2H})
        (void)abandon(d);
    for (auto& streams : m_streams)
        for (StreamId s : streams)
            (void)m_card.destroy_stream(s);
}

StreamId Mover::stream(Direction direction, unsigned index) const {
    const auto& streams = m_streams[at(direction)];
    return streams[index % streams.size()];
}

pdt::Result<TransferId> Mover::start(Direction direction, uint8_t* host, CardAddress card, uint64_t bytes,
                                     std::optional<unsigned> stream_index, Chunking chunking) {
    if (bytes == 0)
        return pdt::make_error(std::string("start ") + streams::to_string(direction) + " transfer",
                               "ET-SoC-1 " + std::to_string(m_config.device), EINVAL, "zero bytes");
    std::lock_guard lock(m_mutex);
    const TransferId id = m_next_transfer++;
    auto commands = chunking == Chunking::InOrder ? split(m_limits, host, card, bytes)
                                                  : split_last_first(m_limits, host, card, bytes);
    m_transfers[id] = Transfer{direction, commands.size(), std::nullopt, 0};
    const size_t d = at(direction);
    for (size_t part = 0; part < commands.size(); ++part) {
        const unsigned index = stream_index ? *stream_index : m_next_stream[d]++;
        m_pending[d].push_back(Command{id, stream(direction, index), std::move(commands[part]), 0, part});
    }
    PDT_CHECK(progress());
    return id;
}

void Mover::fail(TransferId transfer, size_t part, pdt::Error error) {
    auto t = m_transfers.find(transfer);
    if (t != m_transfers.end() && (!t->second.error || part < t->second.error_part)) {
        t->second.error = std::move(error);
        t->second.error_part = part;
    }
}

// A command completed: drain its stream's errors; any fails its transfer.
void Mover::complete(Direction direction, const Command& command) {
    auto t = m_transfers.find(command.transfer);
    if (t != m_transfers.end() && t->second.outstanding > 0)
        --t->second.outstanding;
    auto errors = m_card.drain_errors(command.stream);
    const std::string what = std::string(streams::to_string(direction)) + " copy";
    const std::string object = "ET-SoC-1 " + std::to_string(m_config.device) + " stream " + std::to_string(command.stream);
    if (!errors.ok()) {
        fail(command.transfer, command.part, errors.error());
        return;
    }
    if (errors->empty())
        return;
    std::string text = "the card reported";
    for (const CardError& e : *errors)
        text += " " + e.code + " (" + e.text + ");";
    text.pop_back();
    fail(command.transfer, command.part, pdt::make_error(what, object, EIO, text));
}

pdt::Result<void> Mover::progress() {
    for (Direction direction : {Direction::H2C, Direction::C2H}) {
        const size_t d = at(direction);
        auto& flying = m_in_flight[d];
        for (auto it = flying.begin(); it != flying.end();) {
            const bool finished = PDT_TRY(m_card.wait_event(it->event, std::chrono::seconds(0)));
            if (!finished) {
                ++it;
                continue;
            }
            complete(direction, *it);
            it = flying.erase(it);
        }
        auto& waiting = m_pending[d];
        while (flying.size() < m_config.window && !waiting.empty()) {
            Command command = std::move(waiting.front());
            waiting.pop_front();
            const bool to_card = direction == Direction::H2C;
            auto issued = to_card ? m_card.copy_to_card(command.stream, command.nodes, m_config.barrier_to_card)
                                  : m_card.copy_from_card(command.stream, command.nodes, m_config.barrier_from_card);
            if (!issued.ok()) {  // the transfer fails; its other commands are dropped
                fail(command.transfer, command.part, issued.error());
                auto t = m_transfers.find(command.transfer);
                std::erase_if(waiting, [&](const Command& c) { return c.transfer == command.transfer; });
                if (t != m_transfers.end())
                    t->second.outstanding = static_cast<size_t>(std::count_if(
                        flying.begin(), flying.end(), [&](const Command& c) { return c.transfer == command.transfer; }));
                continue;
            }
            command.event = *issued;
            flying.push_back(std::move(command));
        }
    }
    return {};
}

pdt::Result<bool> Mover::done(TransferId transfer) {
    std::lock_guard lock(m_mutex);
    PDT_CHECK(progress());
    auto t = m_transfers.find(transfer);
    if (t == m_transfers.end())
        return pdt::make_error("check transfer", "ET-SoC-1 transfer " + std::to_string(transfer), EINVAL,
                               "unknown or already reported");
    if (t->second.outstanding > 0)
        return false;
    std::optional<pdt::Error> error = std::move(t->second.error);
    m_transfers.erase(t);
    if (error)
        return *error;
    return true;
}

std::optional<std::pair<Direction, EventId>> Mover::oldest_in_flight(std::optional<Direction> direction) const {
    for (Direction d : {Direction::H2C, Direction::C2H})
        if ((!direction || *direction == d) && !m_in_flight[at(d)].empty())
            return std::make_pair(d, m_in_flight[at(d)].front().event);
    return std::nullopt;
}

pdt::Result<void> Mover::wait(TransferId transfer, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (PDT_TRY(done(transfer)))
            return {};
        std::optional<std::pair<Direction, EventId>> oldest;
        {
            std::lock_guard lock(m_mutex);
            const Transfer& t = m_transfers.at(transfer);
            if (t.outstanding == 0)  // another thread's progress() reaped its last command since
                continue;
            oldest = oldest_in_flight(t.direction);
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        const std::string object = "ET-SoC-1 " + std::to_string(m_config.device) + " transfer " + std::to_string(transfer);
        if (!oldest || left.count() <= 0 ||
            !PDT_TRY(m_card.wait_event(oldest->second, whole_seconds(left))))
            return pdt::make_error("wait for the card", object, ETIMEDOUT,
                                   "no copy completed within " + std::to_string(whole_seconds(timeout).count()) +
                                       " s (card waits take whole seconds)");
    }
}

pdt::Result<void> Mover::wait_progress(std::chrono::milliseconds timeout) {
    std::optional<std::pair<Direction, EventId>> oldest;
    {
        std::lock_guard lock(m_mutex);
        oldest = oldest_in_flight(std::nullopt);
    }
    if (!oldest) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        return {};
    }
    if (!PDT_TRY(m_card.wait_event(oldest->second, whole_seconds(timeout))))
        return pdt::make_error("wait for the card", "ET-SoC-1 " + std::to_string(m_config.device), ETIMEDOUT,
                               std::string("no ") + streams::to_string(oldest->first) + " copy completed within " +
                                   std::to_string(whole_seconds(timeout).count()) + " s (card waits take whole seconds)");
    return {};
}

pdt::Result<void> Mover::abandon(Direction direction) {
    std::lock_guard lock(m_mutex);
    const size_t d = at(direction);
    const auto deadline = std::chrono::steady_clock::now() + m_config.abort_timeout;
    std::optional<pdt::Error> failed;  // the first abort that did not complete
    if (!m_in_flight[d].empty())
        for (StreamId s : m_streams[d]) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            auto aborted = m_card.abort_stream(s, whole_seconds(std::max(left, std::chrono::milliseconds(0))));
            if (aborted.ok())
                (void)m_card.drain_errors(s);  // the aborts' own errors
            else if (!failed)
                failed = aborted.error();
        }
    m_in_flight[d].clear();
    m_pending[d].clear();
    std::erase_if(m_transfers, [&](const auto& t) { return t.second.direction == direction; });
    if (!failed)
        return {};
    if (!m_at_risk->exchange(true))
        std::fprintf(stderr,
                     "Warning: %s: the host memory the card's copies were given stays allocated until the process "
                     "exits (they may still move it)\n",
                     failed->message().c_str());
    return *failed;
}

unsigned Mover::in_flight(Direction direction) const {
    std::lock_guard lock(m_mutex);
    return static_cast<unsigned>(m_in_flight[at(direction)].size());
}

}  // namespace etsoc1
