// The configuration data: dummy and bus width detection words, the Sync word, then packets
// (UG470 chapter 5 "Bitstream Composition" and "Configuration Packets"; UG570 "Configuration Packets").
#include <algorithm>
#include <array>

#include "bitstream/bitstream.hpp"
#include "reader.hpp"

namespace bitstream {

std::optional<uint32_t> Packet::command() const {
    if (type == PacketType::type1 && writes(Register::CMD) && word_count == 1 && words.size() == 1)
        return words[0];
    return std::nullopt;
}

namespace {

using detail::corrupt;
using detail::word_at;

// Byte offset of the first `pattern` in `data` at or after `from`, or npos.
size_t find(std::span<const uint8_t> data, std::span<const uint8_t> pattern, size_t from = 0) {
    if (from > data.size())
        return std::string::npos;
    const auto it = std::search(data.begin() + static_cast<ptrdiff_t>(from), data.end(), pattern.begin(), pattern.end());
    return it == data.end() ? std::string::npos : static_cast<size_t>(it - data.begin());
}

constexpr std::array<uint8_t, 4> kSyncBytes{0xAA, 0x99, 0x55, 0x66};
constexpr std::array<uint8_t, 8> kBusWidthBytes{0x00, 0x00, 0x00, 0xBB, 0x11, 0x22, 0x00, 0x44};

class PacketParser {
public:
    PacketParser(std::span<const uint8_t> data, size_t base, bool stop_at_idcode = false)
        : m_data(data), m_base(base), m_stop_at_idcode(stop_at_idcode) {}

    pdt::Result<Configuration> run() {
        PDT_CHECK(find_sync());
        while (m_at + 4 <= m_data.size() && !(m_stop_at_idcode && m_out.idcode)) {
            const uint32_t word = word_at(m_data, m_at);
            if (m_ended && word == kSyncWord) {
                start_section();
                continue;
            }
            if (m_in_preamble && skip_preamble(word))
                continue;
            if (m_ended && !continues_after_desync(word))
                break;
            PDT_CHECK(packet(word));
        }
        m_out.end_offset = m_base + m_at;
        m_out.trailing_bytes = m_data.size() - m_at;
        return std::move(m_out);
    }

private:
    // UG470 "Sync Word": the configuration logic looks for 0xAA995566 before any packet; the
    // dummy words (0xFFFFFFFF) and the bus width detection pattern come before it (UG470 "Bus
    // Width Auto Detection").
    pdt::Result<void> find_sync() {
        const size_t sync = find(m_data, kSyncBytes);
        if (sync == std::string::npos)
            return corrupt(m_base, "no Sync word 0xAA995566 in the " + std::to_string(m_data.size()) +
                                       " bytes of configuration data");
        while ((m_out.dummy_words + 1) * 4 <= sync && word_at(m_data, m_out.dummy_words * 4) == kDummyWord)
            ++m_out.dummy_words;
        const size_t bus_width = find(m_data.first(sync), kBusWidthBytes);
        if (bus_width != std::string::npos)
            m_out.bus_width_offset = m_base + bus_width;
        m_out.sync_offsets.push_back(m_base + sync);
        m_at = sync + 4;
        return {};
    }

    // A Sync word after DESYNC starts the next SLR's section (an SSI device: U200); the dummy and
    // bus width words before that SLR's own Sync word are skipped, and that Sync word becomes the
    // section's.
    void start_section() {
        m_out.sync_offsets.push_back(m_base + m_at);
        m_at += 4;
        m_ended = false;
        m_last_type1 = false;
        m_in_preamble = true;
    }

    bool skip_preamble(uint32_t word) {
        if (word == kSyncWord)
            m_out.sync_offsets.back() = m_base + m_at;
        else if (word != kDummyWord && word != kBusWidthSyncWord && word != kBusWidthDetectWord)
            return m_in_preamble = false;
        m_at += 4;
        return true;
    }

    // After DESYNC: NOPs or, once there is more than one SLR, the writes that end them; anything
    // else is padding. False: stop here.
    bool continues_after_desync(uint32_t word) {
        const auto type = word >> header::kTypeShift;
        const auto opcode = static_cast<Opcode>((word >> header::kOpcodeShift) & header::kOpcodeMask);
        if (type == 1 && opcode == Opcode::NOP)
            return true;
        if (type == 1 && opcode == Opcode::write && m_out.sync_offsets.size() > 1) {
            m_ended = false;
            return true;
        }
        return false;
    }

