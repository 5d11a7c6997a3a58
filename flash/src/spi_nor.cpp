// SPI NOR flash commands over the AXI Quad SPI core, configured from SFDP (JESD216).
#include "flash/spi_nor.hpp"

#include <algorithm>
#include <thread>

#include "base/format.hpp"

namespace flash {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kReadChunk = 4096;          // bytes per read transaction
constexpr size_t kSfdpFirstRead = 8 + 8 * 8; // the header and up to 8 parameter headers
constexpr uint64_t kThreeByteLimit = uint64_t{1} << 24;
constexpr uint64_t kBlock64K = 0x10000;

// The 4-byte-address form of a 3-byte opcode (the common SPI NOR 4-byte instruction set).
uint8_t four_byte_opcode(uint8_t op) {
    switch (op) {
    case 0x03: return 0x13;
    case 0x0B: return 0x0C;
    case 0x6B: return 0x6C;
    case 0xEB: return 0xEC;
    case 0x02: return 0x12;
    case 0x20: return 0x21;
    case 0x52: return 0x5C;
    case 0xD8: return 0xDC;
    default: return op;
    }
}

}  // namespace

const char* manufacturer_name(uint8_t id) {
    switch (id) {  // JEP106, bank 1
    case 0x01: return "Infineon (Spansion/Cypress)";
    case 0x20: return "Micron";
    case 0xC2: return "Macronix";
    case 0xEF: return "Winbond";
    case 0x9D: return "ISSI";
    case 0xC8: return "GigaDevice";
    default: return "unknown manufacturer";
    }
}

std::string Protection::describe() const {
    if (level == 0)
        return "none (BP=0)";
    return pdt::format("BP=%u %s: %s..%s", level, bottom ? "bottom" : "top", pdt::hex(begin).c_str(),
                       pdt::hex(end - 1).c_str());
}

Protection decode_protection(uint8_t manufacturer, uint8_t status, uint8_t configuration, uint64_t density) {
    Protection p;
    p.status = status;
    if (manufacturer == 0x20) {  // Micron MT25Q: BP3 bit 6, TB bit 5, BP2:0 bits 4:2
        p.level = ((status >> 2) & 0x7) | ((status >> 3) & 0x8);
        p.bottom = (status & 0x20) != 0;
    } else if (manufacturer == 0xC2) {  // Macronix: BP3:0 bits 5:2, T/B configuration bit 3
        p.level = (status >> 2) & 0xf;
        p.bottom = (configuration & 0x08) != 0;
    } else {
        p.level = (status >> 2) & 0x7;
    }
    if (p.level == 0)
        return p;
    const uint64_t bytes = p.level > 20 ? density : std::min(density, kBlock64K << (p.level - 1));
    p.begin = p.bottom ? 0 : density - bytes;
    p.end = p.bottom ? bytes : density;
    return p;
}

pdt::Error SpiNor::error(const std::string& operation, const std::string& hint, int code) const {
    return pdt::make_error(operation, "SPI flash at " + m_spi.location(), code, hint);
}

pdt::Result<SpiNor> SpiNor::open(AxiQuadSpi spi, FlashTimeouts timeouts) {
    SpiNor nor(std::move(spi), timeouts);
    const std::vector<uint8_t> id = PDT_TRY(nor.m_spi.transfer(std::vector<uint8_t>{opcode::READ_ID}, 3));
    nor.m_id = {id[0], id[1], id[2]};
    if (id[0] == 0xff || id[0] == 0x00)
        return nor.error("read JEDEC ID", pdt::format("manufacturer ID 0x%02x: no flash answers on slave select 0", id[0]),
                         ENODEV);
    // JESD216 6.1: READ SFDP, 3-byte address, 8 dummy clocks (one byte), in any addressing mode.
    auto sfdp_read = [&](size_t length) {
        return nor.m_spi.transfer(std::vector<uint8_t>{opcode::READ_SFDP, 0, 0, 0, 0}, length);
    };
    const std::vector<uint8_t> first = PDT_TRY(sfdp_read(kSfdpFirstRead));
    const size_t extent = PDT_TRY(sfdp_extent(first));
    const std::vector<uint8_t> all = PDT_TRY(sfdp_read(std::max(extent, first.size())));
    auto parsed = parse_sfdp(all);
    if (!parsed)
        return nor.error("read SFDP", parsed.error().message(), parsed.error().code);
    nor.m_sfdp = std::move(*parsed);
    PDT_CHECK(nor.choose_addressing());
    return nor;
}

