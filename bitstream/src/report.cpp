// parse_bitstream_file's text and JSON (report.hpp).
#include "bitstream/report.hpp"

#include "bitstream/parts.hpp"
#include "vfio_access/format.hpp"
#include "vfio_access/json_text.hpp"

namespace bitstream {

namespace {

std::string offset_text(size_t offset) { return vfio::format("0x%08zx", offset); }
std::string word_text(uint32_t word) { return vfio::format("0x%08x", word); }

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
           vfio::hex(h.data_offset) + "\n";
}

std::string idcode_text(const Configuration& c) {
    return c.idcode ? word_text(*c.idcode) + " (" + part_name(*c.idcode) + ")" : "none written";
}

std::string preamble_text(const Configuration& c) {
    std::string text = std::to_string(c.dummy_words) + " dummy words";
    if (c.bus_width_offset)
        text += ", bus width detection at byte offset " + vfio::hex(*c.bus_width_offset);
    return "Configuration data: " + text + "\n";
}

std::string packets_text(const Configuration& c) {
    std::string text;
    size_t section = SIZE_MAX;
    for (const Packet& p : c.packets) {
        if (p.section != section) {
            section = p.section;
            text += (c.sync_offsets.size() > 1 ? "SLR[" + std::to_string(section) + "] " : std::string()) +
                    "Sync word at byte offset " + vfio::hex(c.sync_offsets[section]) + "\n";
        }
        text += "  " + format_packet(p) + "\n";
    }
    return text;
}

std::string end_text(const Configuration& c) {
    std::string text = c.desync_seen ? "End of configuration (DESYNC), packets end at byte offset "
                                     : "No DESYNC command: packets end at byte offset ";
    text += vfio::hex(c.end_offset);
    if (c.trailing_bytes > 0)
        text += ", " + std::to_string(c.trailing_bytes) + " bytes after them";
    return text + "\n";
}

std::string json_packet(const Packet& p) {
    std::string text = vfio::format("{\"offset\": %zu, \"type\": %d, \"opcode\": ", p.offset, p.type == PacketType::type1 ? 1 : 2) +
                       vfio::json_quote(opcode_name(p.opcode));
    if (p.opcode != Opcode::NOP)
        text += ", \"register\": " + vfio::json_quote(p.register_name());
    text += ", \"word_count\": " + std::to_string(p.word_count);
    if (!p.words.empty()) {
        text += ", \"words\": [";
        for (size_t i = 0; i < p.words.size(); ++i)
            text += (i ? ", " : "") + std::to_string(p.words[i]);
        text += "]";
    }
    if (const auto command = p.command())
        text += ", \"command\": " + vfio::json_quote(command_name(*command));
    return text + "}";
}

std::string json_header(const BitHeader& h) {
    return "{\"design_name\": " + vfio::json_quote(h.design_name) + ", \"design\": " + vfio::json_quote(h.design) +
           ", \"user_id\": " + vfio::json_quote(h.user_id) + ", \"version\": " + vfio::json_quote(h.version) +
           ", \"compress_mark\": " + (h.compress_mark ? "true" : "false") + ", \"part\": " + vfio::json_quote(h.part) +
           ", \"date\": " + vfio::json_quote(h.date) + ", \"time\": " + vfio::json_quote(h.time) +
           ", \"data_offset\": " + std::to_string(h.data_offset) + ", \"data_length\": " + std::to_string(h.data_length) + "}";
}

std::string json_list(const std::vector<size_t>& values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
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
    const Configuration& c = parsed.configuration;
    std::string text = "{\"file\": " + vfio::json_quote(name) + ", \"format\": " + (parsed.header ? "\"bit\"" : "\"bin\"") +
                       ", \"size\": " + std::to_string(file_size);
    if (parsed.header)
        text += ",\n \"header\": " + json_header(*parsed.header);
    text += ",\n \"data_offset\": " + std::to_string(parsed.data_offset) + ", \"data_length\": " +
            std::to_string(parsed.data_length) + ", \"dummy_words\": " + std::to_string(c.dummy_words) +
            ", \"bus_width_offset\": " + (c.bus_width_offset ? std::to_string(*c.bus_width_offset) : "null") +
            ", \"sync_offsets\": " + json_list(c.sync_offsets) + ",\n \"packets\": [";
    for (size_t i = 0; i < c.packets.size(); ++i)
        text += std::string(i ? ",\n  " : "\n  ") + json_packet(c.packets[i]);
    text += "],\n \"desync_seen\": " + std::string(c.desync_seen ? "true" : "false") +
            ", \"end_offset\": " + std::to_string(c.end_offset) + ", \"trailing_bytes\": " + std::to_string(c.trailing_bytes);
    text += ", \"idcode\": " + (c.idcode ? vfio::json_quote(word_text(*c.idcode)) : "null") +
            ", \"part\": " + (c.idcode && part_for_idcode(*c.idcode) ? vfio::json_quote(part_name(*c.idcode)) : "null");
    return text + ", \"compressed\": " + (c.compressed ? "true" : "false") + ", \"encrypted\": " +
           (c.encrypted ? "true" : "false") + "}\n";
}

}  // namespace bitstream
