// An interrupt aggregation ring (PG302 "Interrupt Aggregation Ring", Interrupt Context 0x8):
// queues whose software context has irq_en and int_aggr with vec = this ring's index write an
// 8-byte entry (stat_desc [36:0], int_type [38], qid [62:39], coal_color [63]) and the ring raises
// its MSI-X vector (MSI on a device that has no MSI-X: the simulated one). Software starts
// expecting color 1 (it initialises the context's color to 1, the ring memory to 0), reads
// entries while their coal_color matches, flips the expected color at each wrap, and writes
// QDMA_DMAP_SEL_INT_CIDX (ring_idx [23:16], sw_cidx [15:0]) to re-arm the ring.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "qdma/qdma_function.hpp"
#include "vfio_access/dma.hpp"

namespace qdma {

class InterruptRing {
public:
    // A 4 KiB ring (512 entries, page_size 0) `ring_index` (0..255) on `vector`, whose interrupts
    // this object enables (MSI-X, else MSI). The context is cleared on destruction.
    static pdt::Result<std::unique_ptr<InterruptRing>> open(Function& function, unsigned ring_index, unsigned vector);
    ~InterruptRing();
    InterruptRing(const InterruptRing&) = delete;
    InterruptRing& operator=(const InterruptRing&) = delete;

    unsigned index() const { return m_index; }
    uint64_t interrupts() const { return m_interrupts; }  // MSIs received
    // The ring's 512 entries; pidx: none (the IP's is in the Interrupt Context), cidx: software's.
    RingView view() const { return {m_ring.data(), 512, 8, m_ring.iova(), 0, m_cidx}; }
    // Waits up to `timeout` for the vector, then reads the ring's new entries and re-arms it
    // with INT_CIDX. The entries read (0 after a timeout: not an error, the caller polls).
    pdt::Result<unsigned> wait(std::chrono::milliseconds timeout);

private:
    InterruptRing(Function& function, unsigned index, unsigned vector) : m_function(function), m_index(index), m_vector(vector) {}
    unsigned drain();

    Function& m_function;
    unsigned m_index, m_vector;
    vfio::DmaRegion m_ring;
    uint32_t m_cidx = 0;
    bool m_color = true;
    uint64_t m_interrupts = 0;
};

}  // namespace qdma
