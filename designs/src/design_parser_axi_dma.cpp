#include "design_fields.hpp"

namespace designs::detail {

// An AXI DMA (PG021) in Direct Register Mode: the card memory its M_AXI_MM2S and M_AXI_S2MM
// reach, the IP's length register width and memory-map data width (PG021 Customizing and
// Generating the Core: Width of Buffer Length Register 8..26 bits; data widths 32..1024 bits),
// what its streams are wired to, and the BAR through which the host reaches that memory.
pdt::Result<void> parse_axi_dma(const Fields& f, Peripheral& p) {
    p.axi_dma_memory_size = PDT_TRY(f.number("memory_size", 1ull << 40));
    if (p.axi_dma_memory_size == 0)
        return f.error("memory_size", "an AXI DMA needs the size of the card memory its M_AXI ports reach");
    p.axi_dma_length_width = static_cast<unsigned>(PDT_TRY(f.number_or("length_width", 26, 26)));
    if (p.axi_dma_length_width < 8)
        return f.error("length_width", "PG021's Width of Buffer Length Register is 8..26 bits");
    p.axi_dma_data_width = static_cast<unsigned>(PDT_TRY(f.number_or("data_width", 128, 64)));
    if (p.axi_dma_data_width < 4 || (p.axi_dma_data_width & (p.axi_dma_data_width - 1)) != 0)
        return f.error("data_width", "a memory-map data width of 4..128 bytes (32..1024 bits), a power of two");
    if (p.axi_dma_memory_size % p.axi_dma_data_width != 0)
        return f.error("memory_size", "must be a multiple of data_width (no unaligned transfers)");
    const std::string streams = PDT_TRY(f.text("streams", false));
    if (streams == "loopback")
        p.axi_dma_streams = AxiDmaStreams::Loopback;
    else if (!streams.empty() && streams != "fixed_data_and_sink")
        return f.error("streams", "expected \"fixed_data_and_sink\" or \"loopback\" (got \"" + streams + "\")");
    if (f.has("memory_window_bar"))
        p.axi_dma_memory_window_bar = static_cast<unsigned>(PDT_TRY(f.number("memory_window_bar", 5)));
    return {};
}

}  // namespace designs::detail
