#include "design_parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <utility>
#include <nlohmann/json.hpp>

namespace designs {
namespace {

using json = nlohmann::json;

// Reads one JSON object, remembering where it is ("peripherals[2]") so that every error names
// the field. Unknown keys are errors: a misspelt optional field would otherwise be ignored.
class Fields {
public:
    Fields(const json& object, std::string path, const std::string& source)
        : m_object(object), m_path(std::move(path)), m_source(source) {}

    vfio::Error error(const std::string& key, const std::string& problem) const {
        return vfio::make_error("parse design file", m_source + " field " + field(key), EINVAL, problem);
    }
    std::string field(const std::string& key) const { return m_path.empty() ? key : m_path + "." + key; }
    bool has(const char* key) const { return m_object.contains(key); }
    const json& at(const char* key) const { return m_object.at(key); }
    const std::string& source() const { return m_source; }

    vfio::Result<void> only(std::initializer_list<const char*> allowed) const {
        for (const auto& item : m_object.items()) {
            const std::string& key = item.key();  // not a structured binding: clang 14 cannot capture one
            if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; })) {
                std::string list;
                for (const char* a : allowed)
                    list += std::string(list.empty() ? "" : ", ") + a;
                return error(key, "unknown field; expected one of: " + list);
            }
        }
        return {};
    }

    // A number given as a JSON integer or as a string "0x1f" / "31"; within [0, max].
    vfio::Result<uint64_t> number(const char* key, uint64_t max) const {
        if (!has(key))
            return error(key, "missing required field");
        return number_value(key, at(key), max);
    }
    vfio::Result<uint64_t> number_or(const char* key, uint64_t max, uint64_t fallback) const {
        return has(key) ? number(key, max) : vfio::Result<uint64_t>(fallback);
    }
    vfio::Result<uint64_t> number_value(const std::string& key, const json& value, uint64_t max) const {
        uint64_t n = 0;
        if (value.is_number_unsigned()) {
            n = value.get<uint64_t>();
        } else if (value.is_number_integer()) {
            return error(key, "must not be negative (got " + value.dump() + ")");
        } else if (value.is_string()) {
            const std::string text = value.get<std::string>();
            const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
            const char* begin = text.data() + (hex ? 2 : 0);
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(begin, end, n, hex ? 16 : 10);
            if (text.empty() || ec != std::errc() || ptr != end)
                return error(key, "expected a number such as 0x2000 or 8192 (got \"" + text + "\")");
        } else {
            return error(key, "expected a number or a \"0x...\" string (got " + value.dump() + ")");
        }
        if (n > max) {
            char limit[32];
            std::snprintf(limit, sizeof limit, "0x%llx", static_cast<unsigned long long>(max));
            return error(key, "value " + std::to_string(n) + " is above the maximum " + limit);
        }
        return n;
    }

    // A JSON true/false.
    vfio::Result<bool> boolean(const char* key) const {
        if (!has(key) || !at(key).is_boolean())
            return error(key, "expected true or false (got " + (has(key) ? at(key).dump() : std::string("nothing")) + ")");
        return at(key).get<bool>();
    }
    // A number within [0, max], or "any" (a wildcard: std::nullopt).
    vfio::Result<std::optional<uint64_t>> number_or_any(const char* key, uint64_t max) const {
        if (has(key) && at(key).is_string() && at(key).get<std::string>() == "any")
            return std::optional<uint64_t>();
        return std::optional<uint64_t>(PDT_TRY(number(key, max)));
    }

    vfio::Result<std::string> text(const char* key, bool required) const {
        if (!has(key))
            return required ? vfio::Result<std::string>(error(key, "missing required field")) : std::string();
        if (!at(key).is_string())
            return error(key, "expected a string (got " + at(key).dump() + ")");
        return at(key).get<std::string>();
    }

    vfio::Result<Fields> object(const char* key) const { return object_value(field(key), at(key)); }
    vfio::Result<Fields> object_value(const std::string& path, const json& value) const {
        if (!value.is_object())
            return vfio::make_error("parse design file", m_source + " field " + path, EINVAL,
                                    "expected an object {...} (got " + value.dump() + ")");
        return Fields(value, path, m_source);
    }
    // Parses each element of the array `key` in turn, as the object "key[i]", and appends it to
    // `out`, stopping at the first error; `expected` is the error when `key` is not an array.
    template <typename T, typename Parse>
    vfio::Result<void> append_objects(const char* key, const std::string& expected, std::vector<T>& out,
                                      const Parse& parse) const {
        const json& list = at(key);
        if (!list.is_array())
            return error(key, expected);
        for (size_t i = 0; i < list.size(); ++i)
            out.push_back(PDT_TRY(parse(PDT_TRY(object_value(field(key) + "[" + std::to_string(i) + "]", list[i])))));
        return {};
    }

