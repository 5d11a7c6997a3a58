// The simulated SPI NOR flash: the common command set of the makers' datasheets (Micron MT25Q,
// Macronix MX25L-G): 0x9F READ ID, 0x5A READ SFDP, 0x05 READ STATUS, 0x15 READ CONFIGURATION
// (Macronix), 0x70 READ FLAG STATUS (Micron), 0x06/0x04 WRITE ENABLE/DISABLE, 0x01 WRITE
// STATUS, 0x03/0x13 READ, 0x0B/0x0C FAST READ, 0x6B/0x6C QUAD OUTPUT FAST READ, 0x02/0x12 PAGE
// PROGRAM, 0x20/0x21, 0x52/0x5C, 0xD8/0xDC ERASE, 0xB7/0xE9 ENTER/EXIT 4-BYTE ADDRESS MODE.
// Program and erase take effect when the slave select is deasserted, as on the parts.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "sim/quad_spi_model.hpp"

namespace sim {
namespace {

constexpr uint8_t kWip = 0x01, kWel = 0x02;
constexpr uint64_t kSector = 4096, kPage = 256, kBlock64K = 0x10000;
constexpr unsigned kBusyPolls = 2;  // status reads that still see WIP after a program or erase

bool four_byte_opcode(uint8_t op) {
    return op == 0x13 || op == 0x0C || op == 0x6C || op == 0x12 || op == 0x21 || op == 0x5C || op == 0xDC;
}
bool erase_opcode(uint8_t op) { return op == 0x20 || op == 0x21 || op == 0x52 || op == 0x5C || op == 0xD8 || op == 0xDC; }
uint64_t erase_size(uint8_t op) {
    return (op == 0x20 || op == 0x21) ? kSector : (op == 0x52 || op == 0x5C) ? 0x8000 : kBlock64K;
}
unsigned dummy_bytes(uint8_t op) { return (op == 0x0B || op == 0x0C || op == 0x6B || op == 0x6C || op == 0x5A) ? 1 : 0; }

}  // namespace

SpiNorModel::SpiNorModel(FlashShape shape, FlashFaultPlan faults, std::filesystem::path backing,
                         std::filesystem::path log)
    : m_shape(std::move(shape)), m_backing(std::move(backing)), m_log(std::move(log)) {
    if (!m_backing.empty())
        load_backing();
    inject(faults);
}

SpiNorModel::~SpiNorModel() {
    if (m_fd >= 0)
        ::close(m_fd);
}

// The backing file holds the bytes inverted, so its holes read erased; only its data regions
// (SEEK_DATA) are loaded.
void SpiNorModel::load_backing() {
    m_fd = ::open(m_backing.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0)
        return;
    if (::ftruncate(m_fd, static_cast<off_t>(m_shape.density)) != 0)
        return;
    off_t at = 0;
    const off_t end = static_cast<off_t>(m_shape.density);
    while (at < end) {
        const off_t data = ::lseek(m_fd, at, SEEK_DATA);
        if (data < 0)
            break;
        off_t hole = ::lseek(m_fd, data, SEEK_HOLE);
        if (hole < 0)
            hole = end;
        for (off_t sector = data / static_cast<off_t>(kSector) * static_cast<off_t>(kSector); sector < hole;
             sector += static_cast<off_t>(kSector)) {
            std::vector<uint8_t> bytes(kSector, 0);
            if (::pread(m_fd, bytes.data(), kSector, sector) != static_cast<ssize_t>(kSector))
                break;
            if (std::any_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0; })) {
                for (uint8_t& b : bytes)
                    b = static_cast<uint8_t>(~b);
                m_sectors[static_cast<uint64_t>(sector) / kSector] = std::move(bytes);
            }
        }
        at = hole;
    }
}

void SpiNorModel::inject(const FlashFaultPlan& faults) {
    m_faults = faults;
    if (faults.protect)
        m_status |= 0x04;  // BP0: level 1, the top 64 KiB block (both layouts)
}

