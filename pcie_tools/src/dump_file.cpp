#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/registers.hpp"
#include "pcie_tools/sections.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

namespace pcie {
namespace {

constexpr size_t kMaxConfig = 4096;

bool all_hex(std::string_view s) {
    if (s.empty())
        return false;
    for (char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            return false;
    return true;
}

// "BB:DD.F" or "DDDD:BB:DD.F" (4..6 digit domain) at the start of a line.
std::optional<PciAddress> device_line(const std::string& line) {
    const auto end = line.find_first_of(" \t");
    const std::string word = line.substr(0, end);
    const auto dot = word.find('.');
    if (dot == std::string::npos)
        return std::nullopt;
    const auto last_colon = word.rfind(':');
    if (last_colon == std::string::npos || last_colon > dot)
        return std::nullopt;
    std::string domain = "0000";
    std::string bus;
    const auto first_colon = word.find(':');
    if (first_colon == last_colon) {
        bus = word.substr(0, first_colon);
    } else {
        domain = word.substr(0, first_colon);
        bus = word.substr(first_colon + 1, last_colon - first_colon - 1);
        if (domain.size() < 4 || domain.size() > 6 || !all_hex(domain))
            return std::nullopt;
        if (domain.size() > 4 && domain.find_first_not_of('0') < domain.size() - 4)
            return std::nullopt;  // domains beyond 16 bits are outside PciAddress
        domain = domain.substr(domain.size() - 4);
    }
    const std::string dev = word.substr(last_colon + 1, dot - last_colon - 1);
    const std::string fn = word.substr(dot + 1);
    if (bus.size() != 2 || dev.size() != 2 || fn.size() != 1 || !all_hex(bus) || !all_hex(dev) || !all_hex(fn))
        return std::nullopt;
    auto parsed = PciAddress::parse(domain + ":" + bus + ":" + dev + "." + fn);
    if (!parsed)
        return std::nullopt;
    return *parsed;
}

unsigned hex_value(char c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

// The bytes of one device, as captured so far (0xff where none was), end one past the highest.
// Sized for a whole extended space once, so a byte line never reallocates.
struct Pending {
    PciAddress address;
    std::vector<uint8_t> bytes = std::vector<uint8_t>(kMaxConfig, 0xff);
    size_t end = 0;
};

}  // namespace

MemoryConfigSpace::MemoryConfigSpace(PciAddress address, std::vector<uint8_t> bytes)
    : m_address(address), m_bytes(std::move(bytes)) {}

Result<void> MemoryConfigSpace::read(uint32_t offset, void* data, uint32_t length) {
    if (length == 0 || offset > m_bytes.size() || length > m_bytes.size() - offset)
        return access_error("read config", offset, length, EIO,
                            "beyond the " + std::to_string(m_bytes.size()) + " bytes available");
    std::memcpy(data, m_bytes.data() + offset, length);
    return {};
}

Result<std::unique_ptr<DumpBackend>> DumpBackend::load(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        return pdt::errno_error("open lspci dump", path, "expected the output of lspci -xxxx");
    std::stringstream text;
    text << in.rdbuf();
    return parse(text.str(), path);
}

Result<std::unique_ptr<DumpBackend>> DumpBackend::parse(const std::string& text, const std::string& source) {
    auto bus = std::unique_ptr<DumpBackend>(new DumpBackend);
    bus->m_source = source;
    std::optional<Pending> current;
    auto finish = [&]() {
        if (!current)
            return;
        // A device line with no byte under it (plain `lspci` output) is no config space: skip it,
        // so such a file is "no device found" with the capture hint, not a space of 0 bytes.
        if (current->end == 0) {
            current.reset();
            return;
        }
        // Bytes in gaps read as 0xff (Pending's fill); the space ends at the last captured byte.
        current->bytes.resize(current->end);
        bus->m_spaces[current->address] =
            std::make_unique<MemoryConfigSpace>(current->address, std::move(current->bytes));
        current.reset();
    };
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty()) {
            finish();
            continue;
        }
        if (auto address = device_line(line)) {
            finish();
            current.emplace();
            current->address = *address;
            continue;
        }
        const auto colon = line.find(':');
        if (!current || colon == std::string::npos || colon < 2 || colon > 8 || !all_hex(line.substr(0, colon)))
            continue;  // decoded text (lspci -vvv) is ignored, as pciutils does
        size_t offset = std::stoul(line.substr(0, colon), nullptr, 16);
        // Whitespace-separated words, as operator>> splits them, without a stream per line.
        const std::string_view rest = std::string_view(line).substr(colon + 1);
        static constexpr const char* kSpace = " \t\v\f\r";
        for (size_t at = rest.find_first_not_of(kSpace); at != std::string_view::npos;
             at = rest.find_first_not_of(kSpace, at)) {
            const std::string_view byte = rest.substr(at, rest.find_first_of(kSpace, at) - at);
            at += byte.size();
            if (byte.size() != 2 || !all_hex(byte))
                return pdt::make_error("parse lspci dump", source + ":" + std::to_string(number), EINVAL,
                                       "bad byte \"" + std::string(byte) + "\"");
            if (offset >= kMaxConfig)
                return pdt::make_error("parse lspci dump", source + ":" + std::to_string(number), EINVAL,
                                       "offset beyond 4096 bytes of config space");
            current->bytes[offset] = static_cast<uint8_t>(hex_value(byte[0]) * 16 + hex_value(byte[1]));
            current->end = std::max(current->end, offset + 1);
            ++offset;
        }
    }
    finish();
    if (bus->m_spaces.empty())
        return pdt::make_error("parse lspci dump", source, ENODEV,
                               "no device found; capture with lspci -xxxx -s <bdf> as root");
    return bus;
}

Result<std::vector<PciAddress>> DumpBackend::devices() {
    return addresses_of(m_spaces);
}

Result<ConfigSpace*> DumpBackend::open(const PciAddress& address) {
    const auto it = m_spaces.find(address);
    if (it == m_spaces.end())
        return pdt::make_error("open config space", address.to_string(), ENODEV, "not in " + m_source);
    return static_cast<ConfigSpace*>(it->second.get());
}

SystemInfo DumpBackend::system_info(const PciAddress& address) {
    SystemInfo info;
    const auto it = m_spaces.find(address);
    if (it == m_spaces.end())
        return info;
    const auto ids = it->second->read32(PCI_VENDOR_ID);
    if (ids) {
        info.vendor_name = lookup_vendor(static_cast<uint16_t>(*ids));
        info.device_name = lookup_device(static_cast<uint16_t>(*ids), static_cast<uint16_t>(*ids >> 16));
    }
    return info;
}

std::string format_lspci_dump(const PciAddress& address, const std::vector<uint8_t>& bytes,
                              const std::string& description) {
    std::string out = address.to_string() + " " + description + "\n";
    char line[80];
    for (size_t row = 0; row < bytes.size(); row += 16) {
        int n = std::snprintf(line, sizeof line, "%02zx:", row);
        for (size_t i = row; i < row + 16 && i < bytes.size(); ++i)
            n += std::snprintf(line + n, sizeof line - n, " %02x", bytes[i]);
        out += line;
        out += '\n';
    }
    return out + "\n";
}

}  // namespace pcie