private:
    const json& m_object;
    std::string m_path;
    const std::string& m_source;
};

vfio::Result<void> parse_revision_range(const Fields& f, uint8_t& min, uint8_t& max) {
    min = static_cast<uint8_t>(PDT_TRY(f.number_or("min_revision", 0xff, 0)));
    max = static_cast<uint8_t>(PDT_TRY(f.number_or("max_revision", 0xff, 0xff)));
    if (min > max)
        return f.error("max_revision", "is below min_revision");
    return {};
}

// {bar, offset[, value]}: a 32-bit register (content match, version, simulated constant).
vfio::Result<RegisterValue> parse_register(const Fields& f, bool with_value) {
    if (with_value)
        PDT_CHECK(f.only({"bar", "offset", "value"}));
    else
        PDT_CHECK(f.only({"bar", "offset"}));
    RegisterValue r;
    r.bar = static_cast<unsigned>(PDT_TRY(f.number("bar", 5)));
    r.offset = PDT_TRY(f.number("offset", UINT64_MAX - 4));
    if (r.offset % 4 != 0)
        return f.error("offset", "must be a multiple of 4 (32-bit registers)");
    if (with_value)
        r.value = static_cast<uint32_t>(PDT_TRY(f.number("value", 0xffffffff)));
    return r;
}

vfio::Result<IdMatch> parse_match(const Fields& f) {
    PDT_CHECK(f.only({"vendor_id", "device_id", "device_ids", "subsystem_vendor_id", "subsystem_device_id",
                      "min_revision", "max_revision", "register"}));
    IdMatch match;
    match.vendor_id = static_cast<uint16_t>(PDT_TRY(f.number_or("vendor_id", 0xffff, 0x10ee)));
    if (f.has("device_id"))
        match.device_id = static_cast<uint16_t>(PDT_TRY(f.number("device_id", 0xffff)));
    if (f.has("device_ids")) {  // a design whose bitstreams carry one of several device IDs
        const json& list = f.at("device_ids");
        if (match.device_id || !list.is_array() || list.empty())
            return f.error("device_ids", "expected a non-empty array of device IDs, and no device_id beside it");
        for (size_t i = 0; i < list.size(); ++i) {
            const auto id = static_cast<uint16_t>(PDT_TRY(f.number_value("device_ids[" + std::to_string(i) + "]", list[i], 0xffff)));
            if (i == 0)
                match.device_id = id;
            else
                match.more_device_ids.push_back(id);
        }
    }
    // Subsystem IDs: a number, or "any" (matches every value).
    for (auto [key, id] : {std::pair{"subsystem_vendor_id", &match.subsystem_vendor_id},
                           std::pair{"subsystem_device_id", &match.subsystem_device_id}}) {
        const std::optional<uint64_t> value = PDT_TRY(f.number_or_any(key, 0xffff));
        *id = value ? std::optional<uint16_t>(static_cast<uint16_t>(*value)) : std::nullopt;
    }
    PDT_CHECK(parse_revision_range(f, match.min_revision, match.max_revision));
    if (f.has("register"))
        match.register_value = PDT_TRY(parse_register(PDT_TRY(f.object("register")), true));
    return match;
}

vfio::Result<MemoryWindow> parse_window(const Fields& f) {
    PDT_CHECK(f.only({"min_revision", "max_revision", "memory_base", "memory_size"}));
    MemoryWindow window;
    PDT_CHECK(parse_revision_range(f, window.min_revision, window.max_revision));
    window.base = PDT_TRY(f.number_or("memory_base", UINT64_MAX, 0));
    window.size = PDT_TRY(f.number("memory_size", UINT64_MAX));
    if (window.size == 0)
        return f.error("memory_size", "must not be 0 for a memory-mapped DMA bridge");
    return window;
}

