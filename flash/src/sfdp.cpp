// JESD216 SFDP parsing. Section numbers are those of JESD216 (rev A/B numbering where the
// original had no such field).
#include "flash/sfdp.hpp"

#include <algorithm>

#include "base/format.hpp"

namespace flash {
namespace {

constexpr size_t kHeaderBytes = 8;           // 6.2: SFDP header, 2 DWORDs
constexpr size_t kParameterHeaderBytes = 8;  // 6.3: parameter header, 2 DWORDs
constexpr unsigned kBfptMinimumDwords = 9;   // JESD216 (original) BFPT: 9 DWORDs

uint32_t dword_at(std::span<const uint8_t> bytes, size_t offset) {
    return static_cast<uint32_t>(bytes[offset]) | static_cast<uint32_t>(bytes[offset + 1]) << 8 |
           static_cast<uint32_t>(bytes[offset + 2]) << 16 | static_cast<uint32_t>(bytes[offset + 3]) << 24;
}

uint32_t bits(uint32_t value, unsigned high, unsigned low) {
    return (value >> low) & ((1u << (high - low + 1)) - 1);
}

pdt::Error sfdp_error(const std::string& object, const std::string& hint, int code = EINVAL) {
    return pdt::make_error("parse SFDP", object, code, hint);
}

pdt::Result<void> check_signature(std::span<const uint8_t> bytes) {
    if (bytes.size() < kHeaderBytes)
        return sfdp_error("header", pdt::format("%zu bytes, the SFDP header is 8", bytes.size()));
    const uint32_t signature = dword_at(bytes, 0);
    if (signature != kSfdpSignature)
        return sfdp_error("header", "no SFDP: the signature reads " + pdt::hex(signature) +
                                        ", not 'SFDP' (0x50444653): the flash gives no parameters to program it by",
                          ENODEV);
    return {};
}

// 6.3.2: the parameter headers follow the SFDP header; byte 6 of the header is NPH, their
// count minus one.
std::vector<ParameterHeader> parameter_headers(std::span<const uint8_t> bytes) {
    std::vector<ParameterHeader> headers;
    const size_t count = static_cast<size_t>(bytes[6]) + 1;
    for (size_t i = 0; i < count; ++i) {
        const size_t at = kHeaderBytes + i * kParameterHeaderBytes;
        if (at + kParameterHeaderBytes > bytes.size())
            break;
        ParameterHeader h;
        h.id = static_cast<uint16_t>(bytes[at + 7] << 8 | bytes[at]);
        h.minor = bytes[at + 1];
        h.major = bytes[at + 2];
        h.length_dwords = bytes[at + 3];
        h.pointer = dword_at(bytes, at + 4) & 0xffffff;
        headers.push_back(h);
    }
    return headers;
}

// The table's DWORDs, 1-based as JESD216 numbers them (index 0 unused).
pdt::Result<std::vector<uint32_t>> table_dwords(std::span<const uint8_t> bytes, const ParameterHeader& h,
                                                const std::string& name) {
    const uint64_t end = uint64_t{h.pointer} + uint64_t{h.length_dwords} * 4;
    if (end > bytes.size())
        return sfdp_error(name, pdt::format("the table at %s, %u DWORDs, ends past the %zu bytes of SFDP read",
                                            pdt::hex(h.pointer).c_str(), h.length_dwords, bytes.size()));
    std::vector<uint32_t> dwords(h.length_dwords + 1u, 0);
    for (unsigned i = 1; i <= h.length_dwords; ++i)
        dwords[i] = dword_at(bytes, h.pointer + (i - 1) * 4);
    return dwords;
}

// BFPT DWORD 2: bit 31 clear, bits 30:0 are the density in bits minus one; set, 2^N bits.
pdt::Result<uint64_t> density_bytes(uint32_t dword2) {
    uint64_t bits_count = 0;
    if (dword2 & 0x80000000u) {
        const uint32_t n = dword2 & 0x7fffffffu;
        if (n < 3 || n > 43)
            return sfdp_error("BFPT DWORD 2", "density 2^" + std::to_string(n) + " bits is not a flash size");
        bits_count = uint64_t{1} << n;
    } else {
        bits_count = uint64_t{dword2} + 1;
    }
    if (bits_count % 8 != 0 || bits_count / 8 < 256)
        return sfdp_error("BFPT DWORD 2", "density " + std::to_string(bits_count) + " bits is not a flash size");
    return bits_count / 8;
}

pdt::Result<void> parse_bfpt(const std::vector<uint32_t>& dw, SfdpInfo& info) {
    const size_t n = dw.size() - 1;
    // DWORD 1: bits 1:0 4 KiB erase (01 = supported), 15:8 its opcode, 18:17 address bytes,
    // 22 1-1-4 fast read supported.
    if (bits(dw[1], 1, 0) == 1)
        info.erase_4k_opcode = static_cast<uint8_t>(bits(dw[1], 15, 8));
    switch (bits(dw[1], 18, 17)) {
    case 0: info.address_bytes = AddressBytes::Three; break;
    case 1: info.address_bytes = AddressBytes::ThreeOrFour; break;
    case 2: info.address_bytes = AddressBytes::Four; break;
    default: return sfdp_error("BFPT DWORD 1", "address bytes field 11b is reserved");
    }
    info.density_bytes = PDT_TRY(density_bytes(dw[2]));
    // DWORD 3 bits 31:16: the 1-1-4 fast read's wait states (20:16), mode clocks (23:21), opcode.
    if (dw[1] & (1u << 22))
        info.read_1_1_4 = FastRead{static_cast<uint8_t>(bits(dw[3], 31, 24)), static_cast<uint8_t>(bits(dw[3], 20, 16)),
                                   static_cast<uint8_t>(bits(dw[3], 23, 21))};
    // DWORD 8 and 9: erase types 1..4, each size exponent (0 = absent) and opcode.
    for (unsigned d = 8; d <= 9; ++d)
        for (unsigned half = 0; half < 2; ++half) {
            const uint32_t exponent = bits(dw[d], half * 16 + 7, half * 16);
            if (exponent == 0)
                continue;
            if (exponent > 31)
                return sfdp_error("BFPT DWORD " + std::to_string(d), "erase size 2^" + std::to_string(exponent));
            info.erase_types.push_back({1u << exponent, static_cast<uint8_t>(bits(dw[d], half * 16 + 15, half * 16 + 8))});
        }
    if (info.erase_types.empty())
        return sfdp_error("BFPT DWORD 8", "no erase type");
    // DWORD 11 bits 7:4: page size 2^N bytes (JESD216A and later).
    if (n >= 11)
        info.page_size = 1u << bits(dw[11], 7, 4);
    if (n >= 14)
        info.flag_status_polling = (dw[14] & (1u << 3)) != 0;
    if (n >= 15)
        info.quad_enable = static_cast<QuadEnable>(bits(dw[15], 22, 20));
    if (n >= 16) {
        info.enter_4byte_b7 = (dw[16] & (1u << 24)) != 0;
        info.enter_4byte_wren_b7 = (dw[16] & (1u << 25)) != 0;
        info.four_byte_instructions = (dw[16] & (1u << 29)) != 0;
        info.always_4byte = (dw[16] & (1u << 30)) != 0;
    }
    return {};
}

void parse_four_byte_table(const std::vector<uint32_t>& dw, SfdpInfo& info) {
    if (dw.size() < 3)
        return;
    info.four_byte_table = true;
    info.four_byte_read_13 = (dw[1] & 1u) != 0;
    info.four_byte_program_12 = (dw[1] & (1u << 6)) != 0;
    for (unsigned t = 0; t < 4; ++t)
        if (dw[1] & (1u << (9 + t)))
            info.four_byte_erase[t] = static_cast<uint8_t>(bits(dw[2], t * 8 + 7, t * 8));
}

}  // namespace

const char* to_string(AddressBytes bytes) {
    switch (bytes) {
    case AddressBytes::Three: return "3";
    case AddressBytes::ThreeOrFour: return "3 or 4";
    case AddressBytes::Four: return "4";
    }
    return "?";
}

std::string describe(QuadEnable qe) {
    switch (qe) {
    case QuadEnable::None: return "none (no QE bit)";
    case QuadEnable::Sr1Bit6: return "QE is status register 1 bit 6";
    case QuadEnable::Sr2Bit7: return "QE is status register 2 bit 7";
    case QuadEnable::Reserved: return "reserved (111b)";
    default: return "QE is status register 2 bit 1";
    }
}

std::optional<EraseType> SfdpInfo::erase_of_size(uint32_t size) const {
    for (const EraseType& e : erase_types)
        if (e.size == size)
            return e;
    return std::nullopt;
}

pdt::Result<size_t> sfdp_extent(std::span<const uint8_t> first) {
    PDT_CHECK(check_signature(first));
    size_t extent = kHeaderBytes + (static_cast<size_t>(first[6]) + 1) * kParameterHeaderBytes;
    for (const ParameterHeader& h : parameter_headers(first))
        extent = std::max<size_t>(extent, h.pointer + size_t{h.length_dwords} * 4);
    return std::min(extent, kSfdpMaxBytes);
}

pdt::Result<SfdpInfo> parse_sfdp(std::span<const uint8_t> bytes) {
    PDT_CHECK(check_signature(bytes));
    SfdpInfo info;
    info.minor = bytes[4];
    info.major = bytes[5];
    info.headers = parameter_headers(bytes);
    // 6.3.1: the first parameter header is the BFPT's (JESD216 requires it); take the newest
    // BFPT revision given.
    const ParameterHeader* bfpt = nullptr;
    const ParameterHeader* four_byte = nullptr;
    for (const ParameterHeader& h : info.headers) {
        if (h.id == kBfptId && (!bfpt || h.major > bfpt->major || (h.major == bfpt->major && h.minor > bfpt->minor)))
            bfpt = &h;
        if (h.id == kFourByteAddressTableId)
            four_byte = &h;
    }
    if (!bfpt)
        return sfdp_error("parameter headers", "no Basic Flash Parameter Table (ID 0xFF00)");
    if (bfpt->length_dwords < kBfptMinimumDwords)
        return sfdp_error("BFPT", pdt::format("%u DWORDs, JESD216 gives at least 9", bfpt->length_dwords));
    info.bfpt_major = bfpt->major;
    info.bfpt_minor = bfpt->minor;
    info.bfpt_dwords = bfpt->length_dwords;
    PDT_CHECK(parse_bfpt(PDT_TRY(table_dwords(bytes, *bfpt, "BFPT")), info));
    if (four_byte)
        parse_four_byte_table(PDT_TRY(table_dwords(bytes, *four_byte, "4-byte address table")), info);
    return info;
}

}  // namespace flash