// BFPT DWORD 1 address bytes and DWORD 16 (JESD216A 6.4.18): a flash over 16 MiB takes 4-byte
// addresses, by the dedicated 4-byte opcodes when it has them (no mode to leave behind), else
// by entering 4-byte mode.
pdt::Result<void> SpiNor::choose_addressing() {
    const SfdpInfo& s = m_sfdp;
    const bool need_4 = s.density_bytes > kThreeByteLimit || s.address_bytes == AddressBytes::Four;
    if (need_4) {
        m_address_bytes = 4;
        if (s.address_bytes == AddressBytes::Four || s.always_4byte) {
        } else if (s.four_byte_instructions || s.four_byte_table) {
            m_four_byte_opcodes = true;
        } else if (s.enter_4byte_b7 || s.enter_4byte_wren_b7) {
            if (s.enter_4byte_wren_b7)
                PDT_TRY(m_spi.transfer(std::vector<uint8_t>{opcode::WRITE_ENABLE}, 0));
            PDT_TRY(m_spi.transfer(std::vector<uint8_t>{opcode::ENTER_4BYTE}, 0));
        } else {
            return error("choose addressing",
                         pdt::format("%s bytes need 4-byte addresses and the BFPT gives no way to them (DWORD 16)",
                                     pdt::hex(s.density_bytes).c_str()),
                         ENOTSUP);
        }
    }
    // Quad mode (PG153 "Dual/Quad SPI Mode Transactions"): the 1-1-4 fast read of BFPT DWORD 3,
    // when the flash needs no Quad Enable bit (DWORD 15); a QE bit is non-volatile state this
    // tool does not write, so such a flash is read 1-1-1.
    m_read_opcode = opcode::READ;
    m_read_dummy_bytes = 0;
    if (m_spi.mode() == SpiMode::Quad && s.read_1_1_4 && s.quad_enable == QuadEnable::None) {
        m_read_opcode = s.read_1_1_4->opcode;
        m_read_dummy_bytes = (s.read_1_1_4->dummy_clocks + s.read_1_1_4->mode_clocks + 7u) / 8u;
    }
    if (m_four_byte_opcodes)
        m_read_opcode = four_byte_opcode(m_read_opcode);
    return {};
}

std::string SpiNor::addressing() const {
    if (m_address_bytes == 3)
        return "3-byte";
    if (m_four_byte_opcodes)
        return "4-byte opcodes";
    if (m_sfdp.address_bytes == AddressBytes::Four || m_sfdp.always_4byte)
        return "4-byte only";
    return "4-byte mode (0xB7)";
}

std::string SpiNor::read_command() const {
    if (m_read_dummy_bytes == 0)
        return pdt::format("0x%02x (1-1-1)", m_read_opcode);
    return pdt::format("0x%02x (1-1-4, %u dummy bytes)", m_read_opcode, m_read_dummy_bytes);
}

EraseType SpiNor::sector_erase() const {
    if (auto e = m_sfdp.erase_of_size(4096))
        return *e;
    return *std::min_element(m_sfdp.erase_types.begin(), m_sfdp.erase_types.end(),
                             [](const EraseType& a, const EraseType& b) { return a.size < b.size; });
}

std::vector<uint8_t> SpiNor::command(uint8_t op, uint64_t address) const {
    std::vector<uint8_t> bytes{m_four_byte_opcodes ? four_byte_opcode(op) : op};
    for (int shift = static_cast<int>(m_address_bytes - 1) * 8; shift >= 0; shift -= 8)
        bytes.push_back(static_cast<uint8_t>(address >> shift));
    return bytes;
}