vfio::Result<StreamFunction> parse_stream_function(const Fields& f, const DmaBridge& bridge) {
    const std::string name = PDT_TRY(f.text("stream_function", true));
    if (bridge.mode != DmaMode::Stream)
        return f.error("stream_function", "only a stream DMA bridge has a stream function");
    for (StreamFunction function : {StreamFunction::Loopback, StreamFunction::Crc64, StreamFunction::FixedData})
        if (name == to_string(function)) {
            if (function == StreamFunction::Crc64 &&
                (!bridge.stream_tdata_bytes || *bridge.stream_tdata_bytes < 8 || *bridge.stream_tdata_bytes % 8 != 0))
                return f.error("stream_function",
                               "crc64 needs stream_tdata_bytes, a multiple of 8 (the CRC takes 64-bit words)");
            return function;
        }
    return f.error("stream_function", "expected \"loopback\", \"crc64\" or \"fixed_data\" (got \"" + name + "\")");
}

// XDMA IP options (dma_bridge.xdma_ip, simulation.xdma_ip): each optional true/false.
vfio::Result<XdmaIpOptions> parse_xdma_ip(const Fields& f) {
    PDT_CHECK(f.only({"descriptor_credits", "poll_mode_writeback", "interrupts"}));
    XdmaIpOptions ip;
    for (auto [key, option] : {std::pair{"descriptor_credits", &ip.descriptor_credits},
                               std::pair{"poll_mode_writeback", &ip.poll_mode_writeback},
                               std::pair{"interrupts", &ip.interrupts}})
        if (f.has(key))
            *option = PDT_TRY(f.boolean(key));
    return ip;
}

vfio::Result<DmaBridge> parse_dma_bridge(const Fields& f) {
    PDT_CHECK(f.only({"bar", "mode", "memory_base", "memory_size", "memory_by_revision", "h2c_channels",
                      "c2h_channels", "stream_tdata_bytes", "stream_function", "xdma_ip", "memory_present"}));
    DmaBridge bridge;
    bridge.bar = static_cast<unsigned>(PDT_TRY(f.number("bar", 5)));
    const std::string mode = PDT_TRY(f.text("mode", true));
    if (mode == "stream")
        bridge.mode = DmaMode::Stream;
    else if (mode == "memory_mapped")
        bridge.mode = DmaMode::MemoryMapped;
    else
        return f.error("mode", "expected \"stream\" or \"memory_mapped\" (got \"" + mode + "\")");
    if (bridge.mode == DmaMode::Stream) {
        for (const char* key : {"memory_base", "memory_size", "memory_by_revision"})
            if (f.has(key))
                return f.error(key, "only a memory_mapped DMA bridge has card memory");
    } else {
        bridge.memory_base = PDT_TRY(f.number_or("memory_base", UINT64_MAX, 0));
        bridge.memory_size = PDT_TRY(f.number("memory_size", UINT64_MAX));
        if (bridge.memory_size == 0)
            return f.error("memory_size", "must not be 0 for a memory-mapped DMA bridge");
    }
    if (f.has("memory_by_revision"))
        PDT_CHECK(f.append_objects("memory_by_revision", "expected an array of {min_revision, max_revision, memory_size}",
                                   bridge.memory_by_revision, parse_window));
    if (f.has("h2c_channels"))
        bridge.h2c_channels = static_cast<unsigned>(PDT_TRY(f.number("h2c_channels", 4)));
    if (f.has("c2h_channels"))
        bridge.c2h_channels = static_cast<unsigned>(PDT_TRY(f.number("c2h_channels", 4)));
    if (f.has("stream_tdata_bytes"))
        bridge.stream_tdata_bytes = static_cast<unsigned>(PDT_TRY(f.number("stream_tdata_bytes", 128)));
    if (f.has("stream_function"))
        bridge.stream_function = PDT_TRY(parse_stream_function(f, bridge));
    // XDMA IP options and enumeration-only bridges (MODEL).
    if (f.has("xdma_ip"))
        bridge.xdma_ip = PDT_TRY(parse_xdma_ip(PDT_TRY(f.object("xdma_ip"))));
    if (f.has("memory_present")) {
        if (bridge.mode != DmaMode::MemoryMapped)
            return f.error("memory_present", "only a memory_mapped DMA bridge has card memory");
        bridge.memory_present = PDT_TRY(f.boolean("memory_present"));
    }
    return bridge;
}