    pdt::Result<void> packet(uint32_t word) {
        Packet p;
        p.offset = m_base + m_at;
        p.section = m_out.sync_offsets.size() - 1;
        p.opcode = static_cast<Opcode>((word >> header::kOpcodeShift) & header::kOpcodeMask);
        const uint32_t type = word >> header::kTypeShift;
        if (type == 1) {
            p.type = PacketType::type1;
            p.address = (word >> header::kType1AddressShift) & header::kType1AddressMask;
            p.word_count = word & header::kType1WordCountMask;
        } else if (type == 2) {
            // UG470 "Type 2 Packet": it must follow a type 1 packet, whose address it writes.
            if (!m_last_type1)
                return corrupt(p.offset, "type 2 packet header " + pdt::hex(word) + " does not follow a type 1 packet");
            p.type = PacketType::type2;
            p.address = m_last_address;
            p.word_count = word & header::kType2WordCountMask;
        } else {
            return corrupt(p.offset, "packet header " + pdt::hex(word) + " has header type " + std::to_string(type) +
                                         " (a packet is type 1 or type 2)");
        }
        PDT_CHECK(take_data(p));
        m_last_type1 = p.type == PacketType::type1;
        m_last_address = p.address;
        apply(p);
        m_out.packets.push_back(std::move(p));
        return {};
    }

    pdt::Result<void> take_data(Packet& p) {
        p.data_offset = p.offset + 4;
        // A write carries its words; a read's come out of the device (readback), a NOP has none.
        if (p.opcode != Opcode::write) {
            m_at += 4;
            return {};
        }
        const size_t left = m_data.size() - m_at - 4;
        if (uint64_t{p.word_count} * 4 > left)
            return corrupt(p.offset, "the packet's word count " + std::to_string(p.word_count) + " runs past the end (" +
                                         std::to_string(left / 4) + " words left)");
        if (p.word_count <= kShortWrite)
            for (uint32_t i = 0; i < p.word_count; ++i)
                p.words.push_back(word_at(m_data, m_at + 4 + 4 * i));
        m_at += 4 + size_t{p.word_count} * 4;
        return {};
    }

    // What a packet says of the bitstream: IDCODE, compression (MFWR, MFW: UG470 Table 5-23,
    // Table 5-25), encryption (CBC, CTL0 DEC under MASK: UG470 Table 5-27), the DESYNC that ends it.
    void apply(const Packet& p) {
        if (p.writes(Register::MFWR) || p.command() == static_cast<uint32_t>(Command::MFW))
            m_out.compressed = true;
        if (p.writes(Register::CBC))
            m_out.encrypted = true;
        if (p.type != PacketType::type1 || p.opcode != Opcode::write || p.words.size() != 1)
            return;
        const uint32_t value = p.words[0];
        if (p.writes(Register::IDCODE))
            m_out.idcode = value;
        else if (p.writes(Register::MASK))
            m_mask = value;
        else if (p.writes(Register::CTL0) && (value & m_mask & kCtl0Dec))
            m_out.encrypted = true;
        else if (p.command() == static_cast<uint32_t>(Command::DESYNC))
            m_ended = m_out.desync_seen = true;
    }

    std::span<const uint8_t> m_data;
    size_t m_base;
    bool m_stop_at_idcode;
    size_t m_at = 0;
    Configuration m_out;
    bool m_ended = false;
    bool m_in_preamble = false;  // after a section's Sync word, before its first packet
    bool m_last_type1 = false;
    uint32_t m_last_address = 0;
    uint32_t m_mask = 0;  // the last MASK write: a CTL0 bit counts only where MASK allows it
};

}  // namespace

pdt::Result<Configuration> parse_configuration(std::span<const uint8_t> data, size_t base) {
    return PacketParser(data, base).run();
}

pdt::Result<uint32_t> first_idcode(std::span<const uint8_t> file) {
    size_t base = 0;
    if (has_bit_header(file))
        base = PDT_TRY(parse_header(file)).data_offset;
    const auto data = file.subspan(base);
    const Configuration c = PDT_TRY(PacketParser(data, base, true).run());
    if (!c.idcode)
        return pdt::make_error("find IDCODE", "byte offset " + pdt::hex(c.end_offset), ENOENT,
                               "the bitstream's packets write no IDCODE before " +
                                   std::string(c.desync_seen ? "DESYNC" : "the end of the data"));
    return *c.idcode;
}

}  // namespace bitstream
