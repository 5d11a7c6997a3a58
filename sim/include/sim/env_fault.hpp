// Test-only fault selection from the environment: PDT_SIM_FAULT=<fault>[:<h2c|c2h>:<channel>]
// makes every simulated design that make_design_bus builds inject that XDMA model fault into
// each fresh instance (each open()), so a tool run as a child process on a --sim_design can be
// given a fault from outside (scripts/soak.sh, fault matrix tests). <fault> is an XdmaFault
// enumerator name (DataBitFlip, EngineStall, ...). Without a direction and channel: C2H 0 for
// ShortC2hLength, otherwise H2C 0. Never read for real hardware (the kernel bus ignores it).
#pragma once

#include <optional>
#include <string>

#include "sim/xdma_model.hpp"
#include "vfio_access/result.hpp"

namespace sim {

inline constexpr const char* kFaultEnvironmentVariable = "PDT_SIM_FAULT";

struct EnvFault {
    XdmaFault fault = XdmaFault::DataBitFlip;
    XdmaDirection direction = XdmaDirection::H2C;
    unsigned channel = 0;
};

// The enumerator name of a fault ("DataBitFlip"), as PDT_SIM_FAULT spells it.
const char* fault_name(XdmaFault fault);
// Parses a PDT_SIM_FAULT value; EINVAL naming the known faults when it is not one.
vfio::Result<EnvFault> parse_env_fault(const std::string& text);
// The fault PDT_SIM_FAULT selects: nullopt when unset or empty, an error when malformed.
vfio::Result<std::optional<EnvFault>> env_fault();

}  // namespace sim