// The QDMA Subsystem (PG302): its CSR BAR and, for a memory-mapped design, the card memory.
vfio::Result<Qdma> parse_qdma(const Fields& f) {
    PDT_CHECK(f.only({"bar", "memory_base", "memory_size"}));
    Qdma qdma;
    qdma.bar = static_cast<unsigned>(PDT_TRY(f.number("bar", 5)));
    qdma.memory_base = PDT_TRY(f.number_or("memory_base", UINT64_MAX, 0));
    qdma.memory_size = PDT_TRY(f.number_or("memory_size", UINT64_MAX, 0));
    if (f.has("memory_base") && qdma.memory_size == 0)
        return f.error("memory_base", "a memory base needs a memory_size above 0");
    return qdma;
}

// One physical function of a multi-function card (PG302: PF0..PF3).
vfio::Result<CardFunction> parse_card(const Fields& f) {
    PDT_CHECK(f.only({"name", "physical_function"}));
    CardFunction card;
    card.name = PDT_TRY(f.text("name", true));
    if (card.name.empty())
        return f.error("name", "a card name must not be empty");
    card.physical_function = static_cast<unsigned>(PDT_TRY(f.number("physical_function", 3)));
    return card;
}

// simulation.qdma: the capabilities the simulated QDMA reports (PG302: 1..4 PFs, up to 2048 queues).
vfio::Result<QdmaSimulation> parse_qdma_simulation(const Fields& f) {
    PDT_CHECK(f.only({"physical_functions", "queues", "stream", "memory_mapped"}));
    QdmaSimulation q;
    q.physical_functions = static_cast<unsigned>(PDT_TRY(f.number_or("physical_functions", 4, q.physical_functions)));
    if (q.physical_functions == 0)
        return f.error("physical_functions", "must be 1..4");
    q.queues = static_cast<unsigned>(PDT_TRY(f.number_or("queues", 2048, q.queues)));
    if (q.queues == 0)
        return f.error("queues", "must be 1..2048");
    for (auto [key, value] : {std::pair{"stream", &q.stream}, std::pair{"memory_mapped", &q.memory_mapped}})
        if (f.has(key))
            *value = PDT_TRY(f.boolean(key));
    return q;
}

vfio::Result<PeripheralType> parse_type(const Fields& f) {
    const std::string name = PDT_TRY(f.text("type", true));
    std::string list;
    for (PeripheralType type : kPeripheralTypes) {
        if (name == json_name(type))
            return type;
        list += std::string(list.empty() ? "" : ", ") + json_name(type);
    }
    return f.error("type", "unknown peripheral type \"" + name + "\"; expected one of: " + list);
}

vfio::Result<std::vector<Route>> parse_routes(const Fields& f, unsigned masters, unsigned slaves) {
    std::vector<Route> routes;
    auto parse_route = [&](const Fields& r) -> vfio::Result<Route> {
        PDT_CHECK(r.only({"master", "slave"}));
        Route route;
        route.master = static_cast<unsigned>(PDT_TRY(r.number("master", masters - 1)));
        route.slave = static_cast<unsigned>(PDT_TRY(r.number("slave", slaves - 1)));
        for (const Route& other : routes)
            if (other.master == route.master)
                return r.error("master", "master port " + std::to_string(route.master) + " is routed twice");
        return route;
    };
    PDT_CHECK(f.append_objects("default_routes", "expected an array of {\"master\": m, \"slave\": s}", routes,
                               parse_route));
    return routes;
}

