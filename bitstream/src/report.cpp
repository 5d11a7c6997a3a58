// parse_bitstream_file's text and JSON (report.hpp).
#include "bitstream/report.hpp"

#include <nlohmann/json.hpp>

#include "base/format.hpp"
#include "bitstream/parts.hpp"

namespace bitstream {

namespace {

std::string offset_text(size_t offset) { return pdt::format("0x%08zx", offset); }
std::string word_text(uint32_t word) { return pdt::format("0x%08x", word); }

bool is_frame_data(const Packet& p) {
    return p.writes(Register::FDRI) || p.writes(Register::MFWR) || p.type == PacketType::type2;
}

// What a write's words say: CMD's command, IDCODE's part, a short write's words; frame data
// and long writes by their count alone.
std::string decoded(const Packet& p) {
    if (p.opcode != Opcode::write || p.word_count == 0)
        return "";
    if (const auto command = p.command())
        return ": " + command_name(*command);
    if (p.words.size() == 1 && p.writes(Register::IDCODE))
        return ": " + word_text(p.words[0]) + " (" + part_name(p.words[0]) + ")";
    if (is_frame_data(p) || p.words.empty())
        return ": " + std::string(is_frame_data(p) ? "frame data" : "data") + " (not shown)";
    std::string text = ":";
    for (const uint32_t word : p.words)
        text += " " + word_text(word);
    return text;
}

std::string header_text(const BitHeader& h) {
    return ".bit format header:\n  design_name=" + h.design_name + "\n  part_name=" + h.part + "\n  date=" + h.date +
           "\n  time=" + h.time + "\n  data_length=" + std::to_string(h.data_length) + " bytes at byte offset " +
           pdt::hex(h.data_offset) + "\n";
}

std::string idcode_text(const Configuration& c) {
    return c.idcode ? word_text(*c.idcode) + " (" + part_name(*c.idcode) + ")" : "none written";
}

std::string preamble_text(const Configuration& c) {
    std::string text = std::to_string(c.dummy_words) + " dummy words";
    if (c.bus_width_offset)
        text += ", bus width detection at byte offset " + pdt::hex(*c.bus_width_offset);
    return "Configuration data: " + text + "\n";
}

std::string packets_text(const Configuration& c) {
    std::string text;
    size_t section = SIZE_MAX;
    for (const Packet& p : c.packets) {
        if (p.section != section) {
            section = p.section;
            text += (c.sync_offsets.size() > 1 ? "SLR[" + std::to_string(section) + "] " : std::string()) +
                    "Sync word at byte offset " + pdt::hex(c.sync_offsets[section]) + "\n";
        }
        text += "  " + format_packet(p) + "\n";
    }
    return text;
}

std::string end_text(const Configuration& c) {
    std::string text = c.desync_seen ? "End of configuration (DESYNC), packets end at byte offset "
                                     : "No DESYNC command: packets end at byte offset ";
    text += pdt::hex(c.end_offset);
    if (c.trailing_bytes > 0)
        text += ", " + std::to_string(c.trailing_bytes) + " bytes after them";
    return text + "\n";
}

using json = nlohmann::ordered_json;  // the keys in the order the text prints them

json json_packet(const Packet& p) {
    json packet{{"offset", p.offset}, {"type", p.type == PacketType::type1 ? 1 : 2}, {"opcode", opcode_name(p.opcode)}};
    if (p.opcode != Opcode::NOP)
        packet["register"] = p.register_name();
    packet["word_count"] = p.word_count;
    if (!p.words.empty())
        packet["words"] = p.words;
    if (const auto command = p.command())
        packet["command"] = command_name(*command);
    return packet;
}

json json_header(const BitHeader& h) {
    return {{"design_name", h.design_name}, {"design", h.design},   {"user_id", h.user_id},
            {"version", h.version},         {"compress_mark", h.compress_mark}, {"part", h.part},
            {"date", h.date},               {"time", h.time},       {"data_offset", h.data_offset},
            {"data_length", h.data_length}};
}

json json_configuration(const Configuration& c) {
    json out{{"dummy_words", c.dummy_words}, {"bus_width_offset", nullptr}, {"sync_offsets", c.sync_offsets},
             {"packets", json::array()},     {"desync_seen", c.desync_seen}, {"end_offset", c.end_offset},
             {"trailing_bytes", c.trailing_bytes}, {"idcode", nullptr}, {"part", nullptr},
             {"compressed", c.compressed},   {"encrypted", c.encrypted}};
    if (c.bus_width_offset)
        out["bus_width_offset"] = *c.bus_width_offset;
    for (const Packet& p : c.packets)
        out["packets"].push_back(json_packet(p));
    if (c.idcode) {
        out["idcode"] = word_text(*c.idcode);
        if (const auto part = part_for_idcode(*c.idcode))
            out["part"] = part->name;
    }
    return out;
}

}  // namespace

std::string format_packet(const Packet& p) {
    return offset_text(p.offset) + " type " + (p.type == PacketType::type1 ? "1 " : "2 ") + opcode_name(p.opcode) +
           (p.type == PacketType::type1 && p.opcode == Opcode::NOP ? "" : " " + p.register_name()) + " words " +
           std::to_string(p.word_count) + decoded(p);
}

std::string format_text(const Bitstream& parsed, const std::string& name, size_t file_size) {
    const Configuration& c = parsed.configuration;
    std::string text = "Bitstream file " + name + ": " + (parsed.header ? ".bit" : ".bin") + " format, " +
                       std::to_string(file_size) + " bytes\n";
    if (parsed.header)
        text += header_text(*parsed.header);
    text += preamble_text(c) + packets_text(c) + end_text(c);
    text += "Packets: " + std::to_string(c.packets.size()) + " in " + std::to_string(c.sync_offsets.size()) +
            (c.sync_offsets.size() == 1 ? " section" : " SLR sections") + "\n";
    text += "IDCODE: " + idcode_text(c) + "\n";
    text += std::string("Compressed: ") + (c.compressed ? "yes" : "no") + "\n";
    text += std::string("Encrypted: ") + (c.encrypted ? "yes" : "no") + "\n";
    return text;
}

std::string format_json(const Bitstream& parsed, const std::string& name, size_t file_size) {
    json out{{"file", name}, {"format", parsed.header ? "bit" : "bin"}, {"size", file_size}, {"header", nullptr},
             {"data_offset", parsed.data_offset}, {"data_length", parsed.data_length}};
    if (parsed.header)
        out["header"] = json_header(*parsed.header);
    out.update(json_configuration(parsed.configuration));
    // A header string need not be UTF-8: replaced, never an exception.
    return out.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace bitstream
