#include "designs/design.hpp"

#include <algorithm>
#include <cstdio>

#include "base/spellings.hpp"

namespace designs {

const char* to_string(DmaMode mode) { return mode == DmaMode::Stream ? "stream" : "memory_mapped"; }

namespace {

constexpr pdt::Spelling<StreamFunction> kStreamFunctionNames[] = {
    {StreamFunction::Loopback, "loopback"}, {StreamFunction::Crc64, "crc64"}, {StreamFunction::FixedData, "fixed_data"}};

// Each peripheral type's JSON spelling and its name in text, a row a type.
struct PeripheralNames {
    PeripheralType type;
    const char* json;
    const char* display;
};
constexpr PeripheralNames kPeripheralNames[] = {
    {PeripheralType::QuadSpi, "quad_spi", "Quad SPI"},
    {PeripheralType::Xadc, "xadc", "XADC"},
    {PeripheralType::Sysmon, "sysmon", "SYSMON"},
    {PeripheralType::Iic, "iic", "IIC"},
    {PeripheralType::BitBangedI2cGpio, "bit_banged_i2c_gpio", "bit-banged I2C GPIO"},
    {PeripheralType::AxiStreamSwitch, "axi_stream_switch", "AXI4-Stream Switch"},
    {PeripheralType::UserAccessTimestamp, "user_access_timestamp", "User access build timestamp"},
    {PeripheralType::UltrascaleDna, "ultrascale_dna", "UltraScale DNA"},
    {PeripheralType::Cms, "cms", "CMS"},
    {PeripheralType::Cmac, "cmac", "CMAC"},
    {PeripheralType::AxiDma, "axi_dma", "AXI DMA"},
    {PeripheralType::DdrResetGpio, "ddr_reset_gpio", "DDR reset GPIO"},
    {PeripheralType::M2LedGpio, "m2_led_gpio", "M.2 LED GPIO"},
};

constexpr pdt::Spelling<AxiDmaStreams> kAxiDmaStreamsNames[] = {
    {AxiDmaStreams::FixedDataAndSink, "fixed_data_and_sink"}, {AxiDmaStreams::Loopback, "loopback"}};

constexpr pdt::Spelling<CmacOperation> kCmacOperationNames[] = {
    {CmacOperation::Duplex, "duplex"}, {CmacOperation::SimplexTx, "simplex_tx"}, {CmacOperation::SimplexRx, "simplex_rx"}};

const PeripheralNames* names_of(PeripheralType type) {
    for (const PeripheralNames& names : kPeripheralNames)
        if (names.type == type)
            return &names;
    return nullptr;
}

}  // namespace

const char* to_string(StreamFunction function) { return pdt::spelling(function, kStreamFunctionNames); }

const char* json_name(PeripheralType type) {
    const PeripheralNames* names = names_of(type);
    return names ? names->json : "?";
}

const char* display_name(PeripheralType type) {
    const PeripheralNames* names = names_of(type);
    return names ? names->display : "?";
}

const char* to_string(CmacOperation operation) { return pdt::spelling(operation, kCmacOperationNames); }

const char* to_string(AxiDmaStreams streams) { return pdt::spelling(streams, kAxiDmaStreamsNames); }

const char* to_string(SysmonPrimitive primitive) {
    return primitive == SysmonPrimitive::Sysmone1 ? "SYSMONE1" : "SYSMONE4";
}

uint64_t register_frame_size(PeripheralType type, unsigned master_ports, unsigned sysmon_slaves) {
    switch (type) {
    case PeripheralType::QuadSpi: return 0x80;         // DGIER 0x1C .. Rx FIFO occupancy 0x78 (PG153)
    case PeripheralType::Xadc: return 0x400;           // DRP 00h..7Fh mirrored at 0x200..0x3FF (PG091)
    // PG185: DRP 00h..FFh mirrored at 0x400..0x7FF; slave SYSMON n (sysmon_slave_sel n) at n * 0x800.
    case PeripheralType::Sysmon: return 0x800ull * (1 + sysmon_slaves);
    case PeripheralType::Iic: return 0x200;            // GIE..GPO at 0x1C..0x124 (PG090)
    case PeripheralType::BitBangedI2cGpio:  // GPIO_DATA..IP IER 0x128 (PG144)
    case PeripheralType::DdrResetGpio:
    case PeripheralType::M2LedGpio: return 0x200;
    case PeripheralType::AxiStreamSwitch: return 0x40 + 4ull * master_ports;  // MI_MUX after 0x40 (PG085)
    case PeripheralType::UserAccessTimestamp: return 4;
    case PeripheralType::UltrascaleDna: return 12;
    case PeripheralType::Cms: return 0x40000;  // PG348 Addressing: 256 KiB (0x4_0000) of address space
    case PeripheralType::Cmac: return 0x2000;  // PG203 Register Space: up to RSFEC_CONFIG_ENABLE 0x107C
    case PeripheralType::AxiDma: return 0x2000;  // PG021 Register Space up to S2MM_LENGTH 0x58, in fpga_sio's 0x2000 frame
    }
    return 4;
}

bool IdMatch::matches(const vfio::DeviceIdentity& identity) const {
    const bool device_matches = !device_id || identity.device_id == *device_id ||
                                std::find(more_device_ids.begin(), more_device_ids.end(), identity.device_id) !=
                                    more_device_ids.end();
    return identity.vendor_id == vendor_id && device_matches &&
           (!subsystem_vendor_id || identity.subsystem_vendor_id == *subsystem_vendor_id) &&
           (!subsystem_device_id || identity.subsystem_device_id == *subsystem_device_id) &&
           identity.revision >= min_revision && identity.revision <= max_revision;
}

MemoryWindow DmaBridge::memory_for_revision(uint8_t revision) const {
    for (const MemoryWindow& window : memory_by_revision)
        if (revision >= window.min_revision && revision <= window.max_revision)
            return window;
    return MemoryWindow{0, 0xff, memory_base, memory_size};
}

std::vector<const Peripheral*> Design::peripherals_for_revision(uint8_t revision) const {
    std::vector<const Peripheral*> present;
    for (const Peripheral& peripheral : peripherals)
        if (revision >= peripheral.min_revision)
            present.push_back(&peripheral);
    return present;
}

BuildTimestamp BuildTimestamp::decode(uint32_t value) {
    BuildTimestamp t;
    t.day = (value >> 27) & 0x1f;
    t.month = (value >> 23) & 0xf;
    t.year = 2000 + ((value >> 17) & 0x3f);
    t.hour = (value >> 12) & 0x1f;
    t.minute = (value >> 6) & 0x3f;
    t.second = value & 0x3f;
    return t;
}

uint32_t BuildTimestamp::encode() const {
    return ((day & 0x1fu) << 27) | ((month & 0xfu) << 23) | (((year - 2000) & 0x3fu) << 17) | ((hour & 0x1fu) << 12) |
           ((minute & 0x3fu) << 6) | (second & 0x3fu);
}

std::string BuildTimestamp::to_string() const {
    char text[32];
    std::snprintf(text, sizeof text, "%02u/%02u/%04u %02u:%02u:%02u", day, month, year, hour, minute, second);
    return text;
}

bool BuildTimestamp::plausible() const {
    return day >= 1 && day <= 31 && month >= 1 && month <= 12 && hour <= 23 && minute <= 59 && second <= 59;
}

}  // namespace designs
