// The fake card's model: commands pass through phases (staging on a copy thread, waiting in a
// submission queue, DMA on a channel, unstaging) whose progress is a fluid model in wall-clock
// microseconds; a response thread publishes finished commands at the runtime's polling
// intervals. Data moves for real (data_path.hpp): host -> bounce buffer when a host-to-card
// command's staging ends, bounce <-> card when a copy's DMA starts, bounce -> host when a
// card-to-host command's unstaging ends.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <sys/mman.h>
#include <sys/prctl.h>

#include "data_path.hpp"
#include "etsoc1/fake_card.hpp"

namespace etsoc1 {

namespace {

using Clock = std::chrono::steady_clock;
using Kind = CommandRecord::Kind;

enum class Phase { WaitCopyThread, Staging, InQueue, Device, Unstaging, Finished };

struct Command {
    EventId event = 0;
    uint64_t number = 0;  // 1-based, issue order
    uint64_t copy = 0;    // 1-based among copy commands (both directions), issue order; 0: a kernel
    uint64_t bounce = 0;  // where its nodes are staged (copies)
    Kind kind = Kind::ToCard;
    StreamId stream = 0;
    unsigned queue = 0;
    bool barrier = false;
    std::vector<Node> nodes;
    uint64_t bytes = 0;
    Phase phase = Phase::WaitCopyThread;
    double remaining = 0;  // bytes (copies) or microseconds (kernels) left in this phase
    double rate = 0;       // per microsecond, in this phase
    bool hung = false, failed = false;
};

// Card memory: anonymous pages, zero until written, so that the 256 MiB a tool allocates cost
// only the pages its copies touch (a zero-filled array cost 450 MB and a second a run).
struct PageDeleter {
    uint64_t size = 0;
    void operator()(uint8_t* p) const { munmap(p, size); }
};

struct Allocation {
    std::unique_ptr<uint8_t[], PageDeleter> bytes;
    uint64_t size = 0;
};

constexpr CardAddress kCardBase = 0x80000000ull;

}  // namespace

struct FakeCard::Model {
    explicit Model(FakeParameters p) : parameters(std::move(p)), data(parameters), start(Clock::now()) {}

    FakeParameters parameters;
    DataPath data;  // refers to parameters
    Clock::time_point start;
    mutable std::mutex mutex;
    std::condition_variable published;
    std::thread responder;
    bool stopping = false;

    double now_us = 0;  // the model's time
    std::deque<Command> commands;           // issued, not yet published
    std::map<unsigned, std::deque<EventId>> queues;  // submission queue -> commands in it, in order
    std::vector<EventId> done_unpublished;
    std::unordered_map<StreamId, unsigned> streams;  // stream -> submission queue
    std::unordered_map<StreamId, std::vector<CardError>> errors;
    std::map<CardAddress, Allocation> allocations;
    CardAddress next_address = kCardBase;
    EventId next_event = 1;
    StreamId next_stream = 1;
    uint64_t issued = 0;
    uint64_t copies = 0;
    std::vector<CommandRecord> records;
    unsigned max_in_flight[3] = {0, 0, 0};

    double elapsed_us() const { return std::chrono::duration<double, std::micro>(Clock::now() - start).count(); }
    Command* find(EventId event) {
        for (Command& c : commands)
            if (c.event == event)
                return &c;
        return nullptr;
    }
    bool pending(EventId event) const {
        return std::any_of(commands.begin(), commands.end(), [&](const Command& c) { return c.event == event; });
    }

    unsigned count(Phase phase, std::optional<Kind> kind = std::nullopt) const {
        unsigned n = 0;
        for (const Command& c : commands)
            n += c.phase == phase && (!kind || c.kind == *kind);
        return n;
    }

    void begin_staging(Command& c) {
        c.phase = Phase::Staging;
        c.remaining = static_cast<double>(c.bytes);
    }
    void enter_queue(Command& c) {
        c.phase = Phase::InQueue;
        queues[c.queue].push_back(c.event);
    }

