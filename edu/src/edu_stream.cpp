#include "edu/edu_stream.hpp"

#include <thread>

namespace edu {

class EduLoopback::Channel final : public streams::StreamChannel {
public:
    Channel(EduLoopback& owner, streams::Direction direction) : m_owner(owner), m_direction(direction) {}

    streams::Direction direction() const override { return m_direction; }
    std::string name() const override {
        return m_owner.m_edu.device().identity().address.to_string() + " " + streams::to_string(m_direction) + " 0";
    }
    size_t buffer_count() const override { return m_regions.size(); }
    uint64_t buffer_size() const override { return m_regions.empty() ? 0 : m_regions.front().size(); }
    uint8_t* buffer(size_t index) override { return index < m_regions.size() ? m_regions[index].data() : nullptr; }

    pdt::Result<void> submit(size_t index, uint64_t length, bool end_of_packet) override {
        if (index >= m_regions.size())
            return pdt::make_error("submit", name(), EINVAL,
                                   "buffer " + std::to_string(index) + " of " + std::to_string(m_regions.size()));
        if (length == 0 || length > buffer_size())
            return pdt::make_error("submit", name(), EINVAL,
                                   "length " + std::to_string(length) + " outside 1.." + std::to_string(buffer_size()));
        std::lock_guard lock(m_owner.m_mutex);
        m_queued.push_back({m_direction, index, length, end_of_packet});
        return m_owner.pump();
    }

    pdt::Result<std::optional<streams::Completion>> poll() override {
        std::lock_guard lock(m_owner.m_mutex);
        PDT_CHECK(m_owner.pump());
        if (m_done.empty())
            return std::optional<streams::Completion>{};
        streams::Completion c = m_done.front();
        m_done.pop_front();
        return std::optional<streams::Completion>{c};
    }

    pdt::Result<streams::Completion> wait(std::chrono::milliseconds timeout) override {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            auto c = PDT_TRY(poll());
            if (c)
                return *c;
            if (std::chrono::steady_clock::now() > deadline)
                return pdt::make_error("wait for completion", name(), ETIMEDOUT,
                                       std::string("none within ") + std::to_string(timeout.count()) + " ms" +
                                           (m_direction == streams::Direction::C2H
                                                ? " (a loopback C2H receives only what H2C sent)"
                                                : ""));
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    pdt::Result<void> stop() override {
        std::unique_lock lock(m_owner.m_mutex);
        m_queued.clear();
        // edu cannot abort a transfer: let a running one of ours end (it does within ~100 ms).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (m_owner.m_running && m_owner.m_running->direction == m_direction) {
            PDT_CHECK(m_owner.pump());
            if (std::chrono::steady_clock::now() > deadline)
                return pdt::make_error("stop", name(), ETIMEDOUT, "the running edu transfer did not end within 5 s");
            lock.unlock();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            lock.lock();
        }
        m_done.clear();
        if (m_direction == streams::Direction::C2H)
            m_owner.m_in_edu.reset();
        return {};
    }

    bool busy() const override {
        std::lock_guard lock(m_owner.m_mutex);
        return !m_queued.empty() || (m_owner.m_running && m_owner.m_running->direction == m_direction);
    }

    EduLoopback& m_owner;
    streams::Direction m_direction;
    std::vector<vfio::DmaRegion> m_regions;
    std::deque<Job> m_queued;
    std::deque<streams::Completion> m_done;
};

pdt::Result<std::unique_ptr<EduLoopback>> EduLoopback::create(EduDevice& edu, Options options) {
    if (options.buffers == 0 || options.buffer_size == 0 || options.buffer_size > DMA_MAX_END)
        return pdt::make_error("create edu loopback", edu.name(), EINVAL,
                               "buffers must be 1..4095 bytes (QEMU 7.2's edu aborts at its buffer's end) and at least one");
    std::unique_ptr<EduLoopback> loop(new EduLoopback(edu));
    loop->m_h2c = std::make_unique<Channel>(*loop, streams::Direction::H2C);
    loop->m_c2h = std::make_unique<Channel>(*loop, streams::Direction::C2H);
    for (Channel* ch : {loop->m_h2c.get(), loop->m_c2h.get()}) {
        const auto access = ch->m_direction == streams::Direction::H2C ? vfio::DmaAccess::DeviceRead
                                                                       : vfio::DmaAccess::DeviceWrite;
        for (size_t i = 0; i < options.buffers; ++i)
            ch->m_regions.push_back(PDT_TRY(vfio::DmaRegion::allocate(
                edu.device(), options.buffer_size, {access, vfio::BufferKind::Anonymous, DMA_MASK_BITS})));
    }
    return loop;
}

EduLoopback::EduLoopback(EduDevice& edu) : m_edu(edu) {}

EduLoopback::~EduLoopback() {
    (void)m_h2c->stop();
    (void)m_c2h->stop();
}

streams::StreamChannel& EduLoopback::h2c() { return *m_h2c; }
streams::StreamChannel& EduLoopback::c2h() { return *m_c2h; }
EduLoopback::Channel& EduLoopback::channel(streams::Direction d) {
    return d == streams::Direction::H2C ? *m_h2c : *m_c2h;
}

pdt::Result<void> EduLoopback::start(const Job& job) {
    Channel& ch = channel(job.direction);
    const uint64_t iova = ch.m_regions[job.buffer].iova();
    const auto count = static_cast<uint32_t>(job.length);
    const DmaRequest request = job.direction == streams::Direction::H2C
                                   ? DmaRequest{DmaDirection::ToEdu, iova, 0, count}
                                   : DmaRequest{DmaDirection::FromEdu, iova, 0, count};
    PDT_CHECK(m_edu.start_dma(request, false));
    m_running = job;
    return {};
}

pdt::Result<void> EduLoopback::pump() {
    if (m_running) {
        if (m_edu.dma_busy())
            return {};
        const Job job = *m_running;
        m_running.reset();
        if (job.direction == streams::Direction::H2C) {
            m_in_edu = Packet{job.length, job.end_of_packet};
            m_h2c->m_done.push_back({job.buffer, job.length, job.end_of_packet});
        } else {
            m_c2h->m_done.push_back({job.buffer, job.length, m_in_edu && m_in_edu->end_of_packet});
            m_in_edu.reset();
        }
    }
    // A received buffer is not the device's until poll handed it over: edu starts nothing before,
    // so that a device whose last bytes land when it starts its next transfer cannot fill them
    // in between the completion and the caller's check (docs/verification.md, completes_early).
    if (!m_c2h->m_done.empty())
        return {};
    if (m_in_edu && !m_c2h->m_queued.empty()) {
        Job job = m_c2h->m_queued.front();
        m_c2h->m_queued.pop_front();
        job.length = std::min(job.length, m_in_edu->length);
        return start(job);
    }
    if (!m_in_edu && !m_h2c->m_queued.empty()) {
        const Job job = m_h2c->m_queued.front();
        m_h2c->m_queued.pop_front();
        return start(job);
    }
    return {};
}

}  // namespace edu
