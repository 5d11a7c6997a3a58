// A register model of the AXI Quad SPI core (PG153 v3.2) with a simulated SPI NOR flash behind
// slave select 0, written from PG153 and the flash makers' datasheets, not from the driver.
// The flash has a shape (JEDEC ID, density, SFDP per JESD216, block-protect layout): a Micron
// MT25QU01G-like 128 MiB part and a Macronix MX25L51245G-like 64 MiB part. Erased bytes read
// 0xFF, a page program only clears bits, erase sectors are 4 KiB / 32 KiB / 64 KiB, pages 256
// bytes. Test-only faults (PDT_SIM_FLASH_FAULT, or inject()): a stuck busy bit, a protected
// sector (BP bits set), bit errors on read, a page program that silently does nothing.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "sim/sim_device.hpp"

namespace sim {

struct FlashShape {
    std::string name;                // "mt25qu01g", "mx25l51245g"
    uint8_t jedec_id[3] = {0, 0, 0};
    uint64_t density = 0;            // bytes
    std::vector<uint8_t> sfdp;       // SFDP space from address 0
    bool macronix_bp = false;        // BP3:0 in SR bits 5:2 (else Micron: BP3 bit 6, TB bit 5, BP2:0 4:2)
    bool quad_enable_sr1_bit6 = false;  // quad reads need QE (SR1 bit 6)
};
// The shapes by name; nullopt for an unknown one. The default shape is "mt25qu01g".
std::optional<FlashShape> flash_shape(const std::string& name);
std::vector<std::string> flash_shape_names();
inline constexpr const char* kDefaultFlashShape = "mt25qu01g";

enum class FlashFault { StuckBusy, Protected, ReadBitError, ProgramFails };
const char* flash_fault_name(FlashFault fault);  // "stuck_busy", "protected", "read_bit_error", "program_fails"
struct FlashFaultPlan {
    bool stuck_busy = false;
    bool protect = false;             // BP=1: the top 64 KiB block protected
    bool read_bit_error = false;      // every second read command flips bit 0 of its first byte
    std::optional<unsigned> program_fails_after;  // page programs after this many do nothing
};
// Test-only: PDT_SIM_FLASH_FAULT=name[,name...], names as above, program_fails[=N].
inline constexpr const char* kFlashFaultVariable = "PDT_SIM_FLASH_FAULT";
// Test-only: PDT_SIM_FLASH_DIR=<dir> keeps each simulated flash in <dir>/<key>.flash (so that
// it lasts from one process to the next) and logs every erase and program command to
// <dir>/<key>.log, one line each.
inline constexpr const char* kFlashDirVariable = "PDT_SIM_FLASH_DIR";
pdt::Result<FlashFaultPlan> parse_flash_faults(const std::string& text);

// The flash itself: a SPI slave that takes a byte and answers one, selected and deselected.
class SpiNorModel {
public:
    // `backing`: a file keeping the contents (bytes stored inverted, so a sparse file's holes
    // read erased); empty for memory only.
    SpiNorModel(FlashShape shape, FlashFaultPlan faults, std::filesystem::path backing = {},
                std::filesystem::path log = {});
    ~SpiNorModel();
    SpiNorModel(const SpiNorModel&) = delete;
    SpiNorModel& operator=(const SpiNorModel&) = delete;
    void select();
    uint8_t exchange(uint8_t mosi);
    void deselect();

    uint64_t program_commands() const { return m_programs; }
    uint64_t erase_commands() const { return m_erases; }
    void inject(const FlashFaultPlan& faults);
    const FlashShape& shape() const { return m_shape; }
    uint8_t status() const { return m_status; }
    // Direct access for tests (no command): the stored bytes and a raw store.
    std::vector<uint8_t> contents(uint64_t address, size_t length) const;
    void store(uint64_t address, const std::vector<uint8_t>& bytes);

private:
    unsigned address_bytes(uint8_t op) const;
    bool is_read(uint8_t op) const;
    bool takes_address(uint8_t op) const;
    uint8_t data_out();
    void commit();
    bool protected_at(uint64_t address, uint64_t length) const;
    uint8_t read_byte(uint64_t address) const;
    void write_byte(uint64_t address, uint8_t value);
    void log(const std::string& line) const;

    FlashShape m_shape;
    FlashFaultPlan m_faults;
    std::filesystem::path m_backing, m_log;
    void load_backing();
    int m_fd = -1;                                       // the backing file, written through
    std::map<uint64_t, std::vector<uint8_t>> m_sectors;  // the 4 KiB sectors not erased
    uint8_t m_status = 0;                                // SR1: WIP 0, WEL 1, BP/TB/QE per shape
    bool m_four_byte_mode = false;
    unsigned m_busy_polls = 0;                           // status reads left with WIP set
    // The command in progress.
    bool m_selected = false;
    std::vector<uint8_t> m_command;
    uint64_t m_address = 0;
    size_t m_data_index = 0;
    std::vector<uint8_t> m_program_buffer;
    uint64_t m_programs = 0, m_erases = 0, m_reads = 0;
};

// PG153 registers (Register Space) over the flash: SRR, SPICR, SPISR, SPI DTR, SPI DRR,
// SPISSR, Tx/Rx FIFO occupancy, DGIER, IPISR, IPIER. FIFOs of `fifo_depth` (16 or 256); the
// bytes in the Tx FIFO shift out while the core is enabled as master, not inhibited, and slave
// select 0 is asserted (PG153 "SPI Protocol with Manual Slave Select Assertion").
class QuadSpiModel : public RegisterBlock {
public:
    QuadSpiModel(std::shared_ptr<SpiNorModel> flash, unsigned fifo_depth);
    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;
    SpiNorModel& flash() { return *m_flash; }

private:
    void reset_locked();
    void shift_locked();
    uint32_t status_locked() const;

    std::mutex m_mutex;
    std::shared_ptr<SpiNorModel> m_flash;
    unsigned m_depth;
    uint32_t m_spicr = 0x180, m_spissr = 0xffffffff, m_dgier = 0, m_ipisr = 0, m_ipier = 0;
    std::deque<uint8_t> m_tx, m_rx;
};

// The model of a design's quad_spi peripheral: its flash shape by name (design data "flash",
// empty for the default), the faults of PDT_SIM_FLASH_FAULT, the backing of PDT_SIM_FLASH_DIR
// keyed by `key` (the design and PCI address). EINVAL for an unknown shape or fault.
pdt::Result<std::shared_ptr<QuadSpiModel>> make_quad_spi_model(const std::string& shape, unsigned fifo_depth,
                                                               const std::string& key);

}  // namespace sim