    pdt::Result<void> check_range(CardAddress address, uint64_t bytes) const {
        auto it = allocations.upper_bound(address);
        if (it != allocations.begin()) {
            --it;
            if (address >= it->first && address + bytes <= it->first + it->second.size)
                return {};
        }
        char where[96];
        std::snprintf(where, sizeof where, "card range 0x%llx+0x%llx", static_cast<unsigned long long>(address),
                      static_cast<unsigned long long>(bytes));
        return pdt::make_error("check the copy's card range", where, EFAULT, "not inside a live allocation");
    }
    uint8_t* card_bytes(CardAddress address) {
        auto it = std::prev(allocations.upper_bound(address));
        return it->second.bytes.get() + (address - it->first);
    }

    // The DMA starts: the bytes move (the host buffer stays valid until the event completes).
    void start_dma(Command& c) {
        if (c.kind == Kind::Kernel)
            return;
        const CardMemory memory = [this](CardAddress address, uint64_t bytes) -> uint8_t* {
            return !allocations.empty() && check_range(address, bytes).ok() ? card_bytes(address) : nullptr;
        };
        data.dma(c.kind == Kind::ToCard, c.nodes, c.bounce, c.copy, c.failed, memory);
    }
    void forget(const Command& c) {
        if (c.kind != Kind::Kernel)
            data.bounce().release(c.bounce);
    }

    // Submission-queue heads start when their barrier and a channel allow (one pass per queue).
    bool dispatch_queues() {
        bool changed = false;
        for (auto& [queue, order] : queues) {
            while (!order.empty()) {
                Command* head = find(order.front());
                if (head == nullptr) {  // aborted
                    order.pop_front();
                    continue;
                }
                const bool earlier_busy =
                    std::any_of(commands.begin(), commands.end(), [&, q = queue](const Command& c) {
                        return c.queue == q && c.phase == Phase::Device && c.number < head->number;
                    });
                if (head->barrier && earlier_busy)
                    break;
                const DmaLimits& l = parameters.limits;
                if (head->kind != Kind::Kernel &&
                    count(Phase::Device, head->kind) >= (head->kind == Kind::ToCard ? l.read_channels : l.write_channels))
                    break;  // no idle channel: the queue's worker waits, holding up the queue
                order.pop_front();
                head->phase = Phase::Device;
                head->remaining = head->kind == Kind::Kernel ? static_cast<double>(parameters.kernel_time.count())
                                                             : static_cast<double>(head->bytes);
                start_dma(*head);
                changed = true;
            }
        }
        return changed;
    }

    // Copy threads take waiting commands in issue order.
    void dispatch_copy_threads() {
        unsigned busy = count(Phase::Staging) + count(Phase::Unstaging);
        for (Command& c : commands)
            if (c.phase == Phase::WaitCopyThread && busy < parameters.copy_threads) {
                ++busy;
                if (c.kind == Kind::ToCard)
                    begin_staging(c);
                else {
                    c.phase = Phase::Unstaging;
                    c.remaining = static_cast<double>(c.bytes);
                }
            }
    }

    void set_rates() {
        const double memcpy = parameters.memcpy_gbps * 1000.0;  // bytes per microsecond
        unsigned in_dma[2] = {count(Phase::Device, Kind::ToCard), count(Phase::Device, Kind::FromCard)};
        for (Command& c : commands) {
            c.rate = 0;
            if (c.phase == Phase::Staging || c.phase == Phase::Unstaging)
                c.rate = memcpy;
            if (c.phase != Phase::Device || c.hung)
                continue;
            if (c.kind == Kind::Kernel) {
                c.rate = 1.0;  // microseconds per microsecond
                continue;
            }
            const unsigned sharing = in_dma[c.kind == Kind::ToCard ? 0 : 1];
            const double link = parameters.link_gbps * (c.kind == Kind::FromCard ? parameters.c2h_link_ratio : 1.0);
            c.rate = std::min(parameters.dma_channel_gbps, link / sharing) * 1000.0;
            if (c.kind == Kind::ToCard) {
                const auto same = std::count_if(commands.begin(), commands.end(), [&](const Command& o) {
                    return o.phase == Phase::Device && o.kind == Kind::ToCard && o.stream == c.stream;
                });
                c.rate *= std::pow(parameters.one_stream_collision, static_cast<double>(same - 1));
            }
        }
    }

