#include "design_parser.hpp"
#include "design_fields.hpp"

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
using detail::Fields;

pdt::Result<void> parse_revision_range(const Fields& f, uint8_t& min, uint8_t& max) {
    min = static_cast<uint8_t>(PDT_TRY(f.number_or("min_revision", 0xff, 0)));
    max = static_cast<uint8_t>(PDT_TRY(f.number_or("max_revision", 0xff, 0xff)));
    if (min > max)
        return f.error("max_revision", "is below min_revision");
    return {};
}

// {bar, offset[, value]}: a 32-bit register (content match, version, simulated constant).
pdt::Result<RegisterValue> parse_register(const Fields& f, bool with_value) {
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

// {bar, offset, size}: memory a simulated instance has in a BAR.
pdt::Result<BarMemory> parse_bar_memory(const Fields& f) {
    PDT_CHECK(f.only({"bar", "offset", "size", "cleared_by_reset"}));
    BarMemory m;
    m.bar = static_cast<unsigned>(PDT_TRY(f.number("bar", 5)));
    m.offset = PDT_TRY(f.number("offset", 1ull << 40));
    m.size = PDT_TRY(f.number("size", 16ull << 20));
    if (m.offset % 8 != 0)
        return f.error("offset", "must be a multiple of 8 (64-bit accesses)");
    if (m.size == 0 || m.size % 8 != 0)
        return f.error("size", "must be a multiple of 8 bytes, at least 8");
    if (f.has("cleared_by_reset"))
        m.cleared_by_reset = PDT_TRY(f.boolean("cleared_by_reset"));
    return m;
}

pdt::Result<IdMatch> parse_match(const Fields& f) {
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

pdt::Result<MemoryWindow> parse_window(const Fields& f) {
    PDT_CHECK(f.only({"min_revision", "max_revision", "memory_base", "memory_size"}));
    MemoryWindow window;
    PDT_CHECK(parse_revision_range(f, window.min_revision, window.max_revision));
    window.base = PDT_TRY(f.number_or("memory_base", UINT64_MAX, 0));
    window.size = PDT_TRY(f.number("memory_size", UINT64_MAX));
    if (window.size == 0)
        return f.error("memory_size", "must not be 0 for a memory-mapped DMA bridge");
    return window;
}

pdt::Result<StreamFunction> parse_stream_function(const Fields& f, const DmaBridge& bridge) {
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
pdt::Result<XdmaIpOptions> parse_xdma_ip(const Fields& f) {
    PDT_CHECK(f.only({"descriptor_credits", "poll_mode_writeback", "interrupts"}));
    XdmaIpOptions ip;
    for (auto [key, option] : {std::pair{"descriptor_credits", &ip.descriptor_credits},
                               std::pair{"poll_mode_writeback", &ip.poll_mode_writeback},
                               std::pair{"interrupts", &ip.interrupts}})
        if (f.has(key))
            *option = PDT_TRY(f.boolean(key));
    return ip;
}

pdt::Result<DmaBridge> parse_dma_bridge(const Fields& f) {
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

pdt::Result<PeripheralType> parse_type(const Fields& f) {
    const std::string name = PDT_TRY(f.text("type", true));
    std::string list;
    for (PeripheralType type : kPeripheralTypes) {
        if (name == json_name(type))
            return type;
        list += std::string(list.empty() ? "" : ", ") + json_name(type);
    }
    return f.error("type", "unknown peripheral type \"" + name + "\"; expected one of: " + list);
}

pdt::Result<std::vector<Route>> parse_routes(const Fields& f, unsigned masters, unsigned slaves) {
    const detail::RouteEnd<Route> master{"master", &Route::master, masters - 1};
    return detail::parse_route_objects<Route>(f, "default_routes", "expected an array of {\"master\": m, \"slave\": s}",
                                      master, {"slave", &Route::slave, slaves - 1}, master, "master port");
}

// UG580: SYSMONE1 (UltraScale) or SYSMONE4 (UltraScale+).
pdt::Result<SysmonPrimitive> parse_sysmon_primitive(const Fields& f) {
    const std::string name = PDT_TRY(f.text("primitive", true));
    for (SysmonPrimitive primitive : {SysmonPrimitive::Sysmone1, SysmonPrimitive::Sysmone4})
        if (name == to_string(primitive))
            return primitive;
    return f.error("primitive", "expected \"SYSMONE1\" (UltraScale) or \"SYSMONE4\" (UltraScale+) (got \"" + name + "\")");
}

// AXI Quad SPI (PG153): C_SPI_MODE standard or quad, FIFO Depth 16 or 256.
pdt::Result<void> parse_quad_spi(const Fields& f, Peripheral& p) {
    const std::string mode = PDT_TRY(f.text("spi_mode", false));
    if (!mode.empty() && mode != "standard" && mode != "quad")
        return f.error("spi_mode", "expected \"standard\" or \"quad\" (got \"" + mode + "\")");
    p.quad_spi_mode = mode == "quad";
    p.fifo_depth = static_cast<unsigned>(PDT_TRY(f.number_or("fifo_depth", 256, 256)));
    if (p.fifo_depth != 16 && p.fifo_depth != 256)
        return f.error("fifo_depth", "PG153 builds the FIFOs 16 or 256 deep");
    p.flash = PDT_TRY(f.text("flash", false));
    return {};
}

pdt::Result<Peripheral> parse_peripheral(const Fields& f) {
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
    case PeripheralType::QuadSpi:
        PDT_CHECK(f.only({"type", "bar", "offset", "min_revision", "spi_mode", "fifo_depth", "flash"}));
        break;
    case PeripheralType::Cmac:
        PDT_CHECK(f.only({"type", "bar", "offset", "min_revision", "port", "operation", "rs_fec", "gt_loopback",
                          "drp_offset", "drp_min_revision"}));
        break;
    case PeripheralType::AxiDma:
        PDT_CHECK(f.only({"type", "bar", "offset", "min_revision", "memory_size", "length_width", "data_width",
                          "streams", "memory_window_bar"}));
        break;
    case PeripheralType::DdrResetGpio:
        PDT_CHECK(f.only({"type", "bar", "offset", "min_revision", "simulated_mig"}));
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
    if (p.type == PeripheralType::QuadSpi)
        PDT_CHECK(parse_quad_spi(f, p));
    if (p.type == PeripheralType::UltrascaleDna)
        p.slr = static_cast<unsigned>(PDT_TRY(f.number_or("slr", 3, 0)));
    if (p.type == PeripheralType::Cmac)
        PDT_CHECK(detail::parse_cmac(f, p));
    if (p.type == PeripheralType::AxiDma)
        PDT_CHECK(detail::parse_axi_dma(f, p));
    if (p.type == PeripheralType::DdrResetGpio && f.has("simulated_mig"))
        PDT_CHECK(detail::parse_simulated_mig(f, p));
    return p;
}

pdt::Result<Simulation> parse_simulation(const Fields& f) {
    PDT_CHECK(f.only({"device_id", "revision", "class_code", "user_access_timestamp", "bar_sizes",
                      "axi_stream_switch_implemented", "dna_words", "stream_fifo_bytes", "xdma_ip",
                      "busy_after_stop_us", "subsystem_vendor_id", "subsystem_device_id", "address_alignment",
                      "length_granularity", "address_bits", "control_w1s_ignored", "completed_count_reads_zero",
                      "control_reads_zero", "control_w1c_ignored", "run_clear_ignored", "start_refused_after_stop_us",
                      "late_engine_ms", "registers", "qdma", "bar_memory"}));
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
                              std::pair{"completed_count_reads_zero", &s.completed_count_reads_zero},
                              std::pair{"control_reads_zero", &s.control_reads_zero},
                              std::pair{"control_w1c_ignored", &s.control_w1c_ignored},
                              std::pair{"run_clear_ignored", &s.run_clear_ignored}})
        if (f.has(key))
            *value = PDT_TRY(f.boolean(key));
    s.start_refused_after_stop_us = PDT_TRY(f.number_or("start_refused_after_stop_us", 10'000'000, 0));
    s.late_engine_ms = PDT_TRY(f.number_or("late_engine_ms", 600'000, 0));
    if (f.has("registers"))
        PDT_CHECK(f.append_objects("registers", "expected an array of {bar, offset, value}", s.registers,
                                   [](const Fields& r) { return parse_register(r, true); }));
    if (f.has("bar_memory"))
        PDT_CHECK(f.append_objects("bar_memory", "expected an array of {bar, offset, size}", s.bar_memory,
                                   parse_bar_memory));
    if (f.has("qdma"))
        s.qdma = PDT_TRY(detail::parse_qdma_simulation(PDT_TRY(f.object("qdma"))));
    return s;
}

// Peripherals that share register space are a description error.
pdt::Result<void> check_overlaps(const Fields& f, const Design& d) {
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
        if (p.cmac_drp_offset)
            spans.push_back({p.bar, *p.cmac_drp_offset, *p.cmac_drp_offset + kCmacDrpFrameSize,
                             "peripherals[" + std::to_string(i) + "].drp_offset"});
        if (p.axi_dma_memory_window_bar)
            spans.push_back({*p.axi_dma_memory_window_bar, 0, p.axi_dma_memory_size,
                             "peripherals[" + std::to_string(i) + "].memory_window_bar"});
    }
    for (size_t i = 0; i < d.simulation.bar_memory.size(); ++i) {
        const BarMemory& m = d.simulation.bar_memory[i];
        spans.push_back({m.bar, m.offset, m.offset + m.size, "simulation.bar_memory[" + std::to_string(i) + "]"});
    }
    for (size_t i = 0; i < spans.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (spans[i].bar == spans[j].bar && spans[i].begin < spans[j].end && spans[j].begin < spans[i].end)
                return f.error(spans[i].what, "overlaps " + spans[j].what + " in BAR " + std::to_string(spans[i].bar));
    return {};
}

pdt::Result<Design> parse_design(const Fields& f) {
    PDT_CHECK(f.only({"name", "display_name", "description", "match", "dma_bridge", "qdma", "card", "peripherals",
                      "simulation", "version_register", "fpga_part"}));
    Design d;
    d.name = PDT_TRY(f.text("name", true));
    if (d.name.empty() || !std::all_of(d.name.begin(), d.name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        }))
        return f.error("name", "a design name is letters, digits, '_', '-' or '.' (got \"" + d.name + "\")");
    d.display_name = f.has("display_name") ? PDT_TRY(f.text("display_name", true)) : d.name;
    if (d.display_name.empty() || std::any_of(d.display_name.begin(), d.display_name.end(), [](char c) {
            return std::iscntrl(static_cast<unsigned char>(c));
        }))
        return f.error("display_name", "a display name is one line of text, not empty");
    d.description = PDT_TRY(f.text("description", false));
    d.fpga_part = PDT_TRY(f.text("fpga_part", false));
    if (!f.has("match"))
        return f.error("match", "missing required field");
    d.match = PDT_TRY(parse_match(PDT_TRY(f.object("match"))));
    if (f.has("dma_bridge"))
        d.dma_bridge = PDT_TRY(parse_dma_bridge(PDT_TRY(f.object("dma_bridge"))));
    if (f.has("qdma")) {
        if (d.dma_bridge)
            return f.error("qdma", "a design has a dma_bridge (XDMA) or a qdma, not both");
        d.qdma = PDT_TRY(detail::parse_qdma(PDT_TRY(f.object("qdma"))));
    }
    if (f.has("card"))
        d.card = PDT_TRY(detail::parse_card(PDT_TRY(f.object("card"))));
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

pdt::Result<std::vector<Design>> parse_designs(std::string_view text, const std::string& source) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        // "[json.exception.parse_error.101] parse error at line 3, column 7: syntax error ..."
        const std::string what = e.what();
        const size_t at = what.find("parse error ");
        return pdt::usage_error("parse design file", source,
                                "invalid JSON " + (at == std::string::npos ? what : what.substr(at + 12)));
    } catch (const json::exception& e) {
        // The parser throws out_of_range, not parse_error, for a number beyond a double
        // ("[json.exception.out_of_range.406] number overflow parsing '65e666'"; found by fuzzing).
        const std::string what = e.what();
        const size_t at = what.find("] ");
        return pdt::usage_error("parse design file", source,
                                "invalid JSON: " + (at == std::string::npos ? what : what.substr(at + 2)));
    }
    std::vector<Design> designs;
    auto add = [&](const std::string& path, const json& value) -> pdt::Result<void> {
        if (!value.is_object())
            return pdt::usage_error("parse design file", source + (path.empty() ? "" : " field " + path),
                                    std::string("expected a design object {\"name\": ..., \"match\": ...} (got ") +
                                        value.type_name() + ")");
        Design design = PDT_TRY(parse_design(Fields(value, path, source)));
        design.source = source;
        designs.push_back(std::move(design));
        return {};
    };
    if (root.is_array()) {
        if (root.empty())
            return pdt::usage_error("parse design file", source, "the array holds no designs");
        for (size_t i = 0; i < root.size(); ++i)
            PDT_CHECK(add("[" + std::to_string(i) + "]", root[i]));
    } else {
        PDT_CHECK(add("", root));
    }
    return designs;
}

}  // namespace designs
