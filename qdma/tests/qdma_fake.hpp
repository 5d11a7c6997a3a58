// A tiny in-test stand-in for a QDMA (until sim/ models the queue engine): global CSRs, the
// indirect context store, FMAP translation of the PF queue space, and a synchronous MM engine
// that runs a queue's descriptors when its PIDX doorbell is written and writes the status
// descriptor. Written from PG302 like the driver, so it checks the driver's arithmetic and
// order, not its reading of the document. Knobs make it refuse, stall or lie.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "qdma/qdma_registers.hpp"
#include "sim/sim_device.hpp"
#include "sim_device_at.hpp"

namespace qdma_test {

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class FakeQdma : public sim::RegisterBlock {
public:
    sim::SimDevice* device = nullptr;
    uint64_t card_base = 0x80000000ull;
    std::vector<uint8_t> card = std::vector<uint8_t>(0x100000);
    uint32_t multq_max = 64;
    uint32_t mdma = 0x00030101;  // C2H_ST, H2C_ST, one C2H and one H2C MM engine
    std::array<uint32_t, 16> ring_sizes{64, 128, 256, 512, 1024, 2048, 4096, 8192, 16, 32, 8, 4, 3, 96, 48, 24};
    std::map<std::pair<uint32_t, uint32_t>, qdma::ContextWords> contexts;  // (sel, qid)
    std::vector<std::string> commands;  // "WR SW_H2C 3" in order
    // Knobs.
    bool stuck_busy = false;
    int refuse_sel = -1;           // a write to this selector sets IND_CTXT_CMD_ERR
    bool moves_nothing = false;    // completes descriptors without moving data
    bool never_completes = false;  // takes doorbells, runs nothing
    bool status_err = false;       // writes err = 1 (DMA error) in the status descriptor
    bool cidx_overrun = false;     // writes a status cidx past what was posted
    bool mm_run_sticks = true;
    bool cmpt_entry_error = false;  // completion entries with the error bit set
    std::map<uint32_t, std::deque<std::vector<uint8_t>>> loop;  // H2C packets waiting for C2H buffers
    std::map<uint32_t, uint32_t> c2h_pidx;

    uint64_t read(uint64_t offset, unsigned) override {
        using namespace qdma;
        if (offset == CONFIG_BLOCK_ID) return 0x1FD30001;
        if (offset == QDMA_GLBL2_CHANNEL_MDMA) return mdma;
        if (offset == QDMA_GLBL2_CHANNEL_QDMA_CAP) return multq_max;
        if (offset >= QDMA_GLBL_RNG_SZ_1 && offset < QDMA_GLBL_RNG_SZ_1 + 64) return ring_sizes[(offset - QDMA_GLBL_RNG_SZ_1) / 4];
        if (offset >= QDMA_C2H_BUF_SZ && offset < QDMA_C2H_BUF_SZ + 64) return 4096;
        if (offset == QDMA_IND_CTXT_CMD) return stuck_busy ? cmd | 1 : cmd & ~1u;
        if (offset >= QDMA_IND_CTXT_DATA_0 && offset < QDMA_IND_CTXT_DATA_0 + 32) return data[(offset - QDMA_IND_CTXT_DATA_0) / 4];
        if (offset == QDMA_GLBL_ERR_STAT) return err_stat;
        if (offset == QDMA_H2C_MM_CTL) return h2c_ctl;
        if (offset == QDMA_C2H_MM_CTL) return c2h_ctl;
        return 0;
    }

    void write(uint64_t offset, unsigned, uint64_t value) override {
        using namespace qdma;
        const auto v = static_cast<uint32_t>(value);
        if (offset >= QDMA_IND_CTXT_DATA_0 && offset < QDMA_IND_CTXT_DATA_0 + 32) data[(offset - QDMA_IND_CTXT_DATA_0) / 4] = v;
        else if (offset == QDMA_IND_CTXT_CMD) command(v);
        else if (offset == QDMA_GLBL_ERR_STAT) err_stat &= ~v;
        else if (offset == QDMA_H2C_MM_CTL) h2c_ctl = mm_run_sticks ? v : 0;
        else if (offset == QDMA_C2H_MM_CTL) c2h_ctl = mm_run_sticks ? v : 0;
        else if (offset >= QDMA_TRQ_SEL_QUEUE_PF) doorbell((offset - QDMA_TRQ_SEL_QUEUE_PF) / kQueueStride,
                                                           (offset - QDMA_TRQ_SEL_QUEUE_PF) % kQueueStride, v);
    }

    void raise_error(uint32_t bits) { err_stat |= bits; }  // an engine error left in GLBL_ERR_STAT
    qdma::ContextWords& context(qdma::CtxtSel sel, uint32_t qid) { return contexts[{static_cast<uint32_t>(sel), qid}]; }

private:
    void command(uint32_t v) {
        using namespace qdma;
        cmd = v;
        const uint32_t qid = (v >> 7) & 0x1FFF, op = (v >> 5) & 3, sel = (v >> 1) & 0xF;
        static const char* ops[] = {"CLR", "WR", "RD", "INV"};
        commands.push_back(std::string(ops[op]) + " " + std::to_string(sel) + " " + std::to_string(qid));
        ContextWords& c = contexts[{sel, qid}];
        if (op == 0) c = {};
        if (op == 1) {
            if (static_cast<int>(sel) == refuse_sel) { err_stat |= 1u << 9; return; }
            std::memcpy(c.data(), data.data(), sizeof data);
        }
        if (op == 2) std::memcpy(data.data(), c.data(), sizeof data);
        if (op == 3 && sel <= 1) set_bits(c, 32, 1, 0);  // INV: qen cleared, the rest kept
    }

    void doorbell(uint64_t qid, uint64_t reg, uint32_t value) {
        using namespace qdma;
        const FmapContext fmap = FmapContext::decode(context(CtxtSel::QDMA_CTXT_SELC_FMAP, 0));
        if (qid >= fmap.qid_max || never_completes) return;
        const uint32_t hw = fmap.qid_base + static_cast<uint32_t>(qid);
        if (reg == QDMA_DMAP_SEL_H2C_DSC_PIDX) {
            if (SoftwareContext::decode(context(CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C, hw)).is_mm) run_mm(true, hw, value & 0xFFFF);
            else run_h2c_st(hw, value & 0xFFFF);
        }
        if (reg == QDMA_DMAP_SEL_C2H_DSC_PIDX) {
            if (SoftwareContext::decode(context(CtxtSel::QDMA_CTXT_SELC_DEC_SW_C2H, hw)).is_mm) run_mm(false, hw, value & 0xFFFF);
            else { c2h_pidx[hw] = value & 0xFFFF; run_c2h_st(hw); }
        }
    }

    // H2C stream queue q loops back to C2H stream queue q: each descriptor is one packet.
    void run_h2c_st(uint32_t hw, uint32_t pidx) {
        using namespace qdma;
        const SoftwareContext sw = SoftwareContext::decode(context(CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C, hw));
        if (!sw.qen) return;
        ContextWords& hwc = context(CtxtSel::QDMA_CTXT_SELC_DEC_HW_H2C, hw);
        const uint32_t slots = ring_sizes[sw.rngsz_idx] - 1;
        uint32_t cidx = static_cast<uint32_t>(get_bits(hwc, 0, 16));
        while (cidx != pidx) {
            H2cStreamDescriptor d;
            ASSERT_TRUE(device->dma_read(sw.dsc_base + uint64_t{cidx} * 16, &d, sizeof d).ok());
            std::vector<uint8_t> packet(d.len);
            ASSERT_TRUE(device->dma_read(d.addr, packet.data(), packet.size()).ok());
            loop[hw].push_back(std::move(packet));
            cidx = (cidx + 1) % slots;
        }
        set_bits(hwc, 0, 16, cidx);
        const uint64_t status = uint64_t{cidx} << 16 | uint64_t{pidx} << 32;
        ASSERT_TRUE(device->dma_write(sw.dsc_base + uint64_t{slots} * 16, &status, sizeof status).ok());
        run_c2h_st(hw);
    }

    void run_c2h_st(uint32_t hw) {
        using namespace qdma;
        const SoftwareContext sw = SoftwareContext::decode(context(CtxtSel::QDMA_CTXT_SELC_DEC_SW_C2H, hw));
        ContextWords& cw = context(CtxtSel::QDMA_CTXT_SELC_WRB, hw);
        CompletionContext cmpt = CompletionContext::decode(cw);
        if (!sw.qen || !cmpt.valid) return;
        const uint32_t slots = ring_sizes[sw.rngsz_idx] - 1, cmpt_slots = ring_sizes[cmpt.qsize_idx] - 1;
        ContextWords& hwc = context(CtxtSel::QDMA_CTXT_SELC_DEC_HW_C2H, hw);
        uint32_t cidx = static_cast<uint32_t>(get_bits(hwc, 0, 16));
        while (!loop[hw].empty()) {
            const std::vector<uint8_t>& packet = loop[hw].front();
            const uint32_t buffers = packet.empty() ? 1 : static_cast<uint32_t>((packet.size() + 4095) / 4096);
            if ((c2h_pidx[hw] + slots - cidx) % slots < buffers) return;  // waits for buffers
            for (uint32_t i = 0; i < buffers; ++i) {
                C2hStreamDescriptor d;
                ASSERT_TRUE(device->dma_read(sw.dsc_base + uint64_t{cidx} * 8, &d, sizeof d).ok());
                const size_t at = size_t{i} * 4096, n = std::min<size_t>(4096, packet.size() - at);
                if (!moves_nothing && n > 0) {
                    ASSERT_TRUE(device->dma_write(d.addr, packet.data() + at, n).ok());
                }
                cidx = (cidx + 1) % slots;
            }
            const uint64_t entry = uint64_t{packet.size()} << 4 | uint64_t{cmpt.color} << 1 | uint64_t{cmpt_entry_error} << 2;
            ASSERT_TRUE(device->dma_write(cmpt.baddr + uint64_t{cmpt.pidx} * 8, &entry, sizeof entry).ok());
            if (++cmpt.pidx == cmpt_slots) { cmpt.pidx = 0; cmpt.color = !cmpt.color; }
            loop[hw].pop_front();
        }
        set_bits(hwc, 0, 16, cidx);
        cw = cmpt.encode();
    }

    void run_mm(bool h2c, uint32_t hw, uint32_t pidx) {
        using namespace qdma;
        const SoftwareContext sw = SoftwareContext::decode(context(h2c ? CtxtSel::QDMA_CTXT_SELC_DEC_SW_H2C : CtxtSel::QDMA_CTXT_SELC_DEC_SW_C2H, hw));
        if (!sw.qen || !sw.is_mm || (h2c ? h2c_ctl : c2h_ctl) == 0) return;
        ContextWords& hwc = context(h2c ? CtxtSel::QDMA_CTXT_SELC_DEC_HW_H2C : CtxtSel::QDMA_CTXT_SELC_DEC_HW_C2H, hw);
        const uint32_t slots = ring_sizes[sw.rngsz_idx] - 1;
        uint32_t cidx = static_cast<uint32_t>(get_bits(hwc, 0, 16));
        while (cidx != pidx) {
            MmDescriptor d;
            ASSERT_TRUE(device->dma_read(sw.dsc_base + uint64_t{cidx} * 32, &d, sizeof d).ok());
            const uint64_t length = d.length & 0xFFFF;
            if (!moves_nothing) {
                if (h2c) ASSERT_TRUE(device->dma_read(d.src_addr, card.data() + (d.dst_addr - card_base), length).ok());
                else ASSERT_TRUE(device->dma_write(d.dst_addr, card.data() + (d.src_addr - card_base), length).ok());
            }
            cidx = (cidx + 1) % slots;
        }
        set_bits(hwc, 0, 16, cidx);
        const uint64_t status = uint64_t{status_err ? 1u : 0u} | uint64_t{cidx_overrun ? (cidx + 5) % slots : cidx} << 16 |
                                uint64_t{pidx} << 32;
        ASSERT_TRUE(device->dma_write(sw.dsc_base + uint64_t{slots} * 32, &status, sizeof status).ok());
    }

    uint32_t cmd = 0, err_stat = 0, h2c_ctl = 0, c2h_ctl = 0;
    std::array<uint32_t, 8> data{};
};

inline vfio::DeviceIdentity identity() { return sim_test::xilinx_identity("0000:15:00.0", 0xb03f); }

struct FakeRig {
    FakeRig() {
        fake = std::make_shared<FakeQdma>();
        bar = std::make_shared<sim::SimBar>(0x20000);
        bar->add_block(0, 0x20000, fake);
        device = std::make_unique<sim::SimDevice>(identity(), std::vector<std::shared_ptr<sim::SimBar>>{bar});
        fake->device = device.get();
        EXPECT_TRUE(device->enable_bus_master().ok());
    }
    std::shared_ptr<FakeQdma> fake;
    std::shared_ptr<sim::SimBar> bar;
    std::unique_ptr<sim::SimDevice> device;
};

}  // namespace qdma_test
