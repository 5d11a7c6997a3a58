// One PCIe function's view of a QDMA Subsystem for PCI Express (PG302, EQDMA 5.0 soft IP): the
// global capabilities it reads, its queue range in the Function Map Table, and the indirect
// context programming every queue is set up and torn down with.
//
//   qdma::FunctionOptions options{.bar = 0, .function = 0, .queues = 8};
//   auto function = PDT_TRY(qdma::Function::open(device, options));
//
// Context commands (PG302 "Context Programming") write QDMA_IND_CTXT_DATA/MASK, then
// QDMA_IND_CTXT_CMD, and wait for its busy bit to clear within options.context_timeout; after
// each command QDMA_GLBL_ERR_STAT is read back, and a command the IP flags (IND_CTXT_CMD_ERR)
// or an error it raises is an EIO error naming the command, the qid and the registers read.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/mmio.hpp"

namespace qdma {

struct FunctionOptions {
    unsigned bar = 0;            // the BAR holding QDMA_CSR and QDMA_TRQ_SEL_QUEUE_PF
    unsigned function = 0;       // the PCIe function number (fnc_id in contexts, FMAP index)
    uint16_t qid_base = 0;       // the function's first physical queue (FMAP qid_base)
    uint16_t queues = 16;        // queues given the function (FMAP qid_max); 1..MULTQ_MAX - qid_base
    std::chrono::milliseconds context_timeout{100};  // QDMA_IND_CTXT_CMD busy, per command
    // An IP fresh out of reset has every QDMA_GLBL_RNG_SZ (and QDMA_C2H_BUF_SZ) at 0: some
    // function must program them before any queue is set up (AMD's drivers: the master PF).
    // When all 16 read 0 the function writes kDefaultRingSizes (kDefaultC2hBufferSizes); values
    // already there are never overwritten (other functions' queues use them).
    bool program_empty_globals = true;
    // Inspection (qdma_inspect.hpp): the function's FMAP context is read, not written, and gives
    // qid_base and queues (those above are ignored; qid_max 0: a function with no queues, whose
    // every queue is refused by physical_qid). Nothing is programmed: only the read commands, and
    // the error status registers are left as found (a command is judged by the bits it adds).
    bool read_fmap = false;
};

// Ring sizes in entries, the status descriptor included: 2^n + 1 holds 2^n descriptors.
inline constexpr std::array<uint32_t, 16> kDefaultRingSizes{65,   129,  257,   513,   1025, 2049, 4097, 8193,
                                                              16385, 32769, 33, 17, 9, 5, 3, 1537};
inline constexpr std::array<uint32_t, 16> kDefaultC2hBufferSizes{4096,   256,    512,    1024,   2048,    8192,
                                                                   16384,  32768,  65536,  131072, 262144,  524288,
                                                                   1048576, 2097152, 4194304, 16777216};

// What QDMA_CSR says of the IP (read once at open).
struct Capabilities {
    uint32_t config_block_id = 0;
    uint32_t multq_max = 0;       // QDMA_GLBL2_CHANNEL_QDMA_CAP.MULTQ_MAX
    bool h2c_st = false, c2h_st = false;
    unsigned h2c_mm_engines = 0, c2h_mm_engines = 0;  // QDMA_GLBL2_CHANNEL_MDMA H2C_ENG / C2H_ENG
    std::array<uint32_t, 16> ring_sizes{};     // QDMA_GLBL_RNG_SZ_1..16
    std::array<uint32_t, 16> c2h_buf_sizes{};  // QDMA_C2H_BUF_SZ_0..15
};

// A queue direction and kind, as the context selectors tell them apart.
enum class QueueKind { MemoryMapped, Stream };
enum class QueueDirection { H2C, C2H };
const char* to_string(QueueDirection direction);

// A ring in host memory as software sees it (for dumps): its bytes, its entries (a descriptor
// or completion ring's last is its status descriptor), PIDX and CIDX.
struct RingView {
    const uint8_t* bytes = nullptr;
    uint32_t entries = 0, entry_bytes = 0;
    uint64_t iova = 0;
    uint32_t pidx = 0, cidx = 0;
};

class Function {
public:
    // Reads the capabilities, checks the options against them (queues past MULTQ_MAX: a usage error
    // naming QDMA_GLBL2_CHANNEL_QDMA_CAP) and programs the function's FMAP context (or, with
    // options.read_fmap, reads it).
    static pdt::Result<std::unique_ptr<Function>> open(vfio::Device& device, const FunctionOptions& options);
    ~Function();
    Function(const Function&) = delete;
    Function& operator=(const Function&) = delete;

    const Capabilities& capabilities() const { return m_caps; }
    const FunctionOptions& options() const { return m_options; }
    vfio::Device& device() { return m_device; }
    const vfio::RegisterWindow& registers() const { return m_regs; }
    std::string name() const;  // "0000:15:00.0 QDMA function 0"

    // The rngsz_idx whose QDMA_GLBL_RNG_SZ holds `entries` (the ring's entries, status
    // descriptor included); a usage error listing the sizes the IP offers otherwise.
    pdt::Result<unsigned> ring_size_index(uint32_t entries) const;
    // The bufsz_idx whose QDMA_C2H_BUF_SZ holds `bytes`; a usage error listing the sizes otherwise.
    pdt::Result<unsigned> c2h_buffer_size_index(uint32_t bytes) const;
    // The physical qid of the function's queue `qid`; a usage error past the FMAP range.
    pdt::Result<uint32_t> physical_qid(uint32_t qid) const;

    // Context commands on physical queue `hw_qid` (sel, op as PG302's CtxtSel / CtxtOp values).
    pdt::Result<void> context_command(uint32_t hw_qid, uint32_t sel, uint32_t op,
                                      const std::array<uint32_t, 8>* data = nullptr);
    pdt::Result<std::array<uint32_t, 8>> context_read(uint32_t hw_qid, uint32_t sel);

    // Sets run in QDMA_H2C_MM_CTL / QDMA_C2H_MM_CTL (MM channel 0) and reads it back: EIO
    // naming the register when it does not stick.
    pdt::Result<void> start_mm_channel(QueueDirection direction);

    // Writes a PIDX / CIDX doorbell of the function's queue `qid` (QDMA_TRQ_SEL_QUEUE_PF).
    void doorbell(uint32_t qid, uint64_t reg, uint32_t value) const;

private:
    Function(vfio::Device& device, const FunctionOptions& options, vfio::RegisterWindow regs)
        : m_device(device), m_options(options), m_regs(std::move(regs)) {}
    pdt::Result<void> read_capabilities();
    pdt::Result<void> adopt_fmap();
    pdt::Result<void> check_errors(const std::string& what, uint32_t before);

    vfio::Device& m_device;
    FunctionOptions m_options;
    vfio::RegisterWindow m_regs;
    Capabilities m_caps;
};

}  // namespace qdma
