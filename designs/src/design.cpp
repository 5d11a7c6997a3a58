#include "designs/design.hpp"

#include <cstdio>

namespace designs {

const char* to_string(DmaMode mode) { return mode == DmaMode::Stream ? "stream" : "memory_mapped"; }

const char* to_string(StreamFunction function) {
    switch (function) {
    case StreamFunction::Loopback: return "loopback";
    case StreamFunction::Crc64: return "crc64";
    case StreamFunction::FixedData: return "fixed_data";
    }
    return "loopback";
}

const char* json_name(PeripheralType type) {
    switch (type) {
    case PeripheralType::QuadSpi: return "quad_spi";
    case PeripheralType::Xadc: return "xadc";
    case PeripheralType::Sysmon: return "sysmon";
    case PeripheralType::Iic: return "iic";
    case PeripheralType::BitBangedI2cGpio: return "bit_banged_i2c_gpio";
    case PeripheralType::AxiStreamSwitch: return "axi_stream_switch";
    case PeripheralType::UserAccessTimestamp: return "user_access_timestamp";
    case PeripheralType::UltrascaleDna: return "ultrascale_dna";
    }
    return "?";
}

const char* display_name(PeripheralType type) {
    switch (type) {
    case PeripheralType::QuadSpi: return "Quad SPI";
    case PeripheralType::Xadc: return "XADC";
    case PeripheralType::Sysmon: return "SYSMON";
    case PeripheralType::Iic: return "IIC";
    case PeripheralType::BitBangedI2cGpio: return "bit-banged I2C GPIO";
    case PeripheralType::AxiStreamSwitch: return "AXI4-Stream Switch";
    case PeripheralType::UserAccessTimestamp: return "User access build timestamp";
    case PeripheralType::UltrascaleDna: return "UltraScale DNA";
    }
    return "?";
}

uint64_t register_frame_size(PeripheralType type, unsigned master_ports) {
    switch (type) {
    case PeripheralType::QuadSpi: return 0x80;         // DGIER 0x1C .. Rx FIFO occupancy 0x78 (PG153)
    case PeripheralType::Xadc: return 0x400;           // DRP status/control mirrored at 0x200..0x3FF (PG091)
    case PeripheralType::Sysmon: return 0x400;         // same layout (PG185)
    case PeripheralType::Iic: return 0x200;            // GIE..GPO at 0x1C..0x124 (PG090)
    case PeripheralType::BitBangedI2cGpio: return 0x200;  // GPIO_DATA..IP IER 0x128 (PG144)
    case PeripheralType::AxiStreamSwitch: return 0x40 + 4ull * master_ports;  // MI_MUX after 0x40 (PG085)
    case PeripheralType::UserAccessTimestamp: return 4;
    case PeripheralType::UltrascaleDna: return 12;
    }
    return 4;
}

bool IdMatch::matches(const vfio::DeviceIdentity& identity) const {
    return identity.vendor_id == vendor_id && (!device_id || identity.device_id == *device_id) &&
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