pdt::Result<std::vector<uint8_t>> SpiNor::read(uint64_t address, size_t length) {
    if (address > size() || length > size() - address)
        return error("read", pdt::format("%s + %zu bytes is beyond the flash's %s bytes", pdt::hex(address).c_str(),
                                         length, pdt::hex(size()).c_str()),
                     ERANGE);
    std::vector<uint8_t> data;
    data.reserve(length);
    for (size_t done = 0; done < length;) {
        const size_t n = std::min(kReadChunk, length - done);
        std::vector<uint8_t> cmd{m_read_opcode};
        for (int shift = static_cast<int>(m_address_bytes - 1) * 8; shift >= 0; shift -= 8)
            cmd.push_back(static_cast<uint8_t>((address + done) >> shift));
        cmd.resize(cmd.size() + m_read_dummy_bytes, 0);
        const std::vector<uint8_t> part = PDT_TRY(m_spi.transfer(cmd, n));
        data.insert(data.end(), part.begin(), part.end());
        done += n;
    }
    return data;
}

pdt::Result<uint8_t> SpiNor::read_status() {
    return PDT_TRY(m_spi.transfer(std::vector<uint8_t>{opcode::READ_STATUS}, 1))[0];
}

pdt::Result<Protection> SpiNor::protection() {
    const uint8_t status = PDT_TRY(read_status());
    uint8_t configuration = 0;
    if (m_id.manufacturer == 0xC2)
        configuration = PDT_TRY(m_spi.transfer(std::vector<uint8_t>{opcode::READ_CONFIGURATION}, 1))[0];
    return decode_protection(m_id.manufacturer, status, configuration, size());
}

// Legacy status polling (BFPT DWORD 14 bit 2 of JESD216A: status register 1 bit 0, WIP).
pdt::Result<void> SpiNor::wait_ready(std::chrono::milliseconds timeout, const std::string& what) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
        const uint8_t status = PDT_TRY(read_status());
        if (!(status & kStatusWip))
            return {};
        if (Clock::now() > deadline)
            return error(what, pdt::format("busy (status register %s, WIP set) %lld ms after the command: stuck busy",
                                           pdt::hex(status).c_str(), static_cast<long long>(timeout.count())),
                         ETIMEDOUT);
        if (m_timeouts.status_poll_interval.count() > 0)
            std::this_thread::sleep_for(m_timeouts.status_poll_interval);
    }
}

pdt::Result<void> SpiNor::write_enable() {
    PDT_TRY(m_spi.transfer(std::vector<uint8_t>{opcode::WRITE_ENABLE}, 0));
    const uint8_t status = PDT_TRY(read_status());
    if (!(status & kStatusWel))
        return error("write enable", "WEL still clear after 0x06 (status register " + pdt::hex(status) + ")");
    return {};
}

pdt::Result<void> SpiNor::erase(uint64_t address, const EraseType& type) {
    if (address % type.size != 0 || address >= size())
        return error("erase", pdt::hex(address) + " is not a " + std::to_string(type.size) + "-byte block of the flash",
                     EINVAL);
    PDT_CHECK(wait_ready(m_timeouts.sector_erase, "erase " + pdt::hex(address)));
    PDT_CHECK(write_enable());
    PDT_TRY(m_spi.transfer(command(type.opcode, address), 0));
    return wait_ready(m_timeouts.sector_erase, "erase " + pdt::hex(address));
}

pdt::Result<void> SpiNor::program_page(uint64_t address, std::span<const uint8_t> data) {
    const uint64_t page = m_sfdp.page_size;
    if (data.empty() || address / page != (address + data.size() - 1) / page || address + data.size() > size())
        return error("page program", pdt::format("%zu bytes at %s cross a %llu-byte page", data.size(),
                                                 pdt::hex(address).c_str(), static_cast<unsigned long long>(page)),
                     EINVAL);
    PDT_CHECK(wait_ready(m_timeouts.page_program, "page program " + pdt::hex(address)));
    PDT_CHECK(write_enable());
    std::vector<uint8_t> cmd = command(opcode::PAGE_PROGRAM, address);
    cmd.insert(cmd.end(), data.begin(), data.end());
    PDT_TRY(m_spi.transfer(cmd, 0));
    return wait_ready(m_timeouts.page_program, "page program " + pdt::hex(address));
}

}  // namespace flash
