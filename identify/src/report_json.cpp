#include <nlohmann/json.hpp>

#include "identify/identify.hpp"

namespace identify {
namespace {

using json = nlohmann::ordered_json;

std::string json_hex(uint64_t value, int digits = 0) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%0*llx", digits, static_cast<unsigned long long>(value));
    return text;
}

json dma_bridge_json(const DmaBridgeInfo& dma) {
    json j = {{"bar", dma.bar}, {"mode", designs::to_string(dma.mode)}};
    if (dma.mode == designs::DmaMode::MemoryMapped) {
        j["memory_base"] = json_hex(dma.memory_base);
        j["memory_size"] = json_hex(dma.memory_size);
    }
    j["channels"] = json::array();
    for (const auto* list : {&dma.channels.h2c, &dma.channels.c2h})
        for (const xdma::ChannelInfo& c : *list)
            j["channels"].push_back({{"direction", streams::to_string(c.direction)},
                                     {"id", c.channel},
                                     {"addr_alignment", c.address_alignment},
                                     {"len_granularity", c.length_granularity},
                                     {"num_address_bits", c.address_bits},
                                     {"version", c.version}});
    return j;
}

json qdma_json(const QdmaInfo& q) {
    json j = {{"bar", q.bar}};
    if (q.memory_size > 0) {
        j["memory_base"] = json_hex(q.memory_base);
        j["memory_size"] = json_hex(q.memory_size);
    }
    j["rtl_version"] = q.rtl_version;
    j["vivado_release"] = q.vivado_release;
    j["ip_type"] = q.ip_type;
    j["device_type"] = q.device_type;
    if (q.supported)
        j["capabilities"] = {{"num_pfs", q.num_pfs},
                             {"num_queues", q.num_queues},
                             {"mm_channels", q.mm_channels},
                             {"flr_present", q.flr_present},
                             {"st_enabled", q.st_enabled},
                             {"mm_enabled", q.mm_enabled},
                             {"mailbox_enabled", q.mailbox_enabled},
                             {"mm_completion_enabled", q.mm_completion_enabled},
                             {"debug_mode", q.debug_mode},
                             {"desc_engine_mode", q.desc_engine_mode}};
    return j;
}

json design_json(const IdentifiedDesign& d) {
    const vfio::DeviceIdentity& id = d.identity;
    json j = {{"name", d.design->name},
              {"pci_device", id.address.to_string()},
              {"vendor_id", json_hex(id.vendor_id, 4)},
              {"device_id", json_hex(id.device_id, 4)},
              {"subsystem_vendor_id", json_hex(id.subsystem_vendor_id, 4)},
              {"subsystem_device_id", json_hex(id.subsystem_device_id, 4)},
              {"revision", id.revision},
              {"iommu_group", id.iommu_group}};
    if (d.design->card)
        j["card"] = {{"name", d.design->card->name}, {"physical_function", d.design->card->physical_function}};
    if (d.dma_bridge)
        j["dma_bridge"] = dma_bridge_json(*d.dma_bridge);
    if (d.qdma)
        j["qdma"] = qdma_json(*d.qdma);
    if (d.board_version)
        j["board_version"] = *d.board_version;
    if (d.user_access_timestamp) {
        const auto t = designs::BuildTimestamp::decode(*d.user_access_timestamp);
        j["user_access_build_timestamp"] = {{"raw", json_hex(*d.user_access_timestamp, 8)}, {"decoded", t.to_string()}};
    }
    for (const DnaInfo& dna : d.dna)
        j["ultrascale_dna"].push_back({{"slr", dna.slr}, {"words", {json_hex(dna.words[0], 8), json_hex(dna.words[1], 8), json_hex(dna.words[2], 8)}}});
    j["peripherals"] = json::array();
    for (const PeripheralInfo& p : d.peripherals)
        j["peripherals"].push_back({{"type", designs::json_name(p.type)}, {"bar", p.bar}, {"offset", json_hex(p.offset)}});
    if (d.axi_switch) {
        json routes = json::array();
        for (size_t m = 0; m < d.axi_switch->routes.size(); ++m)
            routes.push_back({{"master", m}, {"slave", d.axi_switch->routes[m] ? json(*d.axi_switch->routes[m]) : json(nullptr)}});
        j["axi_stream_switch"] = {{"bar", d.axi_switch->bar}, {"offset", json_hex(d.axi_switch->offset)},
                                  {"master_ports", d.axi_switch->routes.size()}, {"routes", routes}};
    }
    j["warnings"] = d.warnings;
    if (d.device && d.device->lock())  // the advisory device lock (none on simulated designs)
        j["device_hold"] = {{"lock_file", d.device->lock()->path()},
                            {"waited_s", d.device->lock()->waited_seconds()},
                            {"held_s", d.device->lock()->held_seconds()}};
    return j;
}

}  // namespace

std::string format_json(const std::vector<IdentifiedDesign>& designs) {
    json j = {{"designs", json::array()}};
    for (const IdentifiedDesign& d : designs)
        j["designs"].push_back(design_json(d));
    return j.dump(2) + "\n";
}

}  // namespace identify
