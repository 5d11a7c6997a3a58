// Card-memory DMA through one QDMA H2C and one C2H memory-mapped queue (PG302 "AXI Memory
// Mapped" queues in internal mode, MM channel 0): test_dma_bridge's memory tests on a QDMA
// design. Each chunk is split into MM descriptors of at most piece_bytes (the descriptor's
// lengthInByte holds 64K-1); descriptors go to a queue while its ring has room, one PIDX
// doorbell per batch, and completion is read from the status descriptor's cidx (writeback):
// polled, or (options.interrupts) between looks the run sleeps on the MSI-X vector of an
// interrupt aggregation ring both queues interrupt through (PG302 "Interrupt Aggregation Ring").
//
//   QdmaCardDma::Options options{.bar = 0, .h2c_queue = 0, .c2h_queue = 0};
//   auto dma = PDT_TRY(QdmaCardDma::open(device, options));
#pragma once

#include <memory>

#include "qdma/qdma_function.hpp"
#include "qdma/qdma_interrupt_ring.hpp"
#include "qdma/qdma_queue.hpp"
#include "stream_tools/card_dma.hpp"

namespace stream_tools {

class QdmaCardDma final : public CardDma {
public:
    struct Options {
        unsigned bar = 0;             // designs::Qdma::bar
        unsigned function = 0;        // the PCIe physical function (design card.physical_function)
        uint16_t qid_base = 0;        // the function's first physical queue (FMAP)
        uint16_t function_queues = 16;
        unsigned h2c_queue = 0;       // the function's queues used
        unsigned c2h_queue = 0;
        uint32_t ring_entries = 65;   // a QDMA_GLBL_RNG_SZ value
        uint32_t piece_bytes = 0x8000;  // bytes one MM descriptor moves at most (1..64K-1)
        unsigned dma_mask_bits = 64;
        std::chrono::milliseconds timeout{cli::kDefaultTransferTimeout};  // no progress for this long fails
        bool interrupts = false;      // completion by interrupt through one aggregation ring
        unsigned interrupt_ring = 0;  // its index (Interrupt Context), 0..255
        unsigned msi_vector = 0;
    };
    // Opens the function (FMAP), starts MM channel 0 both ways and sets up the two queues.
    // ENODEV when the IP has no MM engines (QDMA_GLBL2_CHANNEL_MDMA); EINVAL for a piece_bytes
    // outside 1..64K-1 and for what qdma::Queue::open refuses.
    static pdt::Result<std::unique_ptr<QdmaCardDma>> open(vfio::Device& device, const Options& options);

    // Restarts both queues (torn down and set up again, empty): what was in flight is lost.
    pdt::Result<void> stop() override;
    std::string name(streams::Direction direction) const override;
    Alignment alignment(streams::Direction) const override { return Alignment{}; }  // byte-aligned descriptors
    size_t descriptors_for(streams::Direction, uint64_t length) const override {
        return static_cast<size_t>((length + m_options.piece_bytes - 1) / m_options.piece_bytes);
    }
    size_t ring_descriptors() const override { return m_h2c->capacity(); }
    // MSIs the interrupt ring received (0 without options.interrupts).
    uint64_t interrupts() const { return m_ring ? m_ring->interrupts() : 0; }

private:
    struct Lane;
    explicit QdmaCardDma(const Options& options) : m_options(options) {}
    pdt::Result<void> run(const vfio::DmaRegion* h2c_host, const vfio::DmaRegion* c2h_host,
                          const std::vector<Chunk>& chunks) override;
    pdt::Result<void> post(Lane& lane, const std::vector<Chunk>& chunks, size_t limit);
    pdt::Result<bool> reap(Lane& lane, const std::vector<Chunk>& chunks);
    pdt::Result<bool> sleep_on_interrupt(Lane& h2c, Lane& c2h, const std::vector<Chunk>& chunks);

    Options m_options;
    std::unique_ptr<qdma::Function> m_function;  // outlives the queues (declared first)
    std::unique_ptr<qdma::InterruptRing> m_ring;  // likewise: the queues' contexts name it
    std::unique_ptr<qdma::Queue> m_h2c, m_c2h;
};

}  // namespace stream_tools
