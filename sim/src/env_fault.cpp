#include "sim/env_fault.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <utility>

namespace sim {
namespace {

constexpr std::array<std::pair<XdmaFault, const char*>, 9> kFaultNames{{
    {XdmaFault::EngineStall, "EngineStall"},
    {XdmaFault::EngineHang, "EngineHang"},
    {XdmaFault::DescriptorReadError, "DescriptorReadError"},
    {XdmaFault::BadMagic, "BadMagic"},
    {XdmaFault::DataBitFlip, "DataBitFlip"},
    {XdmaFault::DropPacket, "DropPacket"},
    {XdmaFault::DuplicatePacket, "DuplicatePacket"},
    {XdmaFault::ReorderPacket, "ReorderPacket"},
    {XdmaFault::ShortC2hLength, "ShortC2hLength"},
}};

std::string known_faults() {
    std::string names;
    for (const auto& [fault, name] : kFaultNames)
        names += (names.empty() ? "" : ", ") + std::string(name);
    return names;
}

vfio::Error malformed(const std::string& text, const std::string& why) {
    return vfio::make_error(std::string("parse ") + kFaultEnvironmentVariable, text, EINVAL,
                            why + "; expected <fault>[:<h2c|c2h>:<channel>], <fault> one of " + known_faults());
}

}  // namespace

const char* fault_name(XdmaFault fault) {
    for (const auto& [known, name] : kFaultNames)
        if (known == fault)
            return name;
    return "UnknownFault";
}

vfio::Result<EnvFault> parse_env_fault(const std::string& text) {
    const size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    EnvFault selected;
    bool found = false;
    for (const auto& [fault, known] : kFaultNames)
        if (name == known) {
            selected.fault = fault;
            found = true;
        }
    if (!found)
        return malformed(text, "unknown fault '" + name + "'");
    selected.direction = selected.fault == XdmaFault::ShortC2hLength ? XdmaDirection::C2H : XdmaDirection::H2C;
    if (colon == std::string::npos)
        return selected;
    const std::string rest = text.substr(colon + 1);
    const size_t second = rest.find(':');
    const std::string direction = rest.substr(0, second);
    if (direction != "h2c" && direction != "c2h")
        return malformed(text, "direction '" + direction + "' is neither h2c nor c2h");
    selected.direction = direction == "h2c" ? XdmaDirection::H2C : XdmaDirection::C2H;
    const std::string channel = second == std::string::npos ? std::string() : rest.substr(second + 1);
    if (channel.size() != 1 || channel[0] < '0' || channel[0] > '3')
        return malformed(text, "channel '" + channel + "' is not 0..3");
    selected.channel = static_cast<unsigned>(channel[0] - '0');
    return selected;
}

vfio::Result<std::optional<EnvFault>> env_fault() {
    const char* text = std::getenv(kFaultEnvironmentVariable);
    if (!text || !*text)
        return std::optional<EnvFault>();
    return std::optional<EnvFault>(PDT_TRY(parse_env_fault(text)));
}

}  // namespace sim