// UG580: SYSMONE1 (UltraScale) or SYSMONE4 (UltraScale+).
vfio::Result<SysmonPrimitive> parse_sysmon_primitive(const Fields& f) {
    const std::string name = PDT_TRY(f.text("primitive", true));
    for (SysmonPrimitive primitive : {SysmonPrimitive::Sysmone1, SysmonPrimitive::Sysmone4})
        if (name == to_string(primitive))
            return primitive;
    return f.error("primitive", "expected \"SYSMONE1\" (UltraScale) or \"SYSMONE4\" (UltraScale+) (got \"" + name + "\")");
}

vfio::Result<Peripheral> parse_peripheral(const Fields& f) {
    Peripheral p;
    p.type = PDT_TRY(parse_type(f));
    switch (p.type) {
    case PeripheralType::AxiStreamSwitch:
        PDT_CHECK(f.only({"type", "bar", "offset", "min_revision", "master_ports", "slave_ports", "default_routes"}));
        break;
    case PeripheralType::Sysmon:
        PDT_CHECK(f.only({"type", "bar", "offset", "min_revision", "slaves", "primitive"}));
        break;
    case PeripheralType::UltrascaleDna:
        PDT_CHECK(f.only({"type", "bar", "offset", "min_revision", "slr"}));
        break;
    default:
        PDT_CHECK(f.only({"type", "bar", "offset", "min_revision"}));
    }
    p.bar = static_cast<unsigned>(PDT_TRY(f.number("bar", 5)));
    p.offset = PDT_TRY(f.number("offset", UINT64_MAX - 0x10000));
    if (p.offset % 4 != 0)
        return f.error("offset", "must be a multiple of 4 (32-bit registers)");
    p.min_revision = static_cast<uint8_t>(PDT_TRY(f.number_or("min_revision", 0xff, 0)));
    if (p.type == PeripheralType::AxiStreamSwitch) {
        // PG085: up to 16 master and 16 slave interfaces; MI_MUX[3:0] selects the slave.
        p.master_ports = static_cast<unsigned>(PDT_TRY(f.number("master_ports", 16)));
        p.slave_ports = static_cast<unsigned>(PDT_TRY(f.number("slave_ports", 16)));
        if (p.master_ports == 0)
            return f.error("master_ports", "must be 1..16");
        if (p.slave_ports == 0)
            return f.error("slave_ports", "must be 1..16");
        if (f.has("default_routes"))
            p.default_routes = PDT_TRY(parse_routes(f, p.master_ports, p.slave_ports));
    }
    if (p.type == PeripheralType::Sysmon) {
        p.sysmon_slaves = static_cast<unsigned>(PDT_TRY(f.number_or("slaves", 3, 0)));
        if (f.has("primitive"))
            p.sysmon_primitive = PDT_TRY(parse_sysmon_primitive(f));
    }
    if (p.type == PeripheralType::UltrascaleDna)
        p.slr = static_cast<unsigned>(PDT_TRY(f.number_or("slr", 3, 0)));
    return p;
}

