// A stepped QDMA model for register-level tests: raw register accesses, contexts built field by
// field from PG302's context structures, and hand-built descriptors in host memory, independent
// of any driver.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "sim/qdma_model.hpp"
#include "stepped_device_rig.hpp"

namespace qdma_test {

using namespace sim::qdma_csr;
using Words = std::array<uint32_t, 8>;

constexpr uint64_t kIova = 0x100000;        // where the rig maps its host memory
constexpr uint64_t kCardBase = 0x80000000;  // card memory of the rig's design
constexpr uint64_t kCardSize = 0x100000;

// SW context fields (PG302 Software Descriptor Context Structure).
struct Sw {
    uint16_t pidx = 0;
    unsigned fnc = 0;
    bool qen = true, wbi_chk = false, wbk_en = true, is_mm = true, mm_chn = false;
    unsigned rng_sz = 0, dsc_sz = 2;
    uint64_t base = 0;
    Words words() const {
        Words w{};
        w[0] = pidx | (fnc & 0xFFFu) << 17;
        w[1] = uint32_t(qen) | uint32_t(wbi_chk) << 2 | (rng_sz & 0xF) << 12 | (dsc_sz & 3) << 16 |
               uint32_t(mm_chn) << 19 | uint32_t(wbk_en) << 20 | uint32_t(is_mm) << 31;
        w[2] = static_cast<uint32_t>(base);
        w[3] = static_cast<uint32_t>(base >> 32);
        return w;
    }
};

// Completion context fields (PG302 Completion Context Structure).
struct Cmpt {
    bool en_stat_desc = true, color = true, valid = true;
    unsigned trig_mode = 1, qsize_ix = 0, desc_size = 0;  // 8-byte entries
    uint64_t base = 0;                                     // 64-byte aligned here
    Words words() const {
        Words w{};
        w[0] = uint32_t(en_stat_desc) | (trig_mode & 7) << 2 | uint32_t(color) << 27 | (qsize_ix & 0xF) << 28;
        const uint64_t high = base >> 6;
        w[1] = static_cast<uint32_t>(high);
        w[2] = (static_cast<uint32_t>(high >> 32) & 0x3FFFFFF) | (desc_size & 3) << 26;
        w[3] = uint32_t(valid) << 28;
        w[5] = static_cast<uint32_t>((base >> 2) & 0xF) << 14;
        return w;
    }
};

template <size_t HostBytes = 0x40000>
struct Rig : sim_test::SteppedDeviceRig<HostBytes> {
    using Base = sim_test::SteppedDeviceRig<HostBytes>;
    using Base::host;
    using Base::regs;

    explicit Rig(designs::QdmaSimulation caps = {1, 64, true, true}, unsigned function = 0) : Base(0x903f, kFrameSize) {
        sim::QdmaConfig config;
        config.caps = caps;
        config.function = function;
        config.card_memory_base = kCardBase;
        config.card_memory_size = kCardSize;
        config.stepped = true;
        model = sim::QdmaModel::attach(*this->device, *this->bar, config);
        this->enable(kFrameSize, kIova);
    }

    uint32_t rd(uint64_t offset) const { return regs.read32(offset); }
    void wr(uint64_t offset, uint32_t value) const { regs.write32(offset, value); }

    // PG302 Context Programming: data and mask, then the command.
    void command(CtxtSel sel, CtxtOp op, uint32_t qid, const Words& data = {}, const Words& mask = all_ones()) const {
        for (unsigned i = 0; i < 8; ++i) {
            wr(IND_CTXT_DATA + 4 * i, data[i]);
            wr(IND_CTXT_MASK + 4 * i, mask[i]);
        }
        wr(IND_CTXT_CMD, ind_ctxt_cmd(sel, op, qid));
    }
    void write(CtxtSel sel, uint32_t qid, const Words& data) const { command(sel, CtxtOp::WR, qid, data); }
    Words read(CtxtSel sel, uint32_t qid) const {
        wr(IND_CTXT_CMD, ind_ctxt_cmd(sel, CtxtOp::RD, qid));
        Words w{};
        for (unsigned i = 0; i < 8; ++i)
            w[i] = rd(IND_CTXT_DATA + 4 * i);
        return w;
    }
    static Words all_ones() {
        Words w;
        w.fill(0xFFFFFFFFu);
        return w;
    }
    void fmap(unsigned function, unsigned qbase, unsigned qmax) const { write(CtxtSel::FMAP, function, {qbase, qmax}); }
    void ring_size(unsigned index, uint32_t entries) const { wr(GLBL_RNG_SZ_1 + 4 * index, entries); }
    uint64_t doorbell(unsigned logical, uint64_t reg) const { return QUEUE_PF + kQueueStride * logical + reg; }

    // Host memory at IOVA kIova + at.
    void put64(size_t at, uint64_t v) { std::memcpy(host + at, &v, 8); }
    void put32(size_t at, uint32_t v) { std::memcpy(host + at, &v, 4); }
    uint64_t get64(size_t at) const {
        uint64_t v;
        std::memcpy(&v, host + at, 8);
        return v;
    }
    // PG302 AXI Memory Mapped Descriptor at host offset `at`.
    void mm_descriptor(size_t at, uint64_t src, uint32_t length, uint64_t dst) {
        std::memset(host + at, 0, 32);
        put64(at, src);
        put32(at + 8, length);
        put64(at + 16, dst);
    }
    // PG302 H2C Stream Descriptor at host offset `at`.
    void h2c_st_descriptor(size_t at, uint64_t src, uint16_t length, uint32_t metadata = 0) {
        std::memset(host + at, 0, 16);
        put32(at, metadata);
        put32(at + 4, length);
        put64(at + 8, src);
    }
    // Status descriptor fields: err [1:0], cidx [31:16], pidx [47:32].
    static unsigned status_err(uint64_t s) { return s & 3; }
    static unsigned status_cidx(uint64_t s) { return (s >> 16) & 0xFFFF; }
    static unsigned status_pidx(uint64_t s) { return (s >> 32) & 0xFFFF; }

    std::shared_ptr<sim::QdmaModel> model;
};

}  // namespace qdma_test
