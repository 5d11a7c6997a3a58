// A known FPGA design, described as data: how to recognise it on the PCI bus, where its DMA
// bridge and peripherals sit, and how a simulated instance of it behaves. Built-in designs and
// user design files (--design_file) use the same JSON format (designs/data/*.json, README).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vfio_access/device.hpp"

namespace designs {

enum class DmaMode { Stream, MemoryMapped };
const char* to_string(DmaMode mode);  // "stream", "memory_mapped" (the JSON spelling)

// What the card does with the AXI4-Stream data of a stream design (fpga_sio's designs):
//   Loopback   H2C packets come back on the C2H channel the routing names;
//   Crc64      each H2C packet comes back as one 8-byte C2H packet, its CRC-64 (reflected
//              polynomial 0xC96C5795D7870F42, initial value all-ones, no final XOR, over 64-bit
//              little-endian words), computed one tdata beat at a time (packets must be a
//              multiple of stream_tdata_bytes);
//   FixedData  H2C data is discarded (a sink always ready), C2H carries zeros for ever with
//              no end of packet (a source always valid).
enum class StreamFunction { Loopback, Crc64, FixedData };
const char* to_string(StreamFunction function);  // "loopback", "crc64", "fixed_data"

enum class PeripheralType {
    QuadSpi,              // AXI Quad SPI (PG153)
    Xadc,                 // XADC Wizard (PG091), 7-series
    Sysmon,               // System Management Wizard (PG185), UltraScale(+)
    Iic,                  // AXI IIC (PG090)
    BitBangedI2cGpio,     // AXI GPIO (PG144) driving SCL/SDA
    AxiStreamSwitch,      // AXI4-Stream Switch (PG085) with control-register routing
    UserAccessTimestamp,  // USR_ACCESS register holding the bitstream build timestamp
    UltrascaleDna,        // DNA_PORTE2 device identifier, 96 bits in three words
    Cms,                  // Alveo Card Management Solution Subsystem (PG348)
    Cmac,                 // UltraScale+ Integrated 100G Ethernet Subsystem (PG203), one port
    AxiDma,               // AXI DMA (PG021) in Direct Register Mode, its M_AXI ports on card memory
    DdrResetGpio,         // AXI GPIO (PG144) channel 1: bit 0 out resets the MIG's clocks, bits 1-4 in its status
    M2LedGpio,            // AXI GPIO (PG144) channel 2: bit 1 out drives the M.2 activity LED (Lite/NiteFury)
};
inline constexpr PeripheralType kPeripheralTypes[] = {
    PeripheralType::QuadSpi, PeripheralType::Xadc, PeripheralType::Sysmon, PeripheralType::Iic,
    PeripheralType::BitBangedI2cGpio, PeripheralType::AxiStreamSwitch, PeripheralType::UserAccessTimestamp,
    PeripheralType::UltrascaleDna, PeripheralType::Cms, PeripheralType::Cmac, PeripheralType::AxiDma,
    PeripheralType::DdrResetGpio, PeripheralType::M2LedGpio};
const char* json_name(PeripheralType type);     // "quad_spi", "xadc", ...
const char* display_name(PeripheralType type);  // "Quad SPI", "XADC", "bit-banged I2C GPIO", ...
// Bytes of register space the peripheral needs; its BAR must hold offset + frame. A SYSMON's
// frame grows with its slave SYSMONs (PG185: each SYSMON of an SSI part has its own 0x800 bytes).
uint64_t register_frame_size(PeripheralType type, unsigned master_ports = 0, unsigned sysmon_slaves = 0);

// The SYSMON primitive behind a System Management Wizard (UG580): SYSMONE1 in UltraScale parts,
// SYSMONE4 in UltraScale+ parts. Their temperature transfer functions differ.
enum class SysmonPrimitive { Sysmone1, Sysmone4 };

// The CMAC operation a port is built with (PG203 IP option: both directions, or one).
enum class CmacOperation { Duplex, SimplexTx, SimplexRx };
const char* to_string(CmacOperation operation);  // "duplex", "simplex_tx", "simplex_rx" (the JSON spelling)
// What an AXI DMA's streams are wired to (JSON "streams"). FixedDataAndSink: fpga_sio's
// TEF1001_ddr3_throughput, M_AXIS_MM2S into a sink that drops every beat and S_AXIS_S2MM fed by a
// source of constant data that never asserts TLAST. Loopback: M_AXIS_MM2S looped to S_AXIS_S2MM.
enum class AxiDmaStreams { FixedDataAndSink, Loopback };
const char* to_string(AxiDmaStreams streams);  // "fixed_data_and_sink", "loopback"

// The bytes of a CMAC port's DRP window (PG203 DRP addresses 0x000..0x3FF, one 32-bit word each).
inline constexpr uint64_t kCmacDrpFrameSize = 0x1000;
const char* to_string(SysmonPrimitive primitive);  // "SYSMONE1", "SYSMONE4" (the JSON spelling)

// A 32-bit register at BAR + offset, and (for a content match or a simulated constant) its value.
struct RegisterValue {
    unsigned bar = 0;
    uint64_t offset = 0;
    uint32_t value = 0;
};

// PCI identity a device must have. Unset optional IDs match any value (JSON: absent device_id,
// or "any" for the subsystem IDs).
struct IdMatch {
    uint16_t vendor_id = 0x10ee;
    std::optional<uint16_t> device_id;
    // Further device IDs the design also has (JSON "device_ids": [first, more...]; OpenNIC's
    // 0x903F and 0x913F). Empty unless device_ids is given.
    std::vector<uint16_t> more_device_ids;
    std::optional<uint16_t> subsystem_vendor_id = 0;
    std::optional<uint16_t> subsystem_device_id = 0;
    uint8_t min_revision = 0;
    uint8_t max_revision = 0xff;
    // Content match (designs that share PCI IDs, e.g. Lite/NiteFury Project-0): the design is
    // identified only when this register, read once the device is open, holds `value`.
    std::optional<RegisterValue> register_value;
    bool matches(const vfio::DeviceIdentity& identity) const;  // the PCI identity part only
};

struct MemoryWindow {
    uint8_t min_revision = 0;
    uint8_t max_revision = 0xff;
    uint64_t base = 0;
    uint64_t size = 0;
};

struct Route {
    unsigned master = 0;  // master port: drives a C2H stream
    unsigned slave = 0;   // slave port: fed by an H2C stream
    bool operator==(const Route&) const = default;
};

// What the XDMA IP of a design was customised with (PG195 IP options); unset = not stated, the
// driver probes it. JSON: dma_bridge.xdma_ip and simulation.xdma_ip.
struct XdmaIpOptions {
    std::optional<bool> descriptor_credits;   // SGDMA Descriptor Credits and credit mode enable
    std::optional<bool> poll_mode_writeback;  // Control.pollmode_wb_enable and its writeback
    std::optional<bool> interrupts;           // the IP's MSI/MSI-X interrupt path is usable
    bool operator==(const XdmaIpOptions&) const = default;
};

struct DmaBridge {
    unsigned bar = 0;
    DmaMode mode = DmaMode::Stream;
    uint64_t memory_base = 0;  // card address of the memory (memory-mapped only)
    uint64_t memory_size = 0;
    std::vector<MemoryWindow> memory_by_revision;  // overrides base/size for a revision range
    std::optional<unsigned> h2c_channels;          // channels the design is built with, when known
    std::optional<unsigned> c2h_channels;
    std::optional<unsigned> stream_tdata_bytes;  // AXI4-Stream tdata width, when known
    StreamFunction stream_function = StreamFunction::Loopback;  // stream designs only
    XdmaIpOptions xdma_ip;                       // what the design states about its IP options
    // False for enumeration-only designs: the IP's AXI-MM master has no memory behind it (the
    // address map still shows memory_size, fpga_sio's "MM 4096"), so a DMA never completes.
    bool memory_present = true;
    // Base and size for a device revision.
    MemoryWindow memory_for_revision(uint8_t revision) const;
};

// The QDMA Subsystem for PCI Express (PG302) of a design: the BAR whose offset 0 holds the QDMA
// CSR space (PG302 Register Space: QDMA_CSR, the global registers), and for a memory-mapped
// design the card memory its AXI-MM master reaches (fpga_sio: "QDMA bar <n> memory base offset
// 0x<base> size 0x<size>", printed only when the size is known). JSON: "qdma".
// A QDMA streaming design says what its fabric does between the AXI4-Stream queues (the QDMA's
// registers cannot tell): stream_routes, each H2C stream queue whose packets come back on a C2H
// stream queue (JSON "stream_routes": [{"h2c": 0, "c2h": 0}]), and the stream function (only
// "loopback"). No routes: nothing the stream tools can verify (a NIC's H2C goes to its MAC).
struct QdmaStreamRoute {
    unsigned h2c = 0;  // the function's H2C stream queue (qid)
    unsigned c2h = 0;  // the function's C2H stream queue its packets come back on
    bool operator==(const QdmaStreamRoute&) const = default;
};

struct Qdma {
    unsigned bar = 0;
    uint64_t memory_base = 0;
    uint64_t memory_size = 0;  // 0: no memory described (enumeration and streaming designs)
    std::vector<QdmaStreamRoute> stream_routes;
    StreamFunction stream_function = StreamFunction::Loopback;
};

// What a simulated QDMA's global capability registers report (simulation.qdma; sim/qdma_model.hpp).
struct QdmaSimulation {
    unsigned physical_functions = 1;  // PFs with a BAR mapped: 1..4 (PG302: up to 4 PFs)
    unsigned queues = 512;            // MULTQ_MAX: 1..2048 (PG302: up to 2048 queues)
    bool stream = false;              // H2C and C2H AXI4-Stream engines present
    bool memory_mapped = true;        // H2C and C2H AXI-MM engines present
    bool operator==(const QdmaSimulation&) const = default;
};

// One physical function of a multi-function card (PG302: up to 4 PFs, each its own PCI function
// with its own subsystem ID): the designs naming the same card are one card (JSON: "card").
struct CardFunction {
    std::string name;                // the card's design, e.g. "XCKU5P_DUAL_QSFP_qdma_ram"
    unsigned physical_function = 0;  // 0..3
};

// How the simulated MIG behind a DDR reset GPIO follows its reset (JSON "simulated_mig"): its
// clocks lock this long after the reset is released, calibration completes this long after they
// lock, or never, or the reset never reaches it (a test's lies).
struct MigSimulation {
    uint64_t locked_after_us = 50;
    uint64_t calibrated_after_ms = 20;
    bool calibrates = true;
    bool follows_reset = true;
    bool operator==(const MigSimulation&) const = default;
};

struct Peripheral {
    PeripheralType type = PeripheralType::QuadSpi;
    unsigned bar = 0;
    uint64_t offset = 0;
    uint8_t min_revision = 0;  // present only in bitstreams with at least this revision ID
    // AXI4-Stream Switch only.
    unsigned master_ports = 0;
    unsigned slave_ports = 0;
    std::vector<Route> default_routes;
    // SYSMON only: number of slave SYSMONs (SLRs) behind the master, and the primitive (JSON
    // "primitive", default SYSMONE4: every SYSMON design known is an UltraScale+ part).
    unsigned sysmon_slaves = 0;
    SysmonPrimitive sysmon_primitive = SysmonPrimitive::Sysmone4;
    // UltraScale DNA only: the SLR it identifies.
    unsigned slr = 0;
    // AXI Quad SPI only (PG153): the core built in quad mode (JSON "spi_mode": "quad", default
    // "standard"); its FIFO depth, 16 or 256 (JSON "fifo_depth", default 256, as the simulated
    // core is built); the flash a simulated instance has behind it (JSON "flash": "mt25qu01g"
    // or "mx25l51245g", default mt25qu01g; sim/quad_spi_model.hpp).
    bool quad_spi_mode = false;
    unsigned fifo_depth = 256;
    std::string flash;
    // CMAC only (PG203): the design's port number ("CMAC port <n>"), the operation and RS-FEC
    // it was built with, whether the design connects GT_LOOPBACK_REG to the transceivers, and
    // the DRP window the design maps for the port (its offset in the same BAR, from a revision).
    unsigned cmac_port = 0;
    CmacOperation cmac_operation = CmacOperation::Duplex;
    bool cmac_rs_fec = false;
    bool cmac_gt_loopback = true;
    std::optional<uint64_t> cmac_drp_offset;
    uint8_t cmac_drp_min_revision = 0;
    // AXI DMA only (PG021, Direct Register Mode): the card memory both M_AXI ports reach, from
    // AXI address 0 (JSON "memory_size"); the IP's Width of Buffer Length Register (c_sg_length_width,
    // JSON "length_width", 8..26, default 26) and memory-map data width in bytes (JSON "data_width",
    // default 64: 512 bits); its streams; the BAR in which the host reaches the whole card memory
    // from offset 0 (JSON "memory_window_bar"; none in fpga_sio's design).
    uint64_t axi_dma_memory_size = 0;
    unsigned axi_dma_length_width = 26;
    unsigned axi_dma_data_width = 64;
    AxiDmaStreams axi_dma_streams = AxiDmaStreams::FixedDataAndSink;
    std::optional<unsigned> axi_dma_memory_window_bar;
    // DDR reset GPIO only: the simulated MIG.
    MigSimulation simulated_mig;
    uint64_t frame_size() const { return register_frame_size(type, master_ports, sysmon_slaves); }
};

// Memory a simulated instance has in a BAR (block RAM behind an AXI BRAM Controller, PG078):
// bytes that read back what was written, for memmapped_persistence. JSON simulation.bar_memory.
struct BarMemory {
    unsigned bar = 0;
    uint64_t offset = 0;  // a multiple of 8
    uint64_t size = 0;    // a multiple of 8, 8 bytes .. 16 MiB
    bool cleared_by_reset = false;  // a function reset zeroes it (default: block RAM keeps its bytes)
};

// How a simulated instance of the design looks (sim::instantiate_design).
struct Simulation {
    uint16_t device_id = 0x7024;  // the XDMA default for 7-series Gen2 x4
    uint8_t revision = 0;
    uint32_t class_code = 0x058000;  // memory controller, other (XDMA default)
    std::optional<uint32_t> user_access_timestamp;
    std::map<unsigned, uint64_t> bar_sizes;  // BAR index -> size; unset BARs sized to fit
    // False for bitstreams whose table entry names a switch the fabric does not contain: reads
    // of its registers are undefined AXI space (seed 004: every master port reads as disabled).
    bool axi_stream_switch_implemented = true;
    std::vector<uint32_t> dna_words;  // 3 words per DNA peripheral; generated when empty
    // Depth in bytes of each AXI4-Stream FIFO between the H2C side and the C2H side of the
    // XDMA model; H2C stalls while it is full. Unset: the model's default (64 KiB).
    std::optional<uint64_t> stream_fifo_bytes;
    // XDMA IP options the simulated IP really implements when they differ from dma_bridge.xdma_ip
    // (default: the stated values, else all true as fpga_sio's designs).
    XdmaIpOptions xdma_ip;
    // The model keeps Status.busy set this long after an engine stops (PG195: wait for it).
    uint64_t busy_after_stop_us = 0;
    // The channels' Alignments register (PG195 0x4C): address alignment and length granularity
    // in bytes that every descriptor must keep (1 = none, an IP with unaligned transfers).
    unsigned address_alignment = 1;
    unsigned length_granularity = 1;
    // The Alignments register's address_bits [7:0] as the simulated IP reads it (64: a 64-bit
    // IP; any other value is shown as read, 6 included, for the driver's sense check).
    unsigned address_bits = 64;
    // IPs unlike the model within reason: the Control W1S alias (0x08) ignored, so Run reads
    // back 0 after a W1S; the Completed Descriptor Count (0x48) reading 0 for ever.
    bool control_w1s_ignored = false;
    bool completed_count_reads_zero = false;
    // Start and stop unlike the model (sim::XdmaConfig): Control reading 0, the W1C alias
    // ignored, Run that no write clears, a start lost this long after busy cleared, and every
    // descriptor's data moving this long after its fetch.
    bool control_reads_zero = false;
    bool control_w1c_ignored = false;
    bool run_clear_ignored = false;
    uint64_t start_refused_after_stop_us = 0;
    uint64_t late_engine_ms = 0;
    // The subsystem IDs a simulated instance gets when match gives "any" (default 10ee:0007,
    // the XDMA IP's default).
    uint16_t subsystem_vendor_id = 0x10ee;
    uint16_t subsystem_device_id = 0x0007;
    // Constant registers outside the peripherals (the GPIO inputs that carry a board ID).
    std::vector<RegisterValue> registers;
    // Memory in BARs (sim::BarMemoryBlock; PDT_SIM_BAR_MEMORY_DIR keeps it from run to run).
    std::vector<BarMemory> bar_memory;
    // The QDMA's capabilities as the simulated IP reports them (designs with a qdma section).
    QdmaSimulation qdma;
};

struct Design {
    std::string name;          // the key: --sim_design, --list_designs, JSON output, file names
    std::string display_name;  // as fpga_sio prints it in text (JSON "display_name"; default: name)
    const std::string& text_name() const { return display_name.empty() ? name : display_name; }
    std::string description;
    std::string source;  // "built-in <file>" or the path of the user's design file
    IdMatch match;
    std::optional<DmaBridge> dma_bridge;
    std::optional<Qdma> qdma;  // a design has a dma_bridge (XDMA) or a qdma, not both
    std::optional<CardFunction> card;  // one physical function of a multi-function card
    std::vector<Peripheral> peripherals;
    Simulation simulation;
    // The FPGA part the design's bitstreams are built for (JSON "fpga_part", e.g. "xc7a200t"),
    // when known: a part of bitstream::known_parts() (UG470 Table 1-1, UG570 Table 1-4), whose
    // IDCODE an image written to the design's flash must carry (quad_spi_flasher).
    std::string fpga_part;
    // A register holding the board version, printed as "Design <name> version 0x<v>:".
    std::optional<RegisterValue> version_register;  // value unused

    // The peripherals that a device of this revision has (revision gates applied).
    std::vector<const Peripheral*> peripherals_for_revision(uint8_t revision) const;
};

// USR_ACCESS build timestamp, as stamped by bitgen/write_bitstream: day[31:27] month[26:23]
// year-2000[22:17] hour[16:12] minute[11:6] second[5:0].
struct BuildTimestamp {
    unsigned day = 0, month = 0, year = 2000, hour = 0, minute = 0, second = 0;
    static BuildTimestamp decode(uint32_t value);
    uint32_t encode() const;
    std::string to_string() const;  // "24/02/2024 16:16:19"
    bool plausible() const;         // fields within calendar ranges
};

}  // namespace designs