    void finish_phase(Command& c) {
        if (c.phase == Phase::Staging) {
            data.stage(c.nodes, c.bounce);
            enter_queue(c);
        } else if (c.phase == Phase::Device && c.kind == Kind::FromCard) {
            c.phase = Phase::WaitCopyThread;  // unstaging waits for a copy thread
        } else {
            if (c.phase == Phase::Unstaging && !c.failed)
                data.unstage(c.nodes, c.bounce);
            forget(c);
            c.phase = Phase::Finished;
            if (c.failed)
                errors[c.stream].push_back(CardError{"DmaInvalidAddress", "injected copy error on command " +
                                                                              std::to_string(c.number)});
            done_unpublished.push_back(c.event);
        }
    }

    // Advances the model to the present, phase change by phase change.
    void advance() {
        const double target = elapsed_us();
        for (;;) {
            dispatch_copy_threads();
            while (dispatch_queues()) {
            }
            set_rates();
            double step = target - now_us;
            for (const Command& c : commands)
                if (c.rate > 0)
                    step = std::min(step, c.remaining / c.rate);
            step = std::max(step, 0.0);
            bool any = false;
            for (Command& c : commands)
                if (c.rate > 0) {
                    c.remaining -= c.rate * step;
                    if (c.remaining <= 1e-3) {
                        finish_phase(c);
                        any = true;
                    }
                }
            now_us += step;
            if (!any)
                return;
        }
    }

    void publish() {
        for (EventId e : done_unpublished)
            std::erase_if(commands, [&](const Command& c) { return c.event == e; });
        if (!done_unpublished.empty())
            published.notify_all();
        done_unpublished.clear();
    }

    // The runtime's response thread (seed 000 section 3): a poll that found work (a command in
    // flight, or one it has just published) sleeps poll_busy; a poll that found nothing hints
    // inactivity and sleeps poll_idle. So a copy issued as soon as the previous one returned is
    // seen at the next short poll, and one issued after an idle gap waits out the long sleep.
    void respond() {
        // Linux lets a sleep run late by the thread's timer slack, 50 us by default: up to twice the
        // short poll. 1 ns keeps the polls on time.
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        std::unique_lock lock(mutex);
        while (!stopping) {
            advance();
            const bool found_work = !commands.empty();
            publish();
            const auto wake = Clock::now() + (found_work ? parameters.poll_busy : parameters.poll_idle);
            lock.unlock();
            std::this_thread::sleep_until(wake);
            lock.lock();
        }
    }

    void note_in_flight() {
        for (Kind k : {Kind::ToCard, Kind::FromCard, Kind::Kernel}) {
            const auto n = std::count_if(commands.begin(), commands.end(), [&](const Command& c) { return c.kind == k; });
            max_in_flight[k] = std::max(max_in_flight[k], static_cast<unsigned>(n));
        }
    }

