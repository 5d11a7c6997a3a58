#include "pcie_tools/dump_info.hpp"

#include <algorithm>
#include <cstdio>

#include "base/format.hpp"
#include "pcie_tools/link.hpp"

namespace pcie {
namespace {

std::string hex(uint32_t value, int digits) { return pdt::format("%0*x", digits, value); }

std::optional<uint16_t> parse_id(const std::string& text) {
    if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        return std::nullopt;
    return static_cast<uint16_t>(std::stoul(text, nullptr, 16));
}

std::string description(const DeviceConfig& d) {
    return "device " + d.address.to_string() + " (" + hex(d.header.vendor_id, 4) + ":" + hex(d.header.device_id, 4) + ")";
}

}  // namespace

Result<std::vector<PciAddress>> select_devices(ConfigBackend& bus, const std::vector<std::string>& arguments) {
    const auto all = PDT_TRY(bus.devices());
    std::vector<PciAddress> chosen;
    auto add = [&chosen](const PciAddress& a) {
        if (std::find(chosen.begin(), chosen.end(), a) == chosen.end())
            chosen.push_back(a);
    };
    auto match_ids = [&](std::optional<uint16_t> vendor, std::optional<uint16_t> device) -> Result<void> {
        for (const PciAddress& a : all) {
            ConfigSpace* space = PDT_TRY(bus.open(a));
            auto ids = space->read32(0);
            if (ids && static_cast<uint16_t>(*ids) == *vendor && (!device || *ids >> 16 == *device))
                add(a);
        }
        return {};
    };
    for (const std::string& arg : arguments) {
        if (arg.find('.') != std::string::npos) {
            const PciAddress a = PDT_TRY(parse_bdf(arg));
            if (std::find(all.begin(), all.end(), a) == all.end())
                return pdt::make_error("find PCI device", a.to_string(), ENODEV, "not present on " + bus.name());
            add(a);
            continue;
        }
        const auto colon = arg.find(':');
        const auto vendor = parse_id(arg.substr(0, colon));
        const auto device = colon == std::string::npos ? std::optional<uint16_t>(0) : parse_id(arg.substr(colon + 1));
        if (!vendor || !device)
            return pdt::usage_error("parse", "\"" + arg + "\"",
                                    "Invalid PCI device ID: expected a BDF (0000:01:00.0), vendor:device or vendor in hex");
        PDT_CHECK(match_ids(vendor, colon == std::string::npos ? std::nullopt : device));
    }
    if (arguments.empty())
        PDT_CHECK(match_ids(0x10ee, std::nullopt));
    if (chosen.empty())
        return pdt::make_error("select devices on", bus.name(), ENODEV,
                               arguments.empty() ? "No device found: no vendor 10ee device; name one by BDF or ID"
                                                 : "No device found matching the arguments");
    return chosen;
}

Result<Lines> dump_device(ConfigBackend& bus, const PciAddress& address) {
    const auto chain = PDT_TRY(path_to_root(bus, address));
    Lines out;
    std::string indent;
    std::string first_description;
    for (const PciAddress& a : chain) {
        ConfigSpace* space = PDT_TRY(bus.open(a));
        const DeviceConfig d = PDT_TRY(decode_device(*space));
        if (first_description.empty())
            first_description = description(d);
        for (const std::string& line : format_device(*space, d, bus.system_info(a)))
            out.push_back(indent + line);
        indent += "  ";
    }
    const PathReport report = PDT_TRY(check_link_path(bus, address));
    for (const std::string& line : format_link_summary(report))
        out.push_back(line);
    for (const std::string& line : format_link_warning(report, first_description))
        out.push_back(line);
    for (const std::string& line : format_slot_warnings(report))
        out.push_back(line);
    return out;
}

// Every capability in list order; those decoded into sections (sections.hpp) carry lspci's
// fields: {"registers": {"ACSCap": {"SrcValid": true, ...}, ...}}.
static nlohmann::json capabilities_json(const DeviceConfig& d) {
    nlohmann::json caps = nlohmann::json::array();
    auto section = [&d](const Capability& c) -> const CapSection* {
        for (const CapSection& s : d.sections)
            if (s.cap.offset == c.offset && s.cap.extended == c.extended)
                return &s;
        return nullptr;
    };
    for (const Capability& c : d.caps.standard) {
        if (const CapSection* s = section(c)) {
            caps.push_back(s->json());
            continue;
        }
        const char* name = capability_name(static_cast<uint8_t>(c.id));
        caps.push_back({{"offset", c.offset}, {"id", c.id}, {"name", name ? name : ""}});
    }
    for (const Capability& c : d.caps.extended) {
        if (const CapSection* s = section(c)) {
            caps.push_back(s->json());
            continue;
        }
        const char* name = extended_capability_name(c.id);
        caps.push_back({{"offset", c.offset}, {"id", c.id}, {"version", c.version}, {"extended", true}, {"name", name ? name : ""}});
    }
    return caps;
}

nlohmann::json to_json(const DeviceConfig& d, const SystemInfo& info) {
    using nlohmann::json;
    const HeaderInfo& h = d.header;
    json j = {{"address", d.address.to_string()},
              {"vendor_id", hex(h.vendor_id, 4)},
              {"device_id", hex(h.device_id, 4)},
              {"vendor_name", info.vendor_name},
              {"device_name", info.device_name},
              {"revision", hex(h.revision, 2)},
              {"class", hex(h.class_code, 6)},
              {"header_type", h.header_type},
              {"command", hex(h.command, 4)},
              {"status", hex(h.status, 4)},
              {"config_size", d.config_size},
              {"iommu_group", info.iommu_group},
              {"driver", info.driver},
              {"problems", d.problems}};
    json bars = json::array();
    for (const BarInfo& b : h.bars) {
        json jb = {{"index", b.index}, {"base", b.base}, {"io", b.io}, {"prefetchable", b.prefetchable}, {"is_64", b.is_64}};
        if (info.bar_size[b.index])
            jb["size"] = *info.bar_size[b.index];
        bars.push_back(jb);
    }
    j["bars"] = bars;
    j["capabilities"] = capabilities_json(d);
    if (d.express) {
        const ExpressInfo& e = *d.express;
        j["express"] = {{"offset", e.offset},
                        {"version", e.version()},
                        {"port_type", port_type_name(e.type())},
                        {"devcap", hex(e.devcap, 8)}, {"devctl", hex(e.devctl, 4)}, {"devsta", hex(e.devsta, 4)},
                        {"lnkcap", hex(e.lnkcap, 8)}, {"lnkctl", hex(e.lnkctl, 4)}, {"lnksta", hex(e.lnksta, 4)},
                        {"devcap2", hex(e.devcap2, 8)}, {"devctl2", hex(e.devctl2, 4)},
                        {"lnkcap2", hex(e.lnkcap2, 8)}, {"lnkctl2", hex(e.lnkctl2, 4)}, {"lnksta2", hex(e.lnksta2, 4)},
                        {"max_payload_supported", e.max_payload_supported()},
                        {"max_payload", e.max_payload()},
                        {"max_read_request", e.max_read_request()},
                        {"max_link_speed", speed_name(e.max_speed())},
                        {"max_link_width", e.max_width()},
                        {"link_speed", speed_name(e.speed())},
                        {"link_width", e.width()},
                        {"link_training", (e.lnksta & PCI_EXP_LNKSTA_LT) != 0},
                        {"aspm_control", e.lnkctl & PCI_EXP_LNKCTL_ASPMC},
                        {"target_link_speed", speed_name(e.lnkctl2 & PCI_EXP_LNKCTL2_TLS)}};
        if (e.slot())
            j["express"].update({{"sltcap", hex(e.sltcap, 8)}, {"sltctl", hex(e.sltctl, 4)}, {"sltsta", hex(e.sltsta, 4)},
                                 {"slot_number", e.sltcap >> 19}});
        if (e.type() == reg::PortType::RootPort || e.type() == reg::PortType::RcEventCollector)
            j["express"].update({{"rootcap", hex(e.rootcap, 4)}, {"rootctl", hex(e.rootctl, 4)}, {"rootsta", hex(e.rootsta, 8)},
                                 {"pme_requester_id", hex(e.rootsta & 0xffffu, 4)}});
    }
    if (d.aer) {
        const AerInfo& a = *d.aer;
        j["aer"] = {{"offset", a.offset},
                    {"uncorrectable_status", aer_uncorrectable_names(a.uncor_status)},
                    {"uncorrectable_mask", aer_uncorrectable_names(a.uncor_mask)},
                    {"uncorrectable_severity_fatal", aer_uncorrectable_names(a.uncor_sever)},
                    {"correctable_status", aer_correctable_names(a.cor_status)},
                    {"correctable_mask", aer_correctable_names(a.cor_mask)}};
        if (a.root)
            j["aer"].update({{"root_command", hex(a.root_command, 8)}, {"root_status", hex(a.root_status, 8)},
                             {"error_source_correctable", hex(a.cor_source, 4)},
                             {"error_source_uncorrectable", hex(a.uncor_source, 4)}});
    }
    if (d.dsn)
        j["serial_number"] = hex(static_cast<uint32_t>(d.dsn->serial >> 32), 8) + hex(static_cast<uint32_t>(d.dsn->serial), 8);
    return j;
}

Result<nlohmann::json> dump_device_json(ConfigBackend& bus, const PciAddress& address) {
    using nlohmann::json;
    const auto chain = PDT_TRY(path_to_root(bus, address));
    json path = json::array();
    for (const PciAddress& a : chain) {
        ConfigSpace* space = PDT_TRY(bus.open(a));
        const DeviceConfig d = PDT_TRY(decode_device(*space));
        path.push_back(to_json(d, bus.system_info(a)));
    }
    const PathReport report = PDT_TRY(check_link_path(bus, address));
    json links = json::array();
    for (const LinkHop& h : report.hops) {
        json l = {{"device", h.below_address.to_string()},
                  {"speed", speed_name(h.speed)}, {"width", h.width},
                  {"capable_speed", speed_name(h.capable_speed)}, {"capable_width", h.capable_width},
                  {"downgraded", h.downgraded()}, {"aspm_enabled", h.aspm_enabled()},
                  {"encoded_gbytes_per_s", encoded_bandwidth(h.speed, h.width)},
                  {"payload_gbytes_per_s", payload_bandwidth(h.speed, h.width, h.below.max_payload())},
                  {"capable_encoded_gbytes_per_s", encoded_bandwidth(h.capable_speed, h.capable_width)}};
        if (h.port_address)
            l["port"] = h.port_address->to_string();
        links.push_back(l);
    }
    return json{{"device", address.to_string()}, {"path", path}, {"links", links},
                {"downgraded", report.downgraded()}, {"notes", report.notes}};
}

}  // namespace pcie
