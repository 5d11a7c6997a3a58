// Memory-mapped DMA to card memory through one H2C and one C2H XDMA engine, and the timing
// blocks test_dma_bridge prints (fpga_sio's transfer_timing: Min / Mean / Max Mbytes/sec).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dma_bridge/xdma_engine.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "stream_test/driver.hpp"
#include "vfio_access/dma.hpp"

namespace stream_tools {

// One piece of a transfer plan: host buffer offset <-> card (AXI) address.
struct Chunk {
    uint64_t host_offset = 0;
    uint64_t card_address = 0;
    uint64_t length = 0;
};

class CardDma {
public:
    struct Options {
        unsigned dma_bar = 0;
        unsigned h2c_channel = 0;
        unsigned c2h_channel = 0;
        unsigned ring_descriptors = 64;
        unsigned dma_mask_bits = 64;  // --a32: 32 (descriptor ring and writebacks below 4 GiB)
        std::chrono::milliseconds timeout{stream_test::kDefaultTransferTimeout};  // no progress for this long fails
        xdma::IpOptions ip;       // what the design states about its XDMA IP
        xdma::ModeRequest modes;  // --engine_mode, --completion
    };
    static vfio::Result<CardDma> open(vfio::Device& device, const Options& options);

    // Host -> card for every chunk, then (pipelined, each once its H2C completed) card -> host.
    // With --completion interrupt, waits on the engines' MSIs rather than polling.
    vfio::Result<void> round_trip(const vfio::DmaRegion& h2c_host, const vfio::DmaRegion& c2h_host,
                                  const std::vector<Chunk>& chunks);
    vfio::Result<void> write(const vfio::DmaRegion& host, const std::vector<Chunk>& chunks);
    vfio::Result<void> read(const vfio::DmaRegion& host, const std::vector<Chunk>& chunks);
    // Stops both engines (idle on return).
    vfio::Result<void> stop();
    xdma::Engine& h2c() { return *m_h2c; }
    xdma::Engine& c2h() { return *m_c2h; }

private:
    enum class Waited { None, H2c, C2h };
    vfio::Result<Waited> wait_interrupt(bool h2c_busy, bool c2h_busy);
    vfio::Result<void> run(const vfio::DmaRegion* h2c_host, const vfio::DmaRegion* c2h_host,
                           const std::vector<Chunk>& chunks);
    std::unique_ptr<xdma::Engine> m_h2c;
    std::unique_ptr<xdma::Engine> m_c2h;
    std::chrono::milliseconds m_timeout{stream_test::kDefaultTransferTimeout};
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
