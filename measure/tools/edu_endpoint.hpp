// The edu endpoint of pcie_link_measure (--endpoint edu): QEMU's edu device bound to vfio-pci
// (the first 1234:11e8, or the one --device names), or a simulated edu (--edu_sim: the register
// model sim::EduModel, for tests without a guest), through edu::open_copy_endpoint. edu copies
// at most 4095 bytes, one at a time, ~100 ms each: measure with few samples and a size cap.
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "streams/copy_endpoint.hpp"
#include "streams/lie.hpp"

namespace measure_tool {

struct EduCli {
    bool sim = false;          // --edu_sim
    double sim_delay_ms = 100;  // --edu_sim_delay_ms: the model's delay from command to transfer
    streams::Lie sim_lie{};     // --model_lie with --edu_sim (test only): how the model lies
};
void add_edu_options(boost::program_options::options_description& options, EduCli& cli);
// `devices` and `lock_timeout` are the shared --device and --lock_timeout. EINVAL for a usage
// error (a bad --device, more than one); ENODEV when no edu is bound to vfio-pci there.
vfio::Result<std::unique_ptr<streams::CopyEndpoint>> open_edu(const EduCli& cli, const std::vector<std::string>& devices,
                                                             const std::string& lock_timeout);

}  // namespace measure_tool