    pdt::Result<EventId> issue(Kind kind, StreamId stream, std::span<const Node> nodes, bool barrier);
};

pdt::Result<EventId> FakeCard::Model::issue(Kind kind, StreamId stream, std::span<const Node> nodes, bool barrier) {
    const char* what = kind == Kind::ToCard ? "copy to card" : kind == Kind::FromCard ? "copy from card" : "launch";
    const std::string object = "ET-SoC-1 fake stream " + std::to_string(stream);
    std::lock_guard lock(mutex);
    auto s = streams.find(stream);
    if (s == streams.end())
        return pdt::make_error(what, object, EINVAL, "no such stream");
    const DmaLimits& l = parameters.limits;
    if (kind != Kind::Kernel && (nodes.empty() || nodes.size() > l.max_nodes))
        return pdt::make_error(what, object, EINVAL,
                               std::to_string(nodes.size()) + " nodes: a command takes 1.." + std::to_string(l.max_nodes));
    Command c;
    c.kind = kind;
    c.stream = stream;
    c.queue = s->second;
    c.barrier = barrier;
    CommandRecord record{kind, stream, barrier, {}};
    for (const Node& n : nodes) {
        if (n.bytes == 0 || n.bytes > l.max_node_bytes)
            return pdt::make_error(what, object, EINVAL,
                                   "a node of " + std::to_string(n.bytes) + " bytes: nodes take 1.." +
                                       std::to_string(l.max_node_bytes));
        PDT_CHECK(check_range(n.card, n.bytes));
        c.bytes += n.bytes;
        record.node_bytes.push_back(n.bytes);
    }
    advance();
    c.nodes.assign(nodes.begin(), nodes.end());
    c.event = next_event++;
    c.number = ++issued;
    if (kind != Kind::Kernel) {
        c.copy = ++copies;
        c.bounce = data.bounce().reserve(c.bytes);
    }
    c.hung = parameters.hang_command && *parameters.hang_command == c.number;
    c.failed = parameters.copy_error_command && *parameters.copy_error_command == c.number;
    records.push_back(std::move(record));
    commands.push_back(std::move(c));
    Command& added = commands.back();
    if (kind != Kind::ToCard)
        enter_queue(added);  // card-to-host and kernels go straight to the card
    note_in_flight();
    advance();
    return added.event;
}

FakeCard::FakeCard(FakeParameters parameters) : m(std::make_unique<Model>(std::move(parameters))) {
    m->responder = std::thread([this] { m->respond(); });
}

FakeCard::~FakeCard() {
    {
        std::lock_guard lock(m->mutex);
        m->stopping = true;
    }
    m->responder.join();
}

const FakeParameters& FakeCard::parameters() const { return m->parameters; }

namespace {
pdt::Result<void> check_device(int device) {
    if (device != 0)
        return pdt::make_error("open", "ET-SoC-1 fake " + std::to_string(device), ENODEV, "the fake has one card: 0");
    return {};
}
}  // namespace

pdt::Result<DeviceInfo> FakeCard::info(int device) const {
    PDT_CHECK(check_device(device));
    return DeviceInfo{"ET-SoC-1 fake 0", "", "", "", m->parameters.memory_bytes, 1000};
}

pdt::Result<DmaLimits> FakeCard::limits(int device) const {
    PDT_CHECK(check_device(device));
    return m->parameters.limits;
}

pdt::Result<CardAddress> FakeCard::allocate(int device, uint64_t bytes, uint32_t alignment) {
    PDT_CHECK(check_device(device));
    std::lock_guard lock(m->mutex);
    const uint64_t align = std::max<uint64_t>(4096, alignment);
    const uint64_t size = (bytes + 4095) / 4096 * 4096;  // the runtime's 4 KiB blocks
    const CardAddress address = (m->next_address + align - 1) / align * align;
    if (bytes == 0 || address + size - kCardBase > m->parameters.memory_bytes)
        return pdt::make_error("allocate card memory", "ET-SoC-1 fake 0", ENOMEM,
                               std::to_string(bytes) + " bytes do not fit the card's memory");
    void* pages = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (pages == MAP_FAILED)
        return pdt::make_error("allocate card memory", "ET-SoC-1 fake 0", errno,
                               std::to_string(size) + " bytes of host memory to stand for it");
    m->allocations[address] = Allocation{{static_cast<uint8_t*>(pages), PageDeleter{size}}, size};  // zeros
    m->next_address = address + size;
    return address;
}

pdt::Result<void> FakeCard::free(int device, CardAddress address) {
    PDT_CHECK(check_device(device));
    std::lock_guard lock(m->mutex);
    if (m->allocations.erase(address) == 0)
        return pdt::make_error("free card memory", "ET-SoC-1 fake 0", EINVAL, "not an allocation's address");
    return {};
}

pdt::Result<StreamId> FakeCard::create_stream(int device) {
    PDT_CHECK(check_device(device));
    std::lock_guard lock(m->mutex);
    const StreamId fresh = m->next_stream++;
    m->streams[fresh] = static_cast<unsigned>(fresh) % std::max(1u, m->parameters.submission_queues);
    return fresh;
}

pdt::Result<void> FakeCard::destroy_stream(StreamId stream) {
    std::lock_guard lock(m->mutex);
    m->streams.erase(stream);
    m->errors.erase(stream);
    return {};
}

pdt::Result<EventId> FakeCard::copy_to_card(StreamId stream, std::span<const Node> nodes, bool barrier) {
    return m->issue(Kind::ToCard, stream, nodes, barrier);
}

pdt::Result<EventId> FakeCard::copy_from_card(StreamId stream, std::span<const Node> nodes, bool barrier) {
    return m->issue(Kind::FromCard, stream, nodes, barrier);
}

pdt::Result<EventId> FakeCard::launch_empty(StreamId stream, bool barrier) {
    return m->issue(Kind::Kernel, stream, {}, barrier);
}

pdt::Result<bool> FakeCard::wait_event(EventId event, std::chrono::seconds timeout) {
    std::unique_lock lock(m->mutex);
    return m->published.wait_for(lock, timeout, [&] { return !m->pending(event); });
}

pdt::Result<bool> FakeCard::wait_stream(StreamId stream, std::chrono::seconds timeout) {
    std::unique_lock lock(m->mutex);
    return m->published.wait_for(lock, timeout, [&] {
        return std::none_of(m->commands.begin(), m->commands.end(), [&](const Command& c) { return c.stream == stream; });
    });
}

pdt::Result<std::vector<CardError>> FakeCard::drain_errors(StreamId stream) {
    std::lock_guard lock(m->mutex);
    std::vector<CardError> drained;
    drained.swap(m->errors[stream]);
    return drained;
}

pdt::Result<void> FakeCard::abort_stream(StreamId stream, std::chrono::seconds timeout) {
    std::unique_lock lock(m->mutex);
    m->advance();
    const bool in_flight = std::any_of(m->commands.begin(), m->commands.end(),
                                       [&](const Command& c) { return c.stream == stream && c.phase != Phase::Finished; });
    if (m->parameters.abort_hangs && in_flight) {  // the abort's event never fires: its commands may still move data
        lock.unlock();
        std::this_thread::sleep_for(timeout);
        return pdt::make_error("abort", "ET-SoC-1 fake stream " + std::to_string(stream), ETIMEDOUT,
                               "the abort did not complete within " + std::to_string(timeout.count()) + " s");
    }
    std::erase_if(m->commands, [&](const Command& c) {
        if (c.stream != stream)
            return false;
        m->errors[stream].push_back(CardError{"DmaErrorAborted", "command " + std::to_string(c.number) + " aborted"});
        if (c.phase != Phase::Finished)  // a finished command gave its bounce range back already
            m->forget(c);
        return true;
    });
    m->published.notify_all();
    return {};
}

std::vector<CommandRecord> FakeCard::commands() const {
    std::lock_guard lock(m->mutex);
    return m->records;
}

unsigned FakeCard::max_in_flight(CommandRecord::Kind kind) const {
    std::lock_guard lock(m->mutex);
    return m->max_in_flight[kind];
}

pdt::Result<std::vector<uint8_t>> FakeCard::card_memory(CardAddress address, uint64_t bytes) const {
    std::lock_guard lock(m->mutex);
    PDT_CHECK(m->check_range(address, bytes));
    const uint8_t* from = m->card_bytes(address);
    return std::vector<uint8_t>(from, from + bytes);
}

uint64_t FakeCard::bounce_bytes() const {
    std::lock_guard lock(m->mutex);
    return m->data.bounce().size();
}

}  // namespace etsoc1
