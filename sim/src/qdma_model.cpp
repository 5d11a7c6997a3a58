#include "sim/qdma_model.hpp"

#include <map>

namespace sim {

std::shared_ptr<RegisterFileBlock> make_qdma_csr_block(const designs::QdmaSimulation& caps, uint32_t axi_lite_bar_mask) {
    using namespace qdma_csr;
    // QDMA_GLBL2_PF_BARLITE_INT: 6 bits a PF, PF0 lowest.
    uint32_t pf_barlite = 0;
    for (unsigned pf = 0; pf < caps.physical_functions && pf < 4; ++pf)
        pf_barlite |= (axi_lite_bar_mask & 0x3fu) << (6 * pf);
    // QDMA_GLBL2_CHANNEL_MDMA: one engine a direction for each kind the IP has.
    uint32_t channel_mdma = 0;
    if (caps.stream)
        channel_mdma |= 1u << 17 | 1u << 16;  // C2H_ST, H2C_ST
    if (caps.memory_mapped)
        channel_mdma |= 1u << 8 | 1u << 0;  // C2H_ENG, H2C_ENG
    // QDMA_GLBL2_MISC_CAP: soft IP (0), Vivado release 2, EQDMA 5.0 (2), RTL base (0); debug
    // mode off, internal and bypass descriptor engines (0), FLR present, no mailbox.
    const uint32_t misc_cap = 0u << 28 | 2u << 24 | 2u << 20 | 0u << 16 | 0u << 4 | 0u << 2 | 1u << 1 | 0u;
    std::map<uint64_t, RegisterFileBlock::Register> registers = {
        {CONFIG_BLOCK_ID, {QDMA_IDENTIFIER << 16, 0}},
        {GLBL2_PF_BARLITE_INT, {pf_barlite, 0}},
        {GLBL2_CHANNEL_MDMA, {channel_mdma, 0}},
        {GLBL2_CHANNEL_QDMA_CAP, {caps.queues & 0xfffu, 0}},
        {GLBL2_MISC_CAP, {misc_cap, 0}},
    };
    return std::make_shared<RegisterFileBlock>(std::move(registers));
}

}  // namespace sim