vfio::Result<Simulation> parse_simulation(const Fields& f) {
    PDT_CHECK(f.only({"device_id", "revision", "class_code", "user_access_timestamp", "bar_sizes",
                      "axi_stream_switch_implemented", "dna_words", "stream_fifo_bytes", "xdma_ip",
                      "busy_after_stop_us", "subsystem_vendor_id", "subsystem_device_id", "address_alignment",
                      "length_granularity", "address_bits", "control_w1s_ignored", "completed_count_reads_zero",
                      "registers", "qdma"}));
    Simulation s;
    s.device_id = static_cast<uint16_t>(PDT_TRY(f.number_or("device_id", 0xffff, s.device_id)));
    s.revision = static_cast<uint8_t>(PDT_TRY(f.number_or("revision", 0xff, 0)));
    s.class_code = static_cast<uint32_t>(PDT_TRY(f.number_or("class_code", 0xffffff, s.class_code)));
    if (f.has("user_access_timestamp"))
        s.user_access_timestamp = static_cast<uint32_t>(PDT_TRY(f.number("user_access_timestamp", 0xffffffff)));
    if (f.has("axi_stream_switch_implemented")) {
        if (!f.at("axi_stream_switch_implemented").is_boolean())
            return f.error("axi_stream_switch_implemented", "expected true or false");
        s.axi_stream_switch_implemented = f.at("axi_stream_switch_implemented").get<bool>();
    }
    if (f.has("bar_sizes")) {
        const Fields sizes = PDT_TRY(f.object("bar_sizes"));
        for (const auto& [key, value] : f.at("bar_sizes").items()) {
            if (key.size() != 1 || key[0] < '0' || key[0] > '5')
                return sizes.error(key, "BAR index must be \"0\"..\"5\"");
            const uint64_t size = PDT_TRY(sizes.number_value(sizes.field(key), value, 1ull << 40));
            if (size < 128 || (size & (size - 1)) != 0)
                return sizes.error(key, "a BAR size is a power of two of at least 128 bytes");
            s.bar_sizes[static_cast<unsigned>(key[0] - '0')] = size;
        }
    }
    if (f.has("stream_fifo_bytes")) {
        s.stream_fifo_bytes = PDT_TRY(f.number("stream_fifo_bytes", 1ull << 30));
        if (*s.stream_fifo_bytes < 64)
            return f.error("stream_fifo_bytes", "must be at least 64 bytes (one tdata beat of the widest stream)");
    }
    if (f.has("dna_words")) {
        const json& list = f.at("dna_words");
        if (!list.is_array())
            return f.error("dna_words", "expected an array of 32-bit numbers");
        for (size_t i = 0; i < list.size(); ++i)
            s.dna_words.push_back(static_cast<uint32_t>(
                PDT_TRY(f.number_value("dna_words[" + std::to_string(i) + "]", list[i], 0xffffffff))));
    }
    // XDMA IP as simulated, and its timing (MODEL).
    if (f.has("xdma_ip"))
        s.xdma_ip = PDT_TRY(parse_xdma_ip(PDT_TRY(f.object("xdma_ip"))));
    s.busy_after_stop_us = PDT_TRY(f.number_or("busy_after_stop_us", 10'000'000, 0));
    s.subsystem_vendor_id = static_cast<uint16_t>(PDT_TRY(f.number_or("subsystem_vendor_id", 0xffff, s.subsystem_vendor_id)));
    s.subsystem_device_id = static_cast<uint16_t>(PDT_TRY(f.number_or("subsystem_device_id", 0xffff, s.subsystem_device_id)));
    for (auto [key, value] : {std::pair{"address_alignment", &s.address_alignment},
                              std::pair{"length_granularity", &s.length_granularity}}) {
        *value = static_cast<unsigned>(PDT_TRY(f.number_or(key, 128, 1)));
        if (*value == 0 || (*value & (*value - 1)) != 0)
            return f.error(key, "a power of two from 1 to 128 bytes (got " + std::to_string(*value) + ")");
    }
    // IPs unlike the model but within reason (sim::XdmaConfig): the Alignments register's
    // address_bits as read, however bogus, and the two register quirks.
    s.address_bits = static_cast<unsigned>(PDT_TRY(f.number_or("address_bits", 255, s.address_bits)));
    for (auto [key, value] : {std::pair{"control_w1s_ignored", &s.control_w1s_ignored},
                              std::pair{"completed_count_reads_zero", &s.completed_count_reads_zero}})
        if (f.has(key))
            *value = PDT_TRY(f.boolean(key));
    if (f.has("registers"))
        PDT_CHECK(f.append_objects("registers", "expected an array of {bar, offset, value}", s.registers,
                                   [](const Fields& r) { return parse_register(r, true); }));
    if (f.has("qdma"))
        s.qdma = PDT_TRY(parse_qdma_simulation(PDT_TRY(f.object("qdma"))));
    return s;
}