bool SpiNorModel::protected_at(uint64_t address, uint64_t length) const {
    unsigned level = m_shape.macronix_bp ? (m_status >> 2) & 0xf : ((m_status >> 2) & 0x7) | ((m_status >> 3) & 0x8);
    if (level == 0)
        return false;
    const bool bottom = !m_shape.macronix_bp && (m_status & 0x20);
    const uint64_t bytes = level > 20 ? m_shape.density : std::min(m_shape.density, kBlock64K << (level - 1));
    const uint64_t begin = bottom ? 0 : m_shape.density - bytes, end = bottom ? bytes : m_shape.density;
    return address < end && begin < address + length;
}

uint8_t SpiNorModel::read_byte(uint64_t address) const {
    address %= m_shape.density;
    auto it = m_sectors.find(address / kSector);
    return it == m_sectors.end() ? 0xff : it->second[address % kSector];
}

void SpiNorModel::write_byte(uint64_t address, uint8_t value) {
    address %= m_shape.density;
    auto [it, added] = m_sectors.try_emplace(address / kSector);
    if (added)
        it->second.assign(kSector, 0xff);
    it->second[address % kSector] = value;
    if (m_fd >= 0) {
        const uint8_t stored = static_cast<uint8_t>(~value);
        if (::pwrite(m_fd, &stored, 1, static_cast<off_t>(address)) != 1)
            std::perror("simulated flash backing");
    }
}

std::vector<uint8_t> SpiNorModel::contents(uint64_t address, size_t length) const {
    std::vector<uint8_t> bytes(length);
    for (size_t i = 0; i < length; ++i)
        bytes[i] = read_byte(address + i);
    return bytes;
}

void SpiNorModel::store(uint64_t address, const std::vector<uint8_t>& bytes) {
    for (size_t i = 0; i < bytes.size(); ++i)
        write_byte(address + i, bytes[i]);
}

void SpiNorModel::log(const std::string& line) const {
    if (m_log.empty())
        return;
    std::ofstream out(m_log, std::ios::app);
    out << line << "\n";
}

unsigned SpiNorModel::address_bytes(uint8_t op) const { return four_byte_opcode(op) || m_four_byte_mode ? 4 : 3; }

bool SpiNorModel::is_read(uint8_t op) const {
    return op == 0x03 || op == 0x13 || op == 0x0B || op == 0x0C || op == 0x6B || op == 0x6C;
}

bool SpiNorModel::takes_address(uint8_t op) const {
    return is_read(op) || op == 0x02 || op == 0x12 || op == 0x5A || erase_opcode(op);
}

void SpiNorModel::select() {
    m_selected = true;
    m_command.clear();
    m_program_buffer.clear();
    m_data_index = 0;
}

// The byte the flash drives during the data phase of the command in m_command.
uint8_t SpiNorModel::data_out() {
    const uint8_t op = m_command[0];
    const size_t i = m_data_index++;
    switch (op) {
    case 0x9F: return i < 3 ? m_shape.jedec_id[i] : 0x00;
    case 0x05: {
        if (m_faults.stuck_busy)
            return m_status | kWip;
        if (m_busy_polls > 0) {
            --m_busy_polls;
            return m_status | kWip;
        }
        return m_status;
    }
    case 0x15: return 0x00;  // Macronix configuration register: T/B clear (top)
    case 0x70: return (m_faults.stuck_busy || m_busy_polls) ? 0x00 : 0x80;
    case 0x5A: {
        const uint64_t at = (m_address & 0xffffff) + i;
        return at < m_shape.sfdp.size() ? m_shape.sfdp[at] : 0xff;
    }
    default: break;
    }
    if (!is_read(op))
        return 0xff;
    uint8_t byte = read_byte(m_address + i);
    if (m_faults.read_bit_error && i == 0 && m_reads % 2 == 0)
        byte ^= 0x01;
    if ((op == 0x6B || op == 0x6C) && m_shape.quad_enable_sr1_bit6 && !(m_status & 0x40))
        byte = 0xff;  // IO2/IO3 are WP#/HOLD# while QE is clear: no quad data
    return byte;
}

