// A register model of the QDMA Subsystem for PCI Express (PG302) for identification only: the
// global CSR registers software reads to tell the IP, its version and its capabilities. Every
// register is read-only; no queue, context or DMA engine is modelled.
#pragma once

#include <cstdint>
#include <memory>

#include "designs/design.hpp"
#include "sim/peripheral_blocks.hpp"

namespace sim {

// The QDMA CSR space at offset 0 of the QDMA BAR (PG302 Register Space, QDMA_CSR).
namespace qdma_csr {
// QDMA_GLBL1 config block identifier: [31:16] the QDMA identifier 0x1FD3 (PG302 Config Block
// Identifier; the same ID the RTL Version Register carries in [31:16]).
inline constexpr uint64_t CONFIG_BLOCK_ID = 0x000;
inline constexpr uint32_t QDMA_IDENTIFIER = 0x1FD3;
// QDMA_GLBL2_PF_BARLITE_INT: PFn_BAR_MAP in [6n+5:6n], the BARs of PF n that reach the AXI4-Lite
// master (one bit a BAR); a PF with no such BAR reads 0.
inline constexpr uint64_t GLBL2_PF_BARLITE_INT = 0x104;
// QDMA_GLBL2_CHANNEL_MDMA: C2H_ST [17], H2C_ST [16], C2H_ENG [11:8], H2C_ENG [3:0].
inline constexpr uint64_t GLBL2_CHANNEL_MDMA = 0x118;
// QDMA_GLBL2_CHANNEL_QDMA_CAP: MULTQ_MAX [11:0], the queues the IP was built with.
inline constexpr uint64_t GLBL2_CHANNEL_QDMA_CAP = 0x120;
// QDMA_GLBL2_MISC_CAP (named in PG302's revision history, its fields not in the body): device
// type [31:28] (0 soft IP, 1 Versal CPM4, 2 Versal CPM5), Vivado release [27:24], IP type
// [23:20] (soft IP: 0 QDMA 3.1, 1 EQDMA 4.0, 2 EQDMA 5.0), RTL version [19:16] (0 base,
// 1 patch); EQDMA: debug mode [4], descriptor engine mode [3:2] (0 internal and bypass,
// 1 bypass only, 2 internal only), FLR present [1], mailbox enabled [0].
inline constexpr uint64_t GLBL2_MISC_CAP = 0x134;
// The register frame software maps for these registers (fpga_sio: 0x40000 bytes at offset 0).
inline constexpr uint64_t kFrameSize = 0x40000;
}  // namespace qdma_csr

// What the simulated IP is: an EQDMA 5.0 soft IP (QDMA 5.0, device type soft, RTL base,
// Vivado release field 2), FLR present, no mailbox, debug mode off, internal and bypass
// descriptor engines; one H2C and one C2H engine of each kind enabled in `caps`; each of its
// caps.physical_functions PFs maps `axi_lite_bar_mask` to the AXI4-Lite master.
std::shared_ptr<RegisterFileBlock> make_qdma_csr_block(const designs::QdmaSimulation& caps, uint32_t axi_lite_bar_mask);

}  // namespace sim
