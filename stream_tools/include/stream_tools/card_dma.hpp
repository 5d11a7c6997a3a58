// Memory-mapped DMA to card memory (CardDma: an XDMA engine pair, XdmaCardDma here; a QDMA MM
// queue pair, qdma_card_dma.hpp), and the timing blocks test_dma_bridge prints (fpga_sio's transfer_timing: Min / Mean / Max Mbytes/sec).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dma_bridge/xdma_engine.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "stream_test/driver.hpp"
#include "streams/stream_channel.hpp"
#include "vfio_access/dma.hpp"

namespace stream_tools {

// One piece of a transfer plan: host buffer offset <-> card (AXI) address.
struct Chunk {
    uint64_t host_offset = 0;
    uint64_t card_address = 0;
    uint64_t length = 0;
};

// Card-memory DMA of one H2C and one C2H channel (an XDMA engine pair, or a QDMA MM queue
// pair): what the memory tests (memory_tests.hpp, memory_boundaries.hpp) move data with.
class CardDma {
public:
    // What every descriptor must keep (XDMA: the channel's Alignments register), in bytes.
    struct Alignment {
        uint64_t address_alignment = 1;
        uint64_t length_granularity = 1;
    };
    virtual ~CardDma() = default;
    // Host -> card for every chunk, then (pipelined, each once its H2C completed) card -> host.
    pdt::Result<void> round_trip(const vfio::DmaRegion& h2c_host, const vfio::DmaRegion& c2h_host,
                                 const std::vector<Chunk>& chunks) {
        return run(&h2c_host, &c2h_host, chunks);
    }
    pdt::Result<void> write(const vfio::DmaRegion& host, const std::vector<Chunk>& chunks) {
        return run(&host, nullptr, chunks);
    }
    pdt::Result<void> read(const vfio::DmaRegion& host, const std::vector<Chunk>& chunks) {
        return run(nullptr, &host, chunks);
    }
    // Stops both directions (idle on return).
    virtual pdt::Result<void> stop() = 0;
    // "H2C channel 0" (XDMA), "H2C queue 0" (QDMA).
    virtual std::string name(streams::Direction direction) const = 0;
    virtual Alignment alignment(streams::Direction direction) const = 0;
    // Descriptors one transfer of `length` bytes takes, and the most one ring holds.
    virtual size_t descriptors_for(streams::Direction direction, uint64_t length) const = 0;
    virtual size_t ring_descriptors() const = 0;
    // "H2C channel 0 C2H channel 0" / "H2C queue 0 C2H queue 0".
    std::string channels() const { return name(streams::Direction::H2C) + " " + name(streams::Direction::C2H); }

protected:
    // What round_trip, write and read do: host -> card from h2c_host, card -> host into c2h_host
    // (either may be null), each chunk's C2H once its H2C completed.
    virtual pdt::Result<void> run(const vfio::DmaRegion* h2c_host, const vfio::DmaRegion* c2h_host,
                                  const std::vector<Chunk>& chunks) = 0;
};

// Through one H2C and one C2H XDMA engine (PG195 memory-mapped channels).
class XdmaCardDma final : public CardDma {
public:
    struct Options {
        unsigned dma_bar = 0;
        unsigned h2c_channel = 0;
        unsigned c2h_channel = 0;
        unsigned ring_descriptors = 64;
        unsigned dma_mask_bits = 64;  // --a32: 32 (descriptor ring and writebacks below 4 GiB)
        std::chrono::milliseconds timeout{cli::kDefaultTransferTimeout};  // no progress for this long fails
        xdma::IpOptions ip;       // what the design states about its XDMA IP
        xdma::ModeRequest modes;  // --engine_mode, --completion
    };
    static pdt::Result<XdmaCardDma> open(vfio::Device& device, const Options& options);

    pdt::Result<void> stop() override;
    std::string name(streams::Direction direction) const override;
    Alignment alignment(streams::Direction direction) const override;
    size_t descriptors_for(streams::Direction direction, uint64_t length) const override;
    size_t ring_descriptors() const override { return m_ring_descriptors; }
    xdma::Engine& h2c() { return *m_h2c; }
    xdma::Engine& c2h() { return *m_c2h; }

private:
    enum class Waited { None, H2c, C2h };
    pdt::Result<Waited> wait_interrupt(bool h2c_busy, bool c2h_busy);
    // With --completion interrupt, waits on the engines' MSIs rather than polling.
    pdt::Result<void> run(const vfio::DmaRegion* h2c_host, const vfio::DmaRegion* c2h_host,
                          const std::vector<Chunk>& chunks) override;
    const xdma::Engine& engine(streams::Direction d) const { return d == streams::Direction::H2C ? *m_h2c : *m_c2h; }
    std::unique_ptr<xdma::Engine> m_h2c;
    std::unique_ptr<xdma::Engine> m_c2h;
    std::chrono::milliseconds m_timeout{cli::kDefaultTransferTimeout};
    size_t m_ring_descriptors = 64;
    bool m_wait_c2h = false;  // --completion interrupt: which engine's MSI was waited on last
};

class TransferTiming {
public:
    TransferTiming(std::string name, uint64_t bytes_per_transfer) : m_name(std::move(name)), m_bytes(bytes_per_transfer) {}
    void add(std::chrono::nanoseconds elapsed);
    // "<name> timing for <N> transfers of <bytes> bytes:" then Min / Mean / Max lines
    // "= <x> (Mbytes/sec)"; Min and Max only when N > 1. A figure over under 10 ms or 1 MiB is
    // "<Min|Mean|Max>: too short for a rate (<bytes> bytes in <s> s)".
    std::string report() const;
    uint64_t count() const { return m_count; }

private:
    static std::string figure(const char* name, uint64_t bytes, std::chrono::nanoseconds t);
    std::string m_name;
    uint64_t m_bytes;
    uint64_t m_count = 0;
    std::chrono::nanoseconds m_min = std::chrono::nanoseconds::max(), m_max{0}, m_total{0};
};

}  // namespace stream_tools