uint8_t SpiNorModel::exchange(uint8_t mosi) {
    if (!m_selected)
        return 0xff;
    if (m_command.empty()) {
        m_command.push_back(mosi);
        if (is_read(mosi))
            ++m_reads;
        return 0xff;
    }
    const uint8_t op = m_command[0];
    const size_t header = 1 + (takes_address(op) ? (op == 0x5A ? 3 : address_bytes(op)) : 0) + dummy_bytes(op);
    if (m_command.size() < header) {
        m_command.push_back(mosi);
        if (takes_address(op) && m_command.size() <= 1 + (op == 0x5A ? 3u : address_bytes(op)))
            m_address = m_address << 8 | mosi;
        if (m_command.size() == 2)
            m_address = mosi;
        return 0xff;
    }
    if (op == 0x02 || op == 0x12) {
        m_program_buffer.push_back(mosi);
        return 0xff;
    }
    if (op == 0x01) {
        m_program_buffer.push_back(mosi);
        return 0xff;
    }
    return data_out();
}

void SpiNorModel::deselect() {
    if (m_selected && !m_command.empty())
        commit();
    m_selected = false;
}

void SpiNorModel::commit() {
    const uint8_t op = m_command[0];
    const bool busy = m_faults.stuck_busy || m_busy_polls > 0;
    switch (op) {
    case 0x06: if (!busy) m_status |= kWel; return;
    case 0x04: if (!busy) m_status &= static_cast<uint8_t>(~kWel); return;
    case 0xB7: m_four_byte_mode = true; return;
    case 0xE9: m_four_byte_mode = false; return;
    default: break;
    }
    const bool write_command = op == 0x01 || op == 0x02 || op == 0x12 || erase_opcode(op);
    if (!write_command || busy || !(m_status & kWel))
        return;  // a write command without WEL, or while busy, is ignored
    m_status &= static_cast<uint8_t>(~kWel);
    if (op == 0x01) {  // WRITE STATUS: BP, TB/QE and SRWD bits (7:2)
        if (!m_program_buffer.empty())
            m_status = static_cast<uint8_t>((m_status & 0x03) | (m_program_buffer[0] & 0xfc));
        m_busy_polls = kBusyPolls;
        return;
    }
    const uint64_t header = 1 + address_bytes(op);
    if (m_command.size() < header)
        return;  // address incomplete: the part ignores the command
    const uint64_t address = m_address % m_shape.density;
    if (erase_opcode(op)) {
        const uint64_t size = erase_size(op), base = address / size * size;
        ++m_erases;
        log("erase " + std::to_string(size) + " at " + std::to_string(base));
        if (!protected_at(base, size))
            for (uint64_t a = base; a < base + size; a += kSector) {
                store(a, std::vector<uint8_t>(kSector, 0xff));
            }
        m_busy_polls = kBusyPolls;
        return;
    }
    // PAGE PROGRAM: the bytes wrap within the page; a program only clears bits.
    ++m_programs;
    log("program " + std::to_string(m_program_buffer.size()) + " at " + std::to_string(address));
    m_busy_polls = kBusyPolls;
    if (m_faults.program_fails_after && m_programs > *m_faults.program_fails_after)
        return;  // the program silently does nothing
    const uint64_t page = address / kPage * kPage;
    if (protected_at(page, kPage))
        return;
    for (size_t i = 0; i < m_program_buffer.size(); ++i) {
        const uint64_t at = page + (address % kPage + i) % kPage;
        write_byte(at, static_cast<uint8_t>(read_byte(at) & m_program_buffer[i]));
    }
}

}  // namespace sim
