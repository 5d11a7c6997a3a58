// pcie_set_speed: set a link's Target Link Speed and retrain it from the port that owns the
// link. Writes exactly two registers of that port, each with a 16-bit access: Link Control 2
// (only when its Target Link Speed field changes; the other bits are written back as read) and
// Link Control (Retrain Link set, every other bit as read). Link Status, whose RW1C bits share
// a dword with Link Control, is never written.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "pcie_tools/config_space.hpp"
#include "pcie_tools/decode.hpp"

namespace pcie {

struct RetrainOptions {
    std::optional<uint8_t> target_speed;  // speed code 1..6; default: the port's maximum
    std::chrono::milliseconds timeout{1000};  // for Link Training to clear, before and after
    std::chrono::milliseconds poll{1};
};

struct RetrainReport {
    PciAddress port;                     // the Root or Downstream Port that was retrained
    std::optional<PciAddress> below;     // the device whose link it is, when known
    uint8_t target = 0;
    uint16_t lnksta_before = 0, lnksta_after = 0;
    uint16_t lnkctl2_before = 0, lnkctl2_after = 0;
    bool lnkctl2_rejected = false;       // the port did not accept the new Target Link Speed
    bool lnkctl2_restored = false;
    uint8_t speed_after = 0, width_after = 0;
    bool reached = false;                // Current Link Speed equals the target afterwards
};

using Say = std::function<void(const std::string&)>;

// Each printed line goes to `say`, what will change always before it is changed. Errors name
// the register; on a timeout after Retrain Link, Link Control 2 is restored when it was changed.
Result<RetrainReport> set_link_speed(ConfigBackend& bus, const PciAddress& address, const RetrainOptions& options,
                                     const Say& say);

// Parses a Target Link Speed argument: "1".."6", or "2.5", "5", "8", "16", "32", "64" with an
// optional "GT/s". A usage error "Invalid target link speed" otherwise.
Result<uint8_t> parse_target_speed(const std::string& text);

}  // namespace pcie