// Peripherals that share register space are a description error.
vfio::Result<void> check_overlaps(const Fields& f, const Design& d) {
    struct Span {
        unsigned bar;
        uint64_t begin, end;
        std::string what;
    };
    std::vector<Span> spans;
    if (d.dma_bridge)
        spans.push_back({d.dma_bridge->bar, 0, 0x10000, "dma_bridge"});
    if (d.qdma)  // the QDMA CSR and queue space fpga_sio maps (0x40000 bytes at offset 0)
        spans.push_back({d.qdma->bar, 0, 0x40000, "qdma"});
    for (size_t i = 0; i < d.peripherals.size(); ++i) {
        const Peripheral& p = d.peripherals[i];
        spans.push_back({p.bar, p.offset, p.offset + p.frame_size(), "peripherals[" + std::to_string(i) + "]"});
    }
    for (size_t i = 0; i < spans.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (spans[i].bar == spans[j].bar && spans[i].begin < spans[j].end && spans[j].begin < spans[i].end)
                return f.error(spans[i].what, "overlaps " + spans[j].what + " in BAR " + std::to_string(spans[i].bar));
    return {};
}

vfio::Result<Design> parse_design(const Fields& f) {
    PDT_CHECK(f.only({"name", "description", "match", "dma_bridge", "qdma", "card", "peripherals", "simulation",
                      "version_register"}));
    Design d;
    d.name = PDT_TRY(f.text("name", true));
    if (d.name.empty() || !std::all_of(d.name.begin(), d.name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        }))
        return f.error("name", "a design name is letters, digits, '_', '-' or '.' (got \"" + d.name + "\")");
    d.description = PDT_TRY(f.text("description", false));
    if (!f.has("match"))
        return f.error("match", "missing required field");
    d.match = PDT_TRY(parse_match(PDT_TRY(f.object("match"))));
    if (f.has("dma_bridge"))
        d.dma_bridge = PDT_TRY(parse_dma_bridge(PDT_TRY(f.object("dma_bridge"))));
    if (f.has("qdma")) {
        if (d.dma_bridge)
            return f.error("qdma", "a design has a dma_bridge (XDMA) or a qdma, not both");
        d.qdma = PDT_TRY(parse_qdma(PDT_TRY(f.object("qdma"))));
    }
    if (f.has("card"))
        d.card = PDT_TRY(parse_card(PDT_TRY(f.object("card"))));
    if (f.has("peripherals"))
        PDT_CHECK(f.append_objects("peripherals", "expected an array of peripheral objects", d.peripherals,
                                   parse_peripheral));
    if (f.has("simulation"))
        d.simulation = PDT_TRY(parse_simulation(PDT_TRY(f.object("simulation"))));
    if (f.has("version_register"))
        d.version_register = PDT_TRY(parse_register(PDT_TRY(f.object("version_register")), false));
    PDT_CHECK(check_overlaps(f, d));
    return d;
}

}  // namespace

vfio::Result<std::vector<Design>> parse_designs(std::string_view text, const std::string& source) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        // "[json.exception.parse_error.101] parse error at line 3, column 7: syntax error ..."
        const std::string what = e.what();
        const size_t at = what.find("parse error ");
        return vfio::make_error("parse design file", source, EINVAL,
                                "invalid JSON " + (at == std::string::npos ? what : what.substr(at + 12)));
    } catch (const json::exception& e) {
        // The parser throws out_of_range, not parse_error, for a number beyond a double
        // ("[json.exception.out_of_range.406] number overflow parsing '65e666'"; found by fuzzing).
        const std::string what = e.what();
        const size_t at = what.find("] ");
        return vfio::make_error("parse design file", source, EINVAL,
                                "invalid JSON: " + (at == std::string::npos ? what : what.substr(at + 2)));
    }
    std::vector<Design> designs;
    auto add = [&](const std::string& path, const json& value) -> vfio::Result<void> {
        if (!value.is_object())
            return vfio::make_error("parse design file", source + (path.empty() ? "" : " field " + path), EINVAL,
                                    std::string("expected a design object {\"name\": ..., \"match\": ...} (got ") +
                                        value.type_name() + ")");
        Design design = PDT_TRY(parse_design(Fields(value, path, source)));
        design.source = source;
        designs.push_back(std::move(design));
        return {};
    };
    if (root.is_array()) {
        if (root.empty())
            return vfio::make_error("parse design file", source, EINVAL, "the array holds no designs");
        for (size_t i = 0; i < root.size(); ++i)
            PDT_CHECK(add("[" + std::to_string(i) + "]", root[i]));
    } else {
        PDT_CHECK(add("", root));
    }
    return designs;
}

}  // namespace designs
