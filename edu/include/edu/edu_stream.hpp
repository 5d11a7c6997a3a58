// A loopback stream pair over one edu device, behind the stream endpoint seam: the H2C
// channel DMAs each submitted buffer into edu's 4 KiB buffer, the C2H channel DMAs it back
// into its own buffers. One DMA engine serves both, in order: a packet sent H2C must be
// received C2H before the next H2C transfer may overwrite the edu buffer, and a received C2H
// buffer is handed over by poll before edu starts another transfer. Completion is
// detected by polling DMA_CMD (edu's transfers run ~100 ms after the command: functional
// tests only, no bandwidth figures).
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "streams/stream_channel.hpp"
#include "edu/edu_device.hpp"
#include "vfio_access/dma.hpp"

namespace edu {

class EduLoopback {
public:
    struct Options {
        size_t buffers = 4;
        uint64_t buffer_size = 2048;  // at most DMA_MAX_END (4095)
    };
    // The EduDevice (and its vfio::Device) must outlive the loopback. H2C buffers are mapped
    // device-read-only, C2H buffers device-write-only, below edu's 28-bit DMA mask.
    static pdt::Result<std::unique_ptr<EduLoopback>> create(EduDevice& edu, Options options);
    ~EduLoopback();

    streams::StreamChannel& h2c();
    streams::StreamChannel& c2h();

private:
    class Channel;
    struct Job {
        streams::Direction direction;
        size_t buffer;
        uint64_t length;
        bool end_of_packet;
    };
    explicit EduLoopback(EduDevice& edu);
    // Advances the engine: completes the running transfer when edu is done, starts the next.
    pdt::Result<void> pump();  // m_mutex held
    pdt::Result<void> start(const Job& job);
    Channel& channel(streams::Direction d);

    EduDevice& m_edu;
    std::mutex m_mutex;
    std::unique_ptr<Channel> m_h2c, m_c2h;
    std::optional<Job> m_running;
    struct Packet {
        uint64_t length;
        bool end_of_packet;
    };
    std::optional<Packet> m_in_edu;  // data H2C left in the edu buffer, not yet received
};

}  // namespace edu
